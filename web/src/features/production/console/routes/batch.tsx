import { Anchor, Button, Group, Paper, SimpleGrid, Text, Title } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Fact } from '../../../../components/fact.tsx'
import { Page } from '../../../../components/page.tsx'
import { RecordPage } from '../../../../components/record-page.tsx'
import { StatusBadge } from '../../../../components/status-badge.tsx'
import { Time } from '../../../../components/time.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import {
  BATCH_STATUS_COLOR,
  type BatchDetail,
  batchStatusLabel,
  useBatch,
  useRemoveBatchOrder,
} from '../api/batches.ts'
import { PRODUCTION_STATUS_COLOR, productionStatusLabel } from '../api/production.ts'
import { BatchActions } from '../components/batch-actions.tsx'
import { BatchProducts } from '../components/batch-products.tsx'
import { DueDate } from '../components/due.tsx'
import { useProductionActions } from '../components/production-actions.tsx'

/** The board's view where a batch's orders mostly are, by the batch's status. */
const BOARD_VIEW: Record<string, string> = {
  open: 'pending',
  in_progress: 'in_progress',
  completed: 'completed',
  failed: 'failed',
}

const back = (
  <Anchor component={Link} to="/operator/batches">
    Back to the batches
  </Anchor>
)

/** /operator/batches/:batchId: a batch, its orders and what to make of each product; refreshed every 5 seconds. */
export function BatchRoute() {
  const { batchId = '' } = useParams()
  const query = useBatch(batchId)
  return (
    <RecordPage title="Batch" what="the batch" query={query} back={back}>
      {(detail) => <Batch detail={detail} error={query.error} />}
    </RecordPage>
  )
}

/** The batch's orders, soonest due first; each leaves the batch while it is open. */
function Orders({ detail }: { detail: BatchDetail }) {
  const remove = useRemoveBatchOrder(detail.batch.id)
  const open = detail.batch.status === 'open'
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="orders-heading">
      <Title order={2} size="h3" id="orders-heading" mb="sm">
        Orders ({formatNumber(detail.orders.length)})
      </Title>
      <ErrorAlert error={remove.error} title="The order stays in the batch" />
      {detail.orders.length === 0 ? (
        <Text c="dimmed">
          No orders: add some on the{' '}
          <Anchor component={Link} to="/operator/production">
            production board
          </Anchor>
          .
        </Text>
      ) : (
        <DataTable
          label="Orders of the batch, soonest due first"
          columns={['Order', 'Organization', 'Due', 'Status', 'Items', ...(open ? ['Remove'] : [])]}
        >
          {detail.orders.map((o) => (
            <DataRow key={o.production_order.id}>
              <DataCell label="Order" rowHeader>
                <Anchor
                  component={Link}
                  to={`/operator/production/${o.production_order.id}`}
                  fw={600}
                  size="sm"
                  aria-label={`Open production order ${o.order.external_order_id}`}
                >
                  {o.order.external_order_id}
                </Anchor>
                <Text size="xs" component="span" display="block">
                  {o.order.customer_name}
                </Text>
              </DataCell>
              <DataCell label="Organization">{o.organization.name}</DataCell>
              <DataCell label="Due">
                <DueDate due={o.due} status={o.production_order.status} />
              </DataCell>
              <DataCell label="Status">
                <StatusBadge color={PRODUCTION_STATUS_COLOR[o.production_order.status] ?? 'gray'}>
                  {productionStatusLabel(o.production_order.status)}
                </StatusBadge>
                {o.priority === 'rush' && (
                  <Text size="xs" component="span" display="block">
                    Rush
                  </Text>
                )}
                {o.held && (
                  <Text size="xs" component="span" display="block">
                    Held for review
                  </Text>
                )}
              </DataCell>
              <DataCell label="Items">{formatNumber(o.items)}</DataCell>
              {open && (
                <DataCell label="Remove" hideLabel>
                  <Button
                    size="xs"
                    variant="default"
                    disabled={remove.isPending}
                    aria-label={`Remove order ${o.order.external_order_id} from the batch`}
                    onClick={() => remove.mutate(o.production_order.id)}
                  >
                    Remove
                  </Button>
                </DataCell>
              )}
            </DataRow>
          ))}
        </DataTable>
      )}
    </Paper>
  )
}

function Batch({ detail, error }: { detail: BatchDetail; error: unknown }) {
  const { batch } = detail
  const { act, busy, outcome, confirmation } = useProductionActions()
  return (
    <Page
      title={`Batch ${batch.name}`}
      lead="Production orders made together. Orders join and leave until the batch starts; starting, completing or failing it moves each order as its own status change would, with its own event. Refreshed every 5 seconds."
    >
      <ErrorAlert error={error} title="The batch could not be refreshed" />
      <Group gap="sm">
        <StatusBadge color={BATCH_STATUS_COLOR[batch.status] ?? 'gray'}>
          {batchStatusLabel(batch.status)}
        </StatusBadge>
        <Button component={Link} to={`/operator/batches/${batch.id}/sheet`} variant="default">
          Print batch sheet
        </Button>
        {batch.status === 'open' && (
          <Anchor component={Link} to="/operator/production?batch=none" size="sm">
            Add orders on the production board
          </Anchor>
        )}
        <Anchor
          component={Link}
          to={`/operator/production?status=${BOARD_VIEW[batch.status] ?? 'pending'}&batch=${batch.id}`}
          size="sm"
        >
          Its orders on the board
        </Anchor>
        {back}
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 2, sm: 4 }}>
        <Fact label="Orders">{formatNumber(batch.orders)}</Fact>
        <Fact label="Created by">{batch.created_by}</Fact>
        <Fact label="Created">
          <Time value={batch.created_at} exact />
        </Fact>
        <Fact label={batch.finished_at ? 'Started, finished' : 'Started'}>
          {batch.started_at ? <Time value={batch.started_at} exact /> : 'Not started'}
          {batch.finished_at && (
            <>
              , <Time value={batch.finished_at} exact />
            </>
          )}
        </Fact>
      </SimpleGrid>
      <BatchActions detail={detail} />
      {outcome}
      <Orders detail={detail} />
      <BatchProducts detail={detail} act={act} busy={busy} />
      {confirmation}
    </Page>
  )
}
