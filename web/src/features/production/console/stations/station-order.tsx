import { Anchor, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'react-router'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { actionRefusedWords, actionWords, type Said } from '../../lib/station-words.ts'
import { PRODUCTION_STATUS_COLOR, type ProductionStatus, productionStatusLabel } from '../api/production.ts'
import type { ScannedOrder } from '../api/stations.ts'
import { DueDate } from '../components/due.tsx'
import { type Confirmation, useProductionActions } from '../components/production-actions.tsx'
import { jobsOpen } from '../components/production-buttons.tsx'
import { FailDialog } from './station-fail.tsx'

/** The job sheet, printed again: in a new tab, so the station page stays ready for the next scan. */
export function PrintButton({ to, children }: { to: string; children: string }) {
  return (
    <Button
      component={Link}
      to={to}
      target="_blank"
      rel="noopener"
      size="xl"
      variant="default"
      fullWidth
      h="auto"
      mih={60}
      py="sm"
      styles={{ label: { whiteSpace: 'normal', textAlign: 'center' } }}
    >
      {children}
    </Button>
  )
}

/**
 * A production order opened at a station (its job sheet scanned): large
 * buttons to start, complete or fail it (failing asks first, with a reason), to complete
 * each item, and to print its job sheet again. Each action names the station.
 */
export function StationOrder({
  sheet,
  stationId,
  onSaid,
}: {
  sheet: ScannedOrder
  stationId: string
  onSaid: (said: Said) => void
}) {
  const { order, production_order: p, organization } = sheet
  const ref = order.external_order_id
  const [failing, setFailing] = useState(false)
  const { act, busy, confirmation } = useProductionActions({
    stationId,
    onDone: (outcome) => onSaid(actionWords(outcome)),
    onRefused: (error) => onSaid(actionRefusedWords(error)),
  })
  const subject = {
    production_order: p,
    order,
    held: order.held,
    awaiting_preflight: order.awaiting_preflight,
  }
  const startable =
    (p.status === 'pending' || p.status === 'failed') && !order.held && order.awaiting_preflight.length === 0
  const move = (to: ProductionStatus, verb: string, done: string, confirm?: Confirmation) => (
    <Button
      size="xl"
      fullWidth
      color={to === 'failed' ? 'red.9' : undefined}
      variant={to === 'failed' ? 'outline' : 'filled'}
      disabled={busy}
      onClick={() =>
        act(
          { kind: 'status', productionOrderId: p.id, status: to, expected: p.status },
          `${done} ${ref}`,
          confirm,
        )
      }
    >
      {verb}
    </Button>
  )
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="station-order-heading">
      <Stack gap="md">
        <div>
          <Title order={2} id="station-order-heading" style={{ overflowWrap: 'anywhere' }}>
            Order {ref}
          </Title>
          <Text size="lg">
            {organization.name} · {order.customer.name}
          </Text>
          <Group gap="sm" mt={4}>
            <StatusBadge color={PRODUCTION_STATUS_COLOR[p.status] ?? 'gray'}>
              {productionStatusLabel(p.status)}
            </StatusBadge>
            {p.produced_by_partner && <Badge variant="dot">Produced by a partner</Badge>}
            <DueDate due={sheet.due} status={p.status} />
          </Group>
        </div>
        {order.held && (
          <Text fw={600}>Held for review: it starts once released on the order's page in the console.</Text>
        )}
        {!order.held && order.awaiting_preflight.length > 0 && (
          <Text fw={600}>Waiting for its files' print check: it starts once the check is in.</Text>
        )}
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          {startable && move('in_progress', 'Start', `Started production of order ${ref}`)}
          {p.status === 'in_progress' && move('completed', 'Complete', `Completed order ${ref}`)}
          {p.status === 'in_progress' && (
            <Button
              size="xl"
              fullWidth
              color="red.9"
              variant="outline"
              disabled={busy}
              onClick={() => setFailing(true)}
            >
              Fail…
            </Button>
          )}
          <PrintButton to={`/operator/production/${p.id}/job-sheet`}>Print the job sheet again</PrintButton>
        </SimpleGrid>
        <Title order={3} size="h4">
          Items ({formatNumber(order.items.length)})
        </Title>
        <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {order.items.map((item, n) => {
            const what = `${formatNumber(item.quantity)} × ${item.name}`
            const job = item.production_job
            return (
              <Group key={item.id} component="li" justify="space-between" gap="sm" wrap="wrap">
                <Text size="lg" style={{ overflowWrap: 'anywhere' }}>
                  {n + 1}. {what}
                  {item.sku ? ` (${item.sku})` : ''}
                </Text>
                {job?.status === 'completed' ? (
                  <StatusBadge color="green">Completed</StatusBadge>
                ) : job && jobsOpen(subject) ? (
                  <Button
                    size="lg"
                    variant="default"
                    disabled={busy}
                    aria-label={`Complete item ${n + 1}: ${what}`}
                    onClick={() =>
                      act(
                        { kind: 'job', jobId: job.id, expected: p.status },
                        `Completed item ${what} of order ${ref}`,
                      )
                    }
                  >
                    Complete item
                  </Button>
                ) : (
                  <Text c="dimmed">{job ? productionStatusLabel(job.status) : 'No job'}</Text>
                )}
              </Group>
            )
          })}
        </Stack>
        <Anchor component={Link} to={`/operator/production/${p.id}`}>
          The production order's page
        </Anchor>
      </Stack>
      {confirmation}
      {failing && (
        <FailDialog
          order={order}
          busy={busy}
          onClose={() => setFailing(false)}
          onFail={(reason) => {
            setFailing(false)
            act(
              { kind: 'status', productionOrderId: p.id, status: 'failed', expected: p.status, reason },
              `Marked order ${ref} failed`,
            )
          }}
        />
      )}
    </Paper>
  )
}
