import { Anchor, Badge, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { formatTime } from '../../../lib/api.ts'
import { useSession } from '../../auth/api/session.ts'
import { useOrder } from '../api/order.ts'
import { OrderItem } from '../components/order-item.tsx'
import { OrderTimeline } from '../components/order-timeline.tsx'

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  )
}

/** /orders/:order_id: one order of either environment, refreshed every few seconds. */
export function OrderRoute() {
  const { order_id: orderId = '' } = useParams()
  const me = useSession().data!
  const query = useOrder(orderId)
  const order = query.data

  if (query.isPending) {
    return (
      <Page title="Order">
        <Loader aria-label="Loading the order" />
      </Page>
    )
  }
  if (!order) {
    return (
      <Page title="Order">
        <ErrorAlert error={query.error} title="The order cannot be shown" />
        <Anchor component={Link} to="/orders">
          Back to the orders
        </Anchor>
      </Page>
    )
  }
  const c = order.customer
  return (
    <Page
      title={`Order ${order.external_order_id}`}
      lead={`${order.is_test ? 'Test' : 'Live'} order, received ${formatTime(order.created_at)}`}
    >
      <ErrorAlert error={query.error} title="The order could not be refreshed" />
      <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="summary-heading">
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h3" id="summary-heading">
            Summary
          </Title>
          <Group gap="xs">
            <Badge variant="dot" color={order.is_test ? 'gray' : 'blue'}>
              {order.is_test ? 'Test' : 'Live'}
            </Badge>
            <Badge variant="filled">{order.status}</Badge>
          </Group>
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
          <Fact label="Customer">{c.name}</Fact>
          <Fact label="Email">{c.email ?? '—'}</Fact>
          <Fact label="Phone">{c.phone ?? '—'}</Fact>
          <Fact label="Total">
            {order.total_amount === null ? '—' : `${order.total_amount} ${order.currency ?? ''}`}
          </Fact>
          <Fact label="Ordered">{formatTime(order.ordered_at)}</Fact>
          <Fact label="Last change">{formatTime(order.updated_at)}</Fact>
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
            item={item}
            position={n + 1}
            canCreateProduct={me.role !== 'viewer'}
          />
        ))}
      </Stack>
      <OrderTimeline orderId={order.id} receivedAt={order.created_at} isTest={order.is_test} />
    </Page>
  )
}
