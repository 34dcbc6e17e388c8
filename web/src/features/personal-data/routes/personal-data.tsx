import { useSearchParams } from 'react-router'
import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { CustomerData } from '../components/customer-data.tsx'
import { RetentionForm } from '../components/retention-form.tsx'

/**
 * Personal data (developers and owners): a customer's data found, exported
 * (an access request) or, by owners, erased (an erasure request); and, for
 * owners, how long each kind of data is kept. `?order=` picks orders (the
 * order page links here).
 */
export function PersonalDataRoute() {
  const me = useSession().data!
  const owner = me.role === 'owner'
  const [params] = useSearchParams()
  return (
    <Page
      title="Personal data"
      lead={
        owner
          ? 'Find a customer to export what is stored about them or to erase it. The orders stay; who they were for goes.'
          : 'Find a customer to export what is stored about them. Owners can erase it.'
      }
    >
      <CustomerData
        scope={{}}
        canErase={owner}
        pickedOrders={params.getAll('order')}
        orderHref={(id) => `/orders/${id}`}
      />
      {owner && <RetentionForm scope={{}} />}
    </Page>
  )
}
