import { Anchor, Group } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { CopyTextButton } from '../../../../components/copy-text-button.tsx'
import { PersonalDataNote } from '../../../personal-data/components/personal-data-note.tsx'
import { OrderPage } from '../../components/order-page.tsx'
import { useOperatorOrder } from '../api/order.ts'

/**
 * /operator/orders/:orderId: any organization's order, which the operator
 * changes and cancels even once production has started (audited as the operator).
 * The organization is named by its name; its id is there to copy.
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
      whose={(order) => `of ${order.organization.name}`}
      extra={(order) => (
        <Group gap="sm">
          <Anchor component={Link} to={`/operator/organizations/${order.organization.id}`} size="sm">
            {order.organization.name}
          </Anchor>
          <CopyTextButton value={order.organization.id}>Copy organization id</CopyTextButton>
          <PersonalDataNote
            erased={order.personal_data}
            href={`/operator/organizations/${order.organization.id}/personal-data?order=${order.id}`}
          />
        </Group>
      )}
      who="operator"
      canChange
      canCreateProduct={false}
    />
  )
}
