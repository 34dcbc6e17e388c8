import { Page } from '../../../components/page.tsx'
import { useAccount } from '../../auth/api/session.ts'
import { ChangePassword } from '../components/change-password.tsx'
import { Sessions } from '../components/sessions.tsx'

export function AccountRoute() {
  const account = useAccount().data
  const { member, operator } = account ?? {}
  const lead = member
    ? `${member.email} · ${member.role} of ${member.organization.name}`
    : operator
      ? `${operator.email} · operator of the platform`
      : undefined
  return (
    <Page title="Account" lead={lead}>
      <ChangePassword />
      <Sessions />
    </Page>
  )
}
