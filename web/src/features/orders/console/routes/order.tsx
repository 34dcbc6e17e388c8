import { Anchor } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { ErrorAlert } from '../../../../components/error-alert.tsx'
import { Page } from '../../../../components/page.tsx'
import { RecordPage } from '../../../../components/record-page.tsx'
import { exactTime } from '../../../../lib/format.ts'
import { OrderDetails } from '../../components/order-details.tsx'
import { useOperatorOrder } from '../api/order.ts'

/**
 * /operator/orders/:orderId: any organization's order, which the operator
 * changes and cancels even once production has started (audited as the operator).
 */
export function OperatorOrderRoute() {
  const { orderId = '' } = useParams()
  const query = useOperatorOrder(orderId)
  const back = (
    <Anchor component={Link} to="/operator/production">
      Back to the production board
    </Anchor>
  )
  return (
    <RecordPage title="Order" what="the order" query={query} back={back}>
      {(order) => (
        <Page
          title={`Order ${order.external_order_id}`}
          lead={`${order.is_test ? 'Test' : 'Live'} order of organization ${order.organization_id}, received ${exactTime(order.created_at)}`}
        >
          <ErrorAlert error={query.error} title="The order could not be refreshed" />
          <Anchor component={Link} to={`/operator/organizations/${order.organization_id}`} size="sm">
            The organization
          </Anchor>
          <OrderDetails order={order} who="operator" canChange canCreateProduct={false} />
        </Page>
      )}
    </RecordPage>
  )
}
