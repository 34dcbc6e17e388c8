import { Loader, SimpleGrid } from '@mantine/core'
import { DeliverySuccessChart, OrdersPerDayChart } from '../../../../components/daily-charts.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import {
  Figure,
  TotalsRow,
  TotalsTable,
  WindowFigures,
  WindowRows,
} from '../../../../components/order-totals.tsx'
import { Page } from '../../../../components/page.tsx'
import { DueFigures } from '../../../production/console/components/due-figures.tsx'
import { usePlatformStats } from '../api/organizations.ts'

export function StatisticsRoute() {
  const stats = usePlatformStats()
  const data = stats.data
  return (
    <Page
      title="Statistics"
      lead="Live orders across organizations: test orders are never counted; shop orders are. Days are UTC days of creation (7 and 30 days include today); late and due today are days of the production calendar. Refreshed every 5 seconds."
    >
      <ErrorAlert error={stats.error} />
      {!data ? (
        <Loader aria-label="Loading the statistics" />
      ) : (
        <>
          <SimpleGrid cols={{ base: 2, lg: 4 }}>
            <WindowFigures today={data.today} windows={data.live_orders} />
            <Figure
              label="In production now"
              value={data.live_orders.all_time.orders_by_status.in_production ?? 0}
              to="/operator/production"
            />
            <DueFigures />
          </SimpleGrid>
          <OrdersPerDayChart days={data.live_orders_per_day} />
          <DeliverySuccessChart days={data.live_deliveries_per_day} />
          <TotalsTable caption="All organizations: live orders by status" first="Period">
            <WindowRows windows={data.live_orders} />
          </TotalsTable>
          <TotalsTable
            caption="Each organization: live orders of the last 30 days by status"
            first="Organization"
          >
            {data.organizations.map((o) => (
              <TotalsRow key={o.id} label={o.name} totals={o.live_orders.last_30_days} first="Organization" />
            ))}
          </TotalsTable>
        </>
      )}
    </Page>
  )
}
