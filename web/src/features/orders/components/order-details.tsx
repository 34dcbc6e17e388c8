import { Badge, Group, Paper, SimpleGrid, Stack, Title } from '@mantine/core'
import { Fact } from '../../../components/fact.tsx'
import { Time } from '../../../components/time.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import { formatMoney } from '../../../lib/format.ts'
import type { Editor } from '../api/order-edit.ts'
import { AutomationBadges, HeldAlert, ruleLines } from './order-automation.tsx'
import { CancelOrder, ChangeCustomer, ChangeItem, EditNotes, editPolicy, ItemFiles } from './order-edit.tsx'
import { OrderItem } from './order-item.tsx'
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
  const c = order.customer
  const policy = editPolicy(order, who)
  const editable = canChange && policy.canEdit
  return (
    <>
      <HeldAlert order={order} who={who} canRelease={canChange} />
      {canChange && <EditNotes order={order} who={who} />}
      <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="summary-heading">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h3" id="summary-heading">
            Summary
          </Title>
          <Group gap="xs">
            {editable && <ChangeCustomer order={order} who={who} />}
            {canChange && policy.canCancel && <CancelOrder order={order} who={who} />}
            <Badge variant="dot" color={order.is_test ? 'gray' : 'blue'}>
              {order.is_test ? 'Test' : 'Live'}
            </Badge>
            <Badge variant="filled">{order.status}</Badge>
            <AutomationBadges
              held={order.held}
              priority={order.priority}
              partner={order.production_order?.produced_by_partner ?? false}
              tags={order.tags}
            />
          </Group>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          <Fact label="Customer">{c.name}</Fact>
          <Fact label="Email">{c.email ?? '—'}</Fact>
          <Fact label="Phone">{c.phone ?? '—'}</Fact>
          <Fact label="Total">
            {order.total_amount === null ? '—' : formatMoney(order.total_amount, order.currency)}
          </Fact>
          <Fact label="Ordered">
            <Time value={order.ordered_at} />
          </Fact>
          <Fact label="Last change">
            <Time value={order.updated_at} />
          </Fact>
          <Fact label="Production">{order.production_order?.status ?? 'none (test order)'}</Fact>
          <Fact label="Source">{order.source === 'shop' ? 'Shop' : 'API'}</Fact>
        </SimpleGrid>
      </Paper>
      <Stack gap="md" component="section" aria-labelledby="items-heading">
        <Title order={2} size="h3" id="items-heading">
          Items ({order.items.length})
        </Title>
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
      </Stack>
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
