import { Anchor } from '@mantine/core'
import { Link, useParams, useSearchParams } from 'react-router'
import { Page } from '../../../components/page.tsx'
import { CustomerData } from '../components/customer-data.tsx'
import { RetentionForm } from '../components/retention-form.tsx'

/** The console's personal data of one organization: an operator finds, exports and erases as its owners do. */
export function OrganizationPersonalDataRoute() {
  const orgId = useParams().orgId!
  const [params] = useSearchParams()
  return (
    <Page
      title="Personal data"
      lead="A customer of this organization: find them to export what is stored or to erase it (the organization’s audit log and the platform’s record it)."
    >
      <Anchor component={Link} to={`/operator/organizations/${orgId}`}>
        Back to the organization
      </Anchor>
      <CustomerData
        scope={{ orgId }}
        canErase
        pickedOrders={params.getAll('order')}
        orderHref={(id) => `/operator/orders/${id}`}
      />
      <RetentionForm scope={{ orgId }} />
    </Page>
  )
}
