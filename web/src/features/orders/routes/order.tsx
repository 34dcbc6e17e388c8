import { Anchor } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { useSession } from '../../auth/api/session.ts'
import { PersonalDataNote } from '../../personal-data/components/personal-data-note.tsx'
import { CreatedByRequest } from '../../requests/components/created-by-request.tsx'
import { useOrder } from '../api/order.ts'
import { OrderPage } from '../components/order-page.tsx'

/** /orders/:order_id: one order of either environment, refreshed every few seconds; owners and developers change it. */
export function OrderRoute() {
  const { order_id: orderId = '' } = useParams()
  const me = useSession().data!
  const query = useOrder(orderId)
  const member = me.role !== 'viewer'
  return (
    <OrderPage
      query={query}
      back={
        <Anchor component={Link} to="/orders">
          Back to the orders
        </Anchor>
      }
      extra={(order) => (
        <>
          <CreatedByRequest
            orderId={order.id}
            env={order.is_test ? 'test' : 'live'}
            enabled={order.source !== 'shop'}
          />
          <PersonalDataNote
            erased={order.personal_data}
            href={member ? `/personal-data?order=${order.id}` : undefined}
          />
        </>
      )}
      who="member"
      canChange={member}
      canCreateProduct={member}
    />
  )
}
