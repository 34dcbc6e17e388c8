import { BarChart, LineChart } from '@mantine/charts'
import { Card, Table, Text, Title, VisuallyHidden } from '@mantine/core'
import { useId } from 'react'
import type { Answer } from '../lib/api.ts'
import { ORDER_STATUSES, type OrderStatus } from './order-statuses.ts'

type OrdersPerDay = Answer<'/home'>['data']['live_orders_per_day']
type DeliveriesPerDay = Answer<'/home'>['data']['webhooks']['deliveries_per_day']

const STATUS_COLORS: Record<OrderStatus, string> = {
  pending: 'gray.6',
  in_production: 'indigo.6',
  completed: 'teal.7',
  failed: 'red.7',
  cancelled: 'orange.6',
}
const STATUS_SERIES = ORDER_STATUSES.map(([name, label]) => ({ name, label, color: STATUS_COLORS[name] }))

/** "11-22" for 2026-11-22: the axis has 30 ticks, the table the full date. */
const shortDay = (day: string) => day.slice(5)

/**
 * A chart with its title; the chart itself is one labelled image for
 * assistive technology, and the same numbers follow as a table that only
 * screen readers reach.
 */
function ChartCard(props: {
  title: string
  summary: string
  chart: React.ReactNode
  table: React.ReactNode
}) {
  const titleId = useId()
  return (
    <Card withBorder padding="md" component="section" aria-labelledby={titleId}>
      <Title order={2} size="h4" id={titleId} mb={4}>
        {props.title}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {props.summary}
      </Text>
      <div role="img" aria-label={`${props.title}: ${props.summary}`}>
        {props.chart}
      </div>
      <VisuallyHidden>{props.table}</VisuallyHidden>
    </Card>
  )
}

/** A chart's numbers as a table: a row per day (its full date heading the row), `cells` its columns. */
function DayTable<D extends { day: string }>({
  caption,
  columns,
  days,
  cells,
}: {
  caption: string
  columns: string[]
  days: D[]
  cells: (day: D) => React.ReactNode[]
}) {
  return (
    <Table>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Day</Table.Th>
          {columns.map((c) => (
            <Table.Th scope="col" key={c}>
              {c}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {days.map((d) => (
          <Table.Tr key={d.day}>
            <Table.Th scope="row">{d.day}</Table.Th>
            {cells(d).map((cell, n) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells are its columns, in their order.
              <Table.Td key={n}>{cell}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}

/** Live orders created on each of the last 30 UTC days, stacked by the status they are in now. */
export function OrdersPerDayChart({ days }: { days: OrdersPerDay }) {
  const total = days.reduce((sum, d) => sum + d.orders_total, 0)
  const data = days.map((d) => ({ day: shortDay(d.day), ...d.orders_by_status }))
  return (
    <ChartCard
      title="Live orders per day, last 30 days"
      summary={`${total.toLocaleString()} orders; each day's bar by the status its orders are in now (UTC days).`}
      chart={
        <BarChart
          h={240}
          data={data}
          dataKey="day"
          type="stacked"
          series={STATUS_SERIES}
          withLegend
          legendProps={{ verticalAlign: 'bottom' }}
          tickLine="y"
          barChartProps={{ accessibilityLayer: false }}
        />
      }
      table={
        <DayTable
          caption="Live orders per day by current status"
          columns={['Orders', ...STATUS_SERIES.map((s) => s.label)]}
          days={days}
          cells={(d) => [d.orders_total, ...STATUS_SERIES.map((s) => d.orders_by_status[s.name] ?? 0)]}
        />
      }
    />
  )
}

/** Of a day's settled deliveries, the share delivered (null when none settled yet). */
const rate = (d: DeliveriesPerDay[number]) =>
  d.succeeded + d.failed === 0 ? null : Math.round((1000 * d.succeeded) / (d.succeeded + d.failed)) / 10

/**
 * The deliveries settled over all the days: delivered, and failed (given up).
 * Home's failed figure and the chart's success rate both come from here, so
 * they count the same deliveries over the same days.
 */
export function settledTotals(days: DeliveriesPerDay) {
  const succeeded = days.reduce((sum, d) => sum + d.succeeded, 0)
  const failed = days.reduce((sum, d) => sum + d.failed, 0)
  return { succeeded, failed, settled: succeeded + failed }
}

/** The share of each day's settled live webhook deliveries that succeeded. */
export function DeliverySuccessChart({ days }: { days: DeliveriesPerDay }) {
  const { succeeded, failed, settled } = settledTotals(days)
  const overall =
    settled === 0
      ? 'no deliveries settled yet'
      : `${Math.round((1000 * succeeded) / settled) / 10}% of ${settled.toLocaleString()} settled deliveries succeeded, ${failed.toLocaleString()} failed`
  const data = days.map((d) => ({ day: shortDay(d.day), success: rate(d) }))
  return (
    <ChartCard
      title="Webhook success rate per day, last 30 days"
      summary={`Live deliveries by the UTC day they settled (delivered, or given up after the last retry; those still retrying count once they settle): ${overall}. Days without settled deliveries have no point.`}
      chart={
        <LineChart
          h={200}
          data={data}
          dataKey="day"
          series={[{ name: 'success', label: 'Succeeded', color: 'teal.7' }]}
          unit="%"
          yAxisProps={{ domain: [0, 100] }}
          connectNulls={false}
          tickLine="y"
          lineChartProps={{ accessibilityLayer: false }}
        />
      }
      table={
        <DayTable
          caption="Live webhook deliveries per day"
          columns={['Succeeded', 'Failed', 'Success rate']}
          days={days}
          cells={(d) => [d.succeeded, d.failed, rate(d) === null ? 'none settled' : `${rate(d)}%`]}
        />
      }
    />
  )
}
