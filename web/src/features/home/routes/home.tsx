import { Loader, SimpleGrid, Table, Title } from '@mantine/core'
import type { OrderTotals } from '../../../../../src/modules/dashboard/home.schemas.ts'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Figure, TotalsHead, TotalsRow } from '../../../components/order-totals.tsx'
import { Page } from '../../../components/page.tsx'
import { useHome } from '../api/home.ts'

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
              <TotalsHead first="Period" />
              <Table.Tbody>
                {windows.map(([label, totals]) => (
                  <TotalsRow key={label} label={label} totals={totals} />
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
