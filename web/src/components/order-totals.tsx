import { Card, Table, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import type { Answer } from '../lib/api.ts'
import { formatNumber } from '../lib/format.ts'
import { DataCell, DataRow, DataTable } from './data-table.tsx'
import { ORDER_STATUSES } from './order-statuses.ts'

type OrderTotals = Answer<'/home'>['data']['live_orders']['all_time']

/**
 * One figure in a card: a label and a number ("1,000+" with `more`: counting
 * stopped there); with `to`, the card links to the list it counts.
 */
export function Figure({
  label,
  value,
  to,
  more = false,
}: {
  label: string
  value: number
  to?: string | undefined
  more?: boolean
}) {
  const body = (
    <>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700}>
        {formatNumber(value)}
        {more && '+'}
      </Text>
    </>
  )
  if (to === undefined) {
    return (
      <Card withBorder padding="md">
        {body}
      </Card>
    )
  }
  return (
    <Card withBorder padding="md" component={Link} to={to}>
      {body}
    </Card>
  )
}

/** The head of a totals table: what its rows are, orders, each status, items and quantity. */
export function TotalsHead({ first }: { first: string }) {
  return (
    <Table.Thead>
      <Table.Tr>
        <Table.Th scope="col">{first}</Table.Th>
        <Table.Th scope="col">Orders</Table.Th>
        {ORDER_STATUSES.map(([key, label]) => (
          <Table.Th scope="col" key={key}>
            {label}
          </Table.Th>
        ))}
        <Table.Th scope="col">Items</Table.Th>
        <Table.Th scope="col">Quantity</Table.Th>
      </Table.Tr>
    </Table.Thead>
  )
}

/**
 * A totals table with its caption: `first` names what its rows are (a period,
 * an organization); on a phone a card per row.
 */
export function TotalsTable({
  caption,
  first,
  children,
}: {
  caption: string
  first: string
  children: ReactNode
}) {
  return (
    <DataTable
      label={caption}
      caption
      cardColumns={2}
      columns={[first, 'Orders', ...ORDER_STATUSES.map(([, label]) => label), 'Items', 'Quantity']}
    >
      {children}
    </DataTable>
  )
}

/** One row of a totals table (TotalsTable, or a table under TotalsHead). */
export function TotalsRow({
  label,
  totals,
  first = 'Period',
}: {
  label: string
  totals: OrderTotals
  /** The table's first column: what its rows are. */
  first?: string
}) {
  return (
    <DataRow>
      <DataCell label={first} rowHeader>
        {label}
      </DataCell>
      <DataCell label="Orders">{formatNumber(totals.orders_total)}</DataCell>
      {ORDER_STATUSES.map(([key, name]) => (
        <DataCell key={key} label={name}>
          {formatNumber(totals.orders_by_status[key] ?? 0)}
        </DataCell>
      ))}
      <DataCell label="Items">{formatNumber(totals.items_total)}</DataCell>
      <DataCell label="Quantity">{formatNumber(totals.quantity_total)}</DataCell>
    </DataRow>
  )
}

/** Live orders counted over the windows both statistics pages show. */
type Windows = Record<'today' | 'last_7_days' | 'last_30_days' | 'all_time', OrderTotals>

/** The first three figures: live orders today (`today` is the UTC date), in the last 7 and 30 days. */
export function WindowFigures({
  today,
  windows,
  ordersLink,
}: {
  today: string
  windows: Windows
  /** The Orders list filtered to the live orders created since the given UTC day (the member's dashboard). */
  ordersLink?: (from: string) => string
}) {
  const back = (days: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)
  return (
    <>
      <Figure
        label={`Live orders today (${today}, UTC)`}
        value={windows.today.orders_total}
        to={ordersLink?.(today)}
      />
      <Figure
        label="Live orders, last 7 days"
        value={windows.last_7_days.orders_total}
        to={ordersLink?.(back(6))}
      />
      <Figure
        label="Live orders, last 30 days"
        value={windows.last_30_days.orders_total}
        to={ordersLink?.(back(29))}
      />
    </>
  )
}

/** A totals table's rows for today, the last 7 and 30 days, and all time. */
export function WindowRows({ windows }: { windows: Windows }) {
  return (
    <>
      <TotalsRow label="Today" totals={windows.today} />
      <TotalsRow label="Last 7 days" totals={windows.last_7_days} />
      <TotalsRow label="Last 30 days" totals={windows.last_30_days} />
      <TotalsRow label="All time" totals={windows.all_time} />
    </>
  )
}
