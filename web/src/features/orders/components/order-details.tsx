import { Badge } from '@mantine/core'
import { Fact } from '../../../components/fact.tsx'
import { orderStatusLabel, PRODUCTION_STATUS_WORDS } from '../../../components/order-statuses.ts'
import type { DashboardOrder } from '../../../lib/api.ts'
import { type Editor, useOrderHistory } from '../api/order-edit.ts'
import { ChangeCustomer, ChangeItem } from './change-dialogs.tsx'
import { AutomationBadges, AwaitingPreflightAlert, HeldAlert, ruleLines } from './order-automation.tsx'
import { CancelOrder, EditNotes, editPolicy, ItemFiles } from './order-edit.tsx'
import { OrderItem } from './order-item.tsx'
import {
  CustomerFacts,
  DueFact,
  OrderItems,
  OrderSummary,
  OrderTimeFacts,
  TotalFact,
} from './order-summary.tsx'
import { OrderTimeline } from './order-timeline.tsx'

/**
 * An order's summary, items and timeline, for the member's order page and
 * the operator's; with `canChange`, the controls that change and cancel it
 * (as far as editPolicy allows) and the reasons for what they cannot.
 */
export function OrderDetails({
  order,
  who,
  canChange,
  canCreateProduct,
}: {
  order: DashboardOrder
  who: Editor
  canChange: boolean
  canCreateProduct: boolean
}) {
  const policy = editPolicy(order, who)
  // The timeline's query (one request): whether items changed since the order arrived.
  const history = useOrderHistory(who, order.id)
  const editable = canChange && policy.canEdit
  return (
    <>
      <HeldAlert order={order} who={who} canRelease={canChange} />
      <AwaitingPreflightAlert order={order} />
      {canChange && <EditNotes order={order} who={who} />}
      <OrderSummary
        badges={
          <>
            {editable && <ChangeCustomer order={order} who={who} />}
            {canChange && policy.canCancel && <CancelOrder order={order} who={who} />}
            <Badge variant="dot" color={order.is_test ? 'gray' : 'blue'}>
              {order.is_test ? 'Test' : 'Live'}
            </Badge>
            <Badge variant="filled" tt="none">
              {orderStatusLabel(order.status)}
            </Badge>
            <AutomationBadges
              held={order.held}
              priority={order.priority}
              partner={order.production_order?.produced_by_partner ?? false}
              tags={order.tags}
            />
          </>
        }
      >
        <CustomerFacts customer={order.customer} />
        <TotalFact order={order} history={history.data} />
        <OrderTimeFacts order={order} />
        <Fact label="Production">
          {order.production_order
            ? (PRODUCTION_STATUS_WORDS[order.production_order.status] ?? order.production_order.status)
            : 'None (test order)'}
        </Fact>
        <DueFact order={order} />
        <Fact label="Source">{order.source === 'shop' ? 'Shop' : 'API'}</Fact>
      </OrderSummary>
      <OrderItems count={order.items.length}>
        {order.items.map((item, n) => (
          <OrderItem
            key={item.id}
            orderId={order.id}
            who={who}
            item={item}
            currency={order.currency}
            position={n + 1}
            canCreateProduct={canCreateProduct}
            controls={editable && <ChangeItem order={order} item={item} position={n + 1} who={who} />}
            fileControls={editable && <ItemFiles order={order} item={item} position={n + 1} who={who} />}
          />
        ))}
      </OrderItems>
      <OrderTimeline
        orderId={order.id}
        receivedAt={order.created_at}
        isTest={order.is_test}
        rules={ruleLines(order)}
        who={who}
      />
    </>
  )
}
