import { Alert, Anchor } from '@mantine/core'
import { Link } from 'react-router'
import { Time } from '../../../components/time.tsx'

/**
 * On an order's page: when its customer's personal data was erased, or the
 * way to the customer's data (to export or erase it) for those who may.
 */
export function PersonalDataNote({
  erased,
  href,
}: {
  erased: { erased_at: string | null; personalization_erased_at: string | null }
  href?: string | undefined
}) {
  if (erased.erased_at) {
    return (
      <Alert variant="default" color="gray" title="Personal data erased">
        The customer’s name, e-mail and phone were erased <Time value={erased.erased_at} />
        {erased.personalization_erased_at ? ', with the personalization and file names' : ''}. The order
        itself, its items, prices and statuses stay; its webhook events never held them.
      </Alert>
    )
  }
  if (!href) return null
  return (
    <Anchor component={Link} to={href} size="sm">
      Export or erase this customer’s data
    </Anchor>
  )
}
