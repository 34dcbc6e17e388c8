import { Loader, SimpleGrid, Table } from '@mantine/core'
import { useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Figure } from '../../../components/order-totals.tsx'
import { Page } from '../../../components/page.tsx'
import { formatNumber } from '../../../lib/format.ts'
import { useOrganizationUsage } from '../api/usage.ts'
import { MonthPicker, recentMonths } from '../components/month-picker.tsx'

/** The owners' Usage page: their organization's usage counted for billing, per month and product. */
export function UsageRoute() {
  const [month, setMonth] = useState(() => recentMonths()[0]!)
  const usage = useOrganizationUsage(month)
  const o = usage.data?.organization
  return (
    <Page
      title="Usage"
      lead="What is counted for billing: your live orders by the UTC month they were created in, with their item lines and quantity. Test orders are never counted; a cancelled order stays counted in its month."
    >
      <MonthPicker value={month} onChange={setMonth} />
      <ErrorAlert error={usage.error} />
      {!o ? (
        !usage.error && <Loader aria-label="Loading the usage" />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Figure label="Live orders" value={o.orders} />
            <Figure label="Items" value={o.items} />
            <Figure label="Quantity" value={o.quantity} />
          </SimpleGrid>
          <Table.ScrollContainer minWidth={560}>
            <Table striped>
              <Table.Caption>Usage by product in {usage.data!.month}</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Product</Table.Th>
                  <Table.Th scope="col">Orders</Table.Th>
                  <Table.Th scope="col">Items</Table.Th>
                  <Table.Th scope="col">Quantity</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {o.products.map((p) => (
                  <Table.Tr key={p.product_id}>
                    <Table.Th scope="row">{p.name ? `${p.name} (${p.sku})` : p.product_id}</Table.Th>
                    <Table.Td>{formatNumber(p.orders)}</Table.Td>
                    <Table.Td>{formatNumber(p.items)}</Table.Td>
                    <Table.Td>{formatNumber(p.quantity)}</Table.Td>
                  </Table.Tr>
                ))}
                <Table.Tr>
                  <Table.Th scope="row">Linked to no product</Table.Th>
                  <Table.Td>–</Table.Td>
                  <Table.Td>{formatNumber(o.unlinked.items)}</Table.Td>
                  <Table.Td>{formatNumber(o.unlinked.quantity)}</Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </Page>
  )
}
