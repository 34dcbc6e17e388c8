import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { CreateKeyForm } from '../components/create-key-form.tsx'
import { KeysTable } from '../components/keys-table.tsx'

export function ApiKeysRoute() {
  const me = useSession().data!
  const canManage = me.role !== 'viewer'
  return (
    <Page
      title="API keys"
      lead={
        canManage
          ? 'Keys for the API (/v1). A new key is shown once; "last used" is at most a minute behind.'
          : 'Keys for the API (/v1). Developers and owners create and revoke keys.'
      }
    >
      {canManage && <CreateKeyForm />}
      <KeysTable canManage={canManage} />
    </Page>
  )
}
