import { Anchor } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { OrderPage } from '../../components/order-page.tsx'
import { useOperatorOrder } from '../api/order.ts'

/**
 * /operator/orders/:orderId: any organization's order, which the operator
 * changes and cancels even once production has started (audited as the operator).
 */
export function OperatorOrderRoute() {
  const { orderId = '' } = useParams()
  const query = useOperatorOrder(orderId)
  return (
    <OrderPage
      query={query}
      back={
        <Anchor component={Link} to="/operator/production">
          Back to the production board
        </Anchor>
      }
      whose={(order) => `of organization ${order.organization_id}`}
      extra={(order) => (
        <Anchor component={Link} to={`/operator/organizations/${order.organization_id}`} size="sm">
          The organization
        </Anchor>
      )}
      who="operator"
      canChange
      canCreateProduct={false}
    />
  )
}
