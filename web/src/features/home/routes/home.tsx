import { Card, Loader, SimpleGrid, Table, Text, Title } from '@mantine/core'
import type { OrderTotals } from '../../../../../src/modules/dashboard/home.schemas.ts'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { useHome } from '../api/home.ts'

const STATUSES = [
  ['pending', 'Pending'],
  ['in_production', 'In production'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
] as const

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Card withBorder padding="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700}>
        {value.toLocaleString()}
      </Text>
    </Card>
  )
}

export function HomeRoute() {
  const home = useHome()
  const data = home.data?.data
  const windows: [string, OrderTotals][] = data
    ? [
        ['Today', data.live_orders.today],
        ['Last 7 days', data.live_orders.last_7_days],
        ['Last 30 days', data.live_orders.last_30_days],
        ['All time', data.live_orders.all_time],
      ]
    : []
  return (
    <Page
      title="Home"
      lead="Live orders only: test orders are never counted. Days are UTC days (today is the current UTC day; 7 and 30 days include today)."
    >
      <ErrorAlert error={home.error} />
      {!data ? (
        <Loader aria-label="Loading the statistics" />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            <Figure
              label={`Live orders today (${data.today}, UTC)`}
              value={data.live_orders.today.orders_total}
            />
            <Figure label="Live orders, last 7 days" value={data.live_orders.last_7_days.orders_total} />
            <Figure label="Live orders, last 30 days" value={data.live_orders.last_30_days.orders_total} />
            <Figure label="Orders in production now" value={data.in_production} />
          </SimpleGrid>
          <Table.ScrollContainer minWidth={760}>
            <Table striped>
              <Table.Caption>Live orders by status, with their item lines and quantities</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Period</Table.Th>
                  <Table.Th scope="col">Orders</Table.Th>
                  {STATUSES.map(([key, label]) => (
                    <Table.Th scope="col" key={key}>
                      {label}
                    </Table.Th>
                  ))}
                  <Table.Th scope="col">Items</Table.Th>
                  <Table.Th scope="col">Quantity</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {windows.map(([label, totals]) => (
                  <Table.Tr key={label}>
                    <Table.Th scope="row">{label}</Table.Th>
                    <Table.Td>{totals.orders_total.toLocaleString()}</Table.Td>
                    {STATUSES.map(([key]) => (
                      <Table.Td key={key}>{(totals.orders_by_status[key] ?? 0).toLocaleString()}</Table.Td>
                    ))}
                    <Table.Td>{totals.items_total.toLocaleString()}</Table.Td>
                    <Table.Td>{totals.quantity_total.toLocaleString()}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <div>
            <Title order={2} size="h4" mb="sm">
              Webhook health (live)
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Figure label="Active endpoints" value={data.webhooks.active_endpoints} />
              <Figure label="Disabled endpoints" value={data.webhooks.disabled_endpoints} />
              <Figure label="Failed deliveries, last 24 h" value={data.webhooks.failed_deliveries_24h} />
            </SimpleGrid>
          </div>
        </>
      )}
    </Page>
  )
}
