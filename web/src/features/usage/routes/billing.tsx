import { Anchor, Group, Loader, Table } from '@mantine/core'
import { useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { formatNumber } from '../../../lib/format.ts'
import { usageCsvUrl, usePlatformUsage } from '../api/usage.ts'
import { MonthPicker, recentMonths } from '../components/month-picker.tsx'
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
        <Table.ScrollContainer minWidth={720}>
          <Table striped>
            <Table.Caption>Usage per organization in {data.month}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Organization</Table.Th>
                <Table.Th scope="col">Orders</Table.Th>
                <Table.Th scope="col">Items</Table.Th>
                <Table.Th scope="col">Quantity</Table.Th>
                <Table.Th scope="col">Quantity by product</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.organizations.map((o) => (
                <Table.Tr key={o.id}>
                  <Table.Th scope="row">{o.name}</Table.Th>
                  <Table.Td>{formatNumber(o.orders)}</Table.Td>
                  <Table.Td>{formatNumber(o.items)}</Table.Td>
                  <Table.Td>{formatNumber(o.quantity)}</Table.Td>
                  <Table.Td>{productsText(o)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
            <Table.Tfoot>
              <Table.Tr>
                <Table.Th scope="row">Total</Table.Th>
                <Table.Td>{formatNumber(data.totals.orders)}</Table.Td>
                <Table.Td>{formatNumber(data.totals.items)}</Table.Td>
                <Table.Td>{formatNumber(data.totals.quantity)}</Table.Td>
                <Table.Td />
              </Table.Tr>
            </Table.Tfoot>
          </Table>
        </Table.ScrollContainer>
      )}
    </Page>
  )
}
