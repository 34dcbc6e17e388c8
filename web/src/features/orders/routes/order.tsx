import { Anchor } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { RecordPage } from '../../../components/record-page.tsx'
import { exactTime } from '../../../lib/format.ts'
import { useSession } from '../../auth/api/session.ts'
import { CreatedByRequest } from '../../requests/components/created-by-request.tsx'
import { useOrder } from '../api/order.ts'
import { OrderDetails } from '../components/order-details.tsx'

/** /orders/:order_id: one order of either environment, refreshed every few seconds; owners and developers change it. */
export function OrderRoute() {
  const { order_id: orderId = '' } = useParams()
  const me = useSession().data!
  const query = useOrder(orderId)
  const member = me.role !== 'viewer'
  const back = (
    <Anchor component={Link} to="/orders">
      Back to the orders
    </Anchor>
  )
  return (
    <RecordPage title="Order" what="the order" query={query} back={back}>
      {(order) => (
        <Page
          title={`Order ${order.external_order_id}`}
          lead={`${order.is_test ? 'Test' : 'Live'} order, received ${exactTime(order.created_at)}`}
        >
          <ErrorAlert error={query.error} title="The order could not be refreshed" />
          <CreatedByRequest
            orderId={order.id}
            env={order.is_test ? 'test' : 'live'}
            enabled={order.source !== 'shop'}
          />
          <OrderDetails order={order} who="member" canChange={member} canCreateProduct={member} />
        </Page>
      )}
    </RecordPage>
  )
}
