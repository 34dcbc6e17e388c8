import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { PendingInvitations } from '../components/invitations-table.tsx'
import { InviteForm } from '../components/invite-form.tsx'
import { MembersTable } from '../components/members-table.tsx'

export function MembersRoute() {
  const me = useSession().data!
  const owner = me.role === 'owner'
  return (
    <Page
      title="Members"
      lead={
        owner
          ? 'Invite people, change their roles or remove them.'
          : 'The people of your organization. Only owners change members.'
      }
    >
      <MembersTable me={me} canManage={owner} />
      {owner && <InviteForm />}
      {owner && <PendingInvitations />}
    </Page>
  )
}
