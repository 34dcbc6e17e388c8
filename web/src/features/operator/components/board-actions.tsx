import { Alert, Anchor, Button, Code, Group, List, Stack, Switch, Text } from '@mantine/core'
import { Link } from 'react-router'
import { StatusBadge } from '../../../components/status-badge.tsx'
import { Time } from '../../../components/time.tsx'
import { formatNumber } from '../../../lib/format.ts'
import type { BoardEntry, ProducedEvents, ProductionAction, ProductionStatus } from '../api/production.ts'

/** The production board's row parts: an order's items with their jobs, its actions, and what the last action did. */
export interface Outcome {
  label: string
  events: ProducedEvents
}

/** What the last action did: the events it recorded, or that it recorded none. */
export function LastAction({ outcome }: { outcome: Outcome | null }) {
  if (!outcome) return null
  return (
    <Alert variant="default" color="green" role="status" title={outcome.label}>
      {outcome.events.length === 0 ? (
        <Text size="sm">
          Recorded no event (partner flags never do; nor do shop orders, partner-produced items, or a status
          the order already had).
        </Text>
      ) : (
        <>
          <Text size="sm">
            Recorded {outcome.events.length === 1 ? 'this event' : 'these events'}, sent to the organization's
            live webhooks:
          </Text>
          <List size="sm">
            {outcome.events.map((e) => (
              <List.Item key={e.id}>
                <Code>{e.type}</Code> at <Time value={e.created_at} exact /> (event {e.id})
              </List.Item>
            ))}
          </List>
        </>
      )}
    </Alert>
  )
}

export function Actions({
  entry,
  act,
  busy,
}: {
  entry: BoardEntry
  act: (action: ProductionAction, label: string) => void
  busy: boolean
}) {
  const p = entry.production_order
  const ref = entry.order.external_order_id
  const status = (to: ProductionStatus, verb: string) => (
    <Button
      size="xs"
      variant={to === 'failed' ? 'default' : 'filled'}
      disabled={busy}
      aria-label={`${verb}: ${ref}`}
      onClick={() =>
        act({ kind: 'status', productionOrderId: p.id, status: to, expected: p.status }, `${verb}: ${ref}`)
      }
    >
      {verb}
    </Button>
  )
  return (
    <Stack gap={6} align="flex-start">
      <Group gap={6}>
        {(p.status === 'pending' || p.status === 'failed') &&
          !entry.held &&
          status('in_progress', 'Start production')}
        {entry.held && (
          <Text size="xs">
            Not startable until released:{' '}
            <Anchor component={Link} to={`/operator/orders/${entry.order.id}`} size="xs">
              open the order
            </Anchor>
          </Text>
        )}
        {p.status === 'in_progress' && status('completed', 'Mark completed')}
        {p.status === 'in_progress' && status('failed', 'Mark failed')}
        {p.status !== 'cancelled' && (
          <Button
            size="xs"
            variant="default"
            color="red"
            disabled={busy}
            aria-label={`Cancel order: ${ref}`}
            onClick={() =>
              act({ kind: 'cancel', orderId: entry.order.id, expected: p.status }, `Cancel order: ${ref}`)
            }
          >
            Cancel order
          </Button>
        )}
      </Group>
      <Switch
        size="xs"
        label="Produced by a partner"
        aria-label={`Produced by a partner: ${ref}`}
        checked={p.produced_by_partner}
        disabled={busy}
        onChange={(e) =>
          act(
            { kind: 'partner', productionOrderId: p.id, value: e.currentTarget.checked, expected: p.status },
            `${e.currentTarget.checked ? 'Partner produces' : 'Produced in house'}: ${ref}`,
          )
        }
      />
    </Stack>
  )
}

export function Items({
  entry,
  act,
  busy,
}: {
  entry: BoardEntry
  act: (action: ProductionAction, label: string) => void
  busy: boolean
}) {
  const p = entry.production_order
  const open = !entry.held && (p.status === 'pending' || p.status === 'in_progress')
  return (
    <List size="sm" listStyleType="none" spacing={4}>
      {entry.items.map((item) => (
        <List.Item key={item.id}>
          <Group gap={6} wrap="nowrap">
            <Text size="sm">
              {formatNumber(item.quantity)} × {item.name}
              {item.sku ? ` (${item.sku})` : ''}
            </Text>
            {item.job?.status === 'completed' ? (
              <StatusBadge color="green">done</StatusBadge>
            ) : (
              item.job &&
              open && (
                <Button
                  size="compact-xs"
                  variant="default"
                  style={{ flexShrink: 0 }}
                  disabled={busy}
                  aria-label={`Complete item ${item.name}: ${entry.order.external_order_id}`}
                  onClick={() =>
                    act(
                      { kind: 'job', jobId: item.job!.id, expected: p.status },
                      `Complete item ${item.name}: ${entry.order.external_order_id}`,
                    )
                  }
                >
                  Complete item
                </Button>
              )
            )}
          </Group>
        </List.Item>
      ))}
    </List>
  )
}
