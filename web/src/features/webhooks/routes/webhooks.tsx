import { Page } from '../../../components/page.tsx'
import { useSession } from '../../auth/api/session.ts'
import { useEnvironment } from '../api/webhooks.ts'
import { CreateEndpointForm } from '../components/create-endpoint-form.tsx'
import { EndpointsTable } from '../components/endpoints-table.tsx'
import { EnvironmentSwitch } from '../components/environment-switch.tsx'

export function WebhooksRoute() {
  const me = useSession().data!
  const [env] = useEnvironment()
  const canManage = me.role !== 'viewer'
  return (
    <Page
      title="Webhooks"
      lead="Endpoints that receive your events, and how they are doing. Open one for its delivery log."
    >
      <EnvironmentSwitch />
      <EndpointsTable env={env} />
      {canManage && <CreateEndpointForm env={env} />}
    </Page>
  )
}
