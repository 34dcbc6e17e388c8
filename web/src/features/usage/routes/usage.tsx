import { Loader, SimpleGrid } from '@mantine/core'
import { useState } from 'react'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
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
          <DataTable
            label={`Usage by product in ${usage.data!.month}`}
            caption
            columns={['Product', 'Orders', 'Items', 'Quantity']}
          >
            {o.products.map((p) => (
              <DataRow key={p.product_id}>
                <DataCell label="Product" rowHeader>
                  {p.name ? `${p.name} (${p.sku})` : p.product_id}
                </DataCell>
                <DataCell label="Orders">{formatNumber(p.orders)}</DataCell>
                <DataCell label="Items">{formatNumber(p.items)}</DataCell>
                <DataCell label="Quantity">{formatNumber(p.quantity)}</DataCell>
              </DataRow>
            ))}
            <DataRow>
              <DataCell label="Product" rowHeader>
                Linked to no product
              </DataCell>
              <DataCell label="Orders">–</DataCell>
              <DataCell label="Items">{formatNumber(o.unlinked.items)}</DataCell>
              <DataCell label="Quantity">{formatNumber(o.unlinked.quantity)}</DataCell>
            </DataRow>
          </DataTable>
        </>
      )}
    </Page>
  )
}
