import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { ChangePassword } from '../components/change-password.tsx'
import { Sessions } from '../components/sessions.tsx'

export function AccountRoute() {
  const member = useSession().data
  return (
    <Page
      title="Account"
      lead={member ? `${member.email} · ${member.role} of ${member.organization.name}` : undefined}
    >
      <ChangePassword />
      <Sessions />
    </Page>
  )
}
