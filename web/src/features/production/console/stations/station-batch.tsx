import { Anchor, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { actionRefusedWords, actionWords, batchActedWords, type Said } from '../../lib/station-words.ts'
import { BATCH_STATUS_COLOR, type BatchDetail, type BatchOrder, batchStatusLabel } from '../api/batches.ts'
import { productionStatusLabel } from '../api/production.ts'
import { BatchActions } from '../components/batch-actions.tsx'
import { productTitle } from '../components/batch-products.tsx'
import { type Act, useProductionActions } from '../components/production-actions.tsx'
import { jobsOpen } from '../components/production-buttons.tsx'
import { PrintButton } from './station-order.tsx'

/** A line's item, completed at the station where its order lets it. */
function Line({
  order,
  line,
  name,
  act,
  busy,
}: {
  order: BatchOrder | undefined
  line: BatchDetail['products'][number]['lines'][number]
  name: string
  act: Act
  busy: boolean
}) {
  const what = `${formatNumber(line.quantity)} × ${name}`
  const ref = line.external_order_id
  // The batch lists no print check wait: the service refuses what it would.
  const open =
    order && jobsOpen({ production_order: order.production_order, held: order.held, awaiting_preflight: [] })
  const job = line.job
  return (
    <Group component="li" justify="space-between" gap="sm" wrap="wrap">
      <Text size="lg" style={{ overflowWrap: 'anywhere' }}>
        Order {ref}, item {line.position + 1}: {what}
      </Text>
      {job?.status === 'completed' ? (
        <StatusBadge color="green">Completed</StatusBadge>
      ) : job && open && order ? (
        <Button
          size="lg"
          variant="default"
          disabled={busy}
          aria-label={`Complete item ${line.position + 1} of order ${ref}: ${what}`}
          onClick={() =>
            act(
              { kind: 'job', jobId: job.id, expected: order.production_order.status },
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
}

/**
 * A batch opened at a station (its batch sheet scanned): large buttons to
 * start, complete or fail it (each asking first, failing with a reason), to
 * complete each item line, and to print the batch sheet again.
 */
export function StationBatch({
  detail,
  stationId,
  onSaid,
}: {
  detail: BatchDetail
  stationId: string
  onSaid: (said: Said) => void
}) {
  const { batch } = detail
  const { act, busy, confirmation } = useProductionActions({
    stationId,
    onDone: (outcome) => onSaid(actionWords(outcome)),
    onRefused: (error) => onSaid(actionRefusedWords(error)),
  })
  const byId = new Map(detail.orders.map((o) => [o.production_order.id, o]))
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="station-batch-heading">
      <Stack gap="md">
        <div>
          <Title order={2} id="station-batch-heading" style={{ overflowWrap: 'anywhere' }}>
            Batch {batch.name}
          </Title>
          <Group gap="sm" mt={4}>
            <StatusBadge color={BATCH_STATUS_COLOR[batch.status] ?? 'gray'}>
              {batchStatusLabel(batch.status)}
            </StatusBadge>
            <Text size="lg">
              {formatNumber(batch.orders)} {batch.orders === 1 ? 'order' : 'orders'}
            </Text>
          </Group>
        </div>
        <BatchActions
          detail={detail}
          stationId={stationId}
          onActed={(action, acted) => onSaid(batchActedWords(batch.name, action, acted))}
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <PrintButton to={`/operator/batches/${batch.id}/sheet`}>Print the batch sheet again</PrintButton>
        </SimpleGrid>
        {detail.products.map((p) => (
          <Stack key={`${p.sku ?? ''} ${p.name}`} gap="xs">
            <Title order={3} size="h4">
              {productTitle(p)}
            </Title>
            <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {p.lines.map((line) => (
                <Line
                  key={line.item_id}
                  order={byId.get(line.production_order_id)}
                  line={line}
                  name={p.name}
                  act={act}
                  busy={busy}
                />
              ))}
            </Stack>
          </Stack>
        ))}
        <Anchor component={Link} to={`/operator/batches/${batch.id}`}>
          The batch's page
        </Anchor>
      </Stack>
      {confirmation}
    </Paper>
  )
}
