import { Loader, SimpleGrid, Title } from '@mantine/core'
import { DeliverySuccessChart, OrdersPerDayChart, settledTotals } from '../../../components/daily-charts.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Figure, TotalsTable, WindowFigures, WindowRows } from '../../../components/order-totals.tsx'
import { Page } from '../../../components/page.tsx'
import { useHome } from '../api/home.ts'

export function HomeRoute() {
  const home = useHome()
  const data = home.data?.data
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
          <SimpleGrid cols={{ base: 2, lg: 4 }}>
            <WindowFigures
              today={data.today}
              windows={data.live_orders}
              ordersLink={(from) => `/orders?environment=live&from=${from}`}
            />
            <Figure
              label="Orders in production now"
              value={data.in_production}
              to="/orders?environment=live&status=in_production"
            />
          </SimpleGrid>
          <OrdersPerDayChart days={data.live_orders_per_day} />
          <TotalsTable caption="Live orders by status, with their item lines and quantities" first="Period">
            <WindowRows windows={data.live_orders} />
          </TotalsTable>
          <div>
            <Title order={2} size="h4" mb="sm">
              Webhook health (live)
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
              <Figure
                label="Active endpoints"
                value={data.webhooks.active_endpoints}
                to="/webhooks?environment=live"
              />
              <Figure
                label="Failing endpoints, deliveries waiting"
                value={data.webhooks.failing_endpoints}
                to="/webhooks?environment=live"
              />
              <Figure
                label="Disabled endpoints"
                value={data.webhooks.disabled_endpoints}
                to="/webhooks?environment=live"
              />
              <Figure
                label="Deliveries failed (given up), last 30 days"
                value={settledTotals(data.webhooks.deliveries_per_day).failed}
                to="/webhooks?environment=live"
              />
            </SimpleGrid>
          </div>
          <DeliverySuccessChart days={data.webhooks.deliveries_per_day} />
        </>
      )}
    </Page>
  )
}
