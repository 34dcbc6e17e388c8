import { Anchor, Group, Loader, Table } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable, useStacked } from '../../../../components/data-table.tsx'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { formatNumber } from '../../../../lib/format.ts'
import { MonthPicker, recentMonths } from '../../components/month-picker.tsx'
import { type PlatformUsage, usageCsvUrl, usePlatformUsage } from '../api/platform-usage.ts'
import { productsText } from '../components/products-cell.tsx'

/** The operator console's Billing page: every organization's usage in a month, its totals and the CSV. */
export function BillingRoute() {
  const [month, setMonth] = useState(() => recentMonths()[0]!)
  const usage = usePlatformUsage(month)
  const data = usage.data
  return (
    <Page
      title="Billing"
      lead="Usage counted for billing: live orders (API and shop orders) by the UTC month they were created in, with their item lines and quantity. Test orders are never counted; a cancelled order stays counted in its month."
    >
      <Group align="end">
        <MonthPicker value={month} onChange={setMonth} />
        <Anchor href={usageCsvUrl(month)} download={`usage-${month}.csv`}>
          Download CSV
        </Anchor>
      </Group>
      <ErrorAlert error={usage.error} />
      {!data ? (
        <Loader aria-label="Loading the usage" />
      ) : (
        <DataTable
          label={`Usage per organization in ${data.month}`}
          caption
          columns={['Organization', 'Orders', 'Items', 'Quantity', 'Quantity by product']}
          foot={<Totals month={data.month} totals={data.totals} />}
        >
          {data.organizations.map((o) => (
            <DataRow key={o.id}>
              <DataCell label="Organization" rowHeader>
                {o.name}
              </DataCell>
              <DataCell label="Orders">{formatNumber(o.orders)}</DataCell>
              <DataCell label="Items">{formatNumber(o.items)}</DataCell>
              <DataCell label="Quantity">{formatNumber(o.quantity)}</DataCell>
              <DataCell label="Quantity by product">{productsText(o)}</DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Page>
  )
}

/** The month's totals: the table's footer, or on a phone a card of its own after the organizations. */
function Totals({ month, totals }: { month: string; totals: PlatformUsage['totals'] }) {
  const stacked = useStacked()
  const cells = (
    <>
      <DataCell label="Total" rowHeader>
        {stacked ? `Total in ${month}` : 'Total'}
      </DataCell>
      <DataCell label="Orders">{formatNumber(totals.orders)}</DataCell>
      <DataCell label="Items">{formatNumber(totals.items)}</DataCell>
      <DataCell label="Quantity">{formatNumber(totals.quantity)}</DataCell>
    </>
  )
  if (stacked) {
    return (
      <DataTable label={`Total in ${month}`} columns={['Total', 'Orders', 'Items', 'Quantity']}>
        <DataRow bg="var(--mantine-color-default-hover)">{cells}</DataRow>
      </DataTable>
    )
  }
  return (
    <Table.Tfoot>
      <Table.Tr>
        {cells}
        <Table.Td />
      </Table.Tr>
    </Table.Tfoot>
  )
}
