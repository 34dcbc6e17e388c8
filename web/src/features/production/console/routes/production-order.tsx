import { Anchor, Badge, Button, Group, Paper, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Fact } from '../../../../components/fact.tsx'
import { Page } from '../../../../components/page.tsx'
import { RecordPage } from '../../../../components/record-page.tsx'
import { Time } from '../../../../components/time.tsx'
import { exactTime } from '../../../../lib/format.ts'
import { useOrderHistory } from '../../../orders/api/order-edit.ts'
import { EventDeliveries } from '../../../orders/components/event-deliveries.tsx'
import { AwaitingPreflightAlert } from '../../../orders/components/order-automation.tsx'
import {
  CustomerFacts,
  OrderItems,
  OrderSummary,
  OrderTimeFacts,
  TotalFact,
} from '../../../orders/components/order-summary.tsx'
import { DeliveryDialog } from '../../../webhooks/components/delivery-detail.tsx'
import { type ProductionOrderPage, productionStatusLabel, useProductionOrder } from '../api/production.ts'
import { DueDate } from '../components/due.tsx'
import { useProductionActions } from '../components/production-actions.tsx'
import { Actions, CompleteItem, type ProductionSubject } from '../components/production-buttons.tsx'
import { ProductionItemCard } from '../components/production-item.tsx'

/**
 * The order's history: its receipt, then its events, each with its webhook
 * deliveries as the order's timeline lists them (payload and headers as the
 * operator reads them: signatures named, not shown).
 */
function History({ sheet }: { sheet: ProductionOrderPage }) {
  const { order, timeline } = sheet
  const [open, setOpen] = useState<string | null>(null)
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="history-heading">
      <Title order={2} size="h3" id="history-heading" mb="sm">
        History
      </Title>
      <DataTable label="History of the order" columns={['When', 'What', 'Webhook deliveries']}>
        <DataRow>
          <DataCell label="When" title style={{ whiteSpace: 'nowrap' }}>
            <Time value={order.created_at} exact />
          </DataCell>
          <DataCell label="What">
            Order received {order.source === 'shop' ? '(shop order: no events)' : 'through the API'}
          </DataCell>
          <DataCell label="Webhook deliveries" />
        </DataRow>
        {timeline.map((event) => (
          <DataRow key={event.id}>
            <DataCell label="When" title style={{ whiteSpace: 'nowrap' }}>
              <Time value={event.created_at} exact />
            </DataCell>
            <DataCell label="What">
              <Text size="sm" ff="monospace" component="span">
                {event.type}
              </Text>
            </DataCell>
            <DataCell label="Webhook deliveries" labelAbove>
              <EventDeliveries event={event} onOpen={setOpen} />
            </DataCell>
          </DataRow>
        ))}
      </DataTable>
      <DeliveryDialog env="live" id={open} onClose={() => setOpen(null)} who="operator" />
    </Paper>
  )
}

/** /operator/production/:productionOrderId: what to make for one production order, refreshed every 5 seconds. */
export function ProductionOrderRoute() {
  const { productionOrderId = '' } = useParams()
  const query = useProductionOrder(productionOrderId)
  return (
    <RecordPage
      title="Production order"
      what="the production order"
      query={query}
      back={
        <Anchor component={Link} to="/operator/production">
          Back to the production board
        </Anchor>
      }
    >
      {(sheet) => <ProductionOrder sheet={sheet} error={query.error} />}
    </RecordPage>
  )
}

/** The production order itself, with its board row's actions; `error`: its last refresh failed. */
function ProductionOrder({ sheet, error }: { sheet: ProductionOrderPage; error: unknown }) {
  const { order, production_order: p, organization } = sheet
  const subject: ProductionSubject = {
    production_order: p,
    order,
    held: order.held,
    awaiting_preflight: order.awaiting_preflight,
  }
  const { act, busy, outcome, confirmation } = useProductionActions()
  // Whether items changed since the order arrived: the Total then says so, as on the order's own page.
  const history = useOrderHistory('operator', order.id)
  return (
    <Page
      title={`Production order ${order.external_order_id}`}
      lead={`${organization.name}: live ${order.source === 'shop' ? 'shop' : 'API'} order, received ${exactTime(order.created_at)}`}
    >
      <ErrorAlert error={error} title="The production order could not be refreshed" />
      <AwaitingPreflightAlert order={order} />
      {outcome}
      <Group gap="sm">
        <Button component={Link} to={`/operator/production/${p.id}/job-sheet`}>
          Job sheet
        </Button>
        <Button component={Link} to={`/operator/orders/${order.id}`} variant="default">
          Change order
        </Button>
        <Anchor component={Link} to="/operator/production" size="sm">
          Back to the production board
        </Anchor>
      </Group>
      <Actions entry={subject} act={act} busy={busy} />
      <OrderSummary
        badges={
          <>
            <Badge variant="filled">{productionStatusLabel(p.status)}</Badge>
            <Badge variant="dot" color={p.produced_by_partner ? 'grape' : 'blue'}>
              {p.produced_by_partner ? 'Produced by a partner' : 'Produced in house'}
            </Badge>
          </>
        }
      >
        <Fact label="Order number">{order.order_number}</Fact>
        <Fact label="Organization">{organization.name}</Fact>
        <CustomerFacts customer={order.customer} />
        <OrderTimeFacts order={order} />
        <Fact label="Due">
          <DueDate due={sheet.due} status={p.status} />
        </Fact>
        <TotalFact order={order} history={history.data} />
      </OrderSummary>
      <OrderItems count={order.items.length}>
        {order.items.map((item, n) => (
          <ProductionItemCard
            key={item.id}
            productionOrderId={p.id}
            orderId={order.id}
            item={item}
            position={n + 1}
            action={
              <CompleteItem
                entry={subject}
                item={{ name: item.name, job: item.production_job }}
                act={act}
                busy={busy}
              />
            }
          />
        ))}
      </OrderItems>
      <History sheet={sheet} />
      {confirmation}
    </Page>
  )
}
