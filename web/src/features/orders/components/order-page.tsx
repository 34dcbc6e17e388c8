import type { ReactNode } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { RecordPage } from '../../../components/record-page.tsx'
import type { DashboardOrder } from '../../../lib/api.ts'
import { exactTime } from '../../../lib/format.ts'
import type { Editor } from '../api/order-edit.ts'
import { OrderDetails } from './order-details.tsx'

/**
 * An order's page, the member's and the operator's: loading and why it
 * cannot be shown (with `back`), then "Order <id>" led by its environment,
 * `whose` (the operator's: of which organization) and when it came, a failed
 * refresh, what the page adds (`extra`) and the order's details.
 */
export function OrderPage<O extends DashboardOrder>({
  query,
  back,
  whose,
  extra,
  who,
  canChange,
  canCreateProduct,
}: {
  query: { isPending: boolean; data: O | undefined; error: unknown }
  back: ReactNode
  whose?: (order: O) => string
  extra: (order: O) => ReactNode
  who: Editor
  canChange: boolean
  canCreateProduct: boolean
}) {
  return (
    <RecordPage title="Order" what="the order" query={query} back={back}>
      {(order) => (
        <Page
          title={`Order ${order.external_order_id}`}
          lead={`${order.is_test ? 'Test' : 'Live'} order${whose ? ` ${whose(order)}` : ''}, received ${exactTime(order.created_at)}`}
        >
          <ErrorAlert error={query.error} title="The order could not be refreshed" />
          {extra(order)}
          <OrderDetails order={order} who={who} canChange={canChange} canCreateProduct={canCreateProduct} />
        </Page>
      )}
    </RecordPage>
  )
}
