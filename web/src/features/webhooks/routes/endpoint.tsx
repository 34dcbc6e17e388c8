import { Anchor, Code, Group, Loader, SimpleGrid, Text } from '@mantine/core'
import { Link, useParams } from 'react-router'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Page } from '../../../components/page.tsx'
import { Time } from '../../../components/time.tsx'
import { useSession } from '../../auth/api/session.ts'
import { useEndpoint, useEnvironment } from '../api/webhooks.ts'
import { DeliveryLog } from '../components/delivery-log.tsx'
import { EndpointHealth } from '../components/endpoint-health.tsx'
import { EndpointProbe } from '../components/endpoint-probe.tsx'
import { EndpointActions, EndpointDangerZone, EndpointSettings } from '../components/endpoint-settings.tsx'
import { describeEvents } from '../components/events-picker.tsx'
import { ReplayForm } from '../components/replay-form.tsx'

export function EndpointRoute() {
  const { endpointId = '' } = useParams()
  const [env] = useEnvironment()
  const me = useSession().data!
  const endpoint = useEndpoint(env, endpointId)
  const canManage = me.role !== 'viewer'
  const e = endpoint.data
  return (
    <Page title="Webhook endpoint" lead={e?.url}>
      <Anchor component={Link} to={`/webhooks?environment=${env}`}>
        All {env} endpoints
      </Anchor>
      <ErrorAlert error={endpoint.error} />
      {endpoint.isPending && <Loader aria-label="Loading the endpoint" />}
      {e && (
        <>
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <div>
              <Text size="sm" c="dimmed">
                Health
              </Text>
              <Group gap="xs">
                <EndpointHealth endpoint={e} />
                <Text size="sm">{e.consecutive_failures} failures in a row</Text>
              </Group>
            </div>
            <div>
              <Text size="sm" c="dimmed">
                Last success / failure
              </Text>
              <Text size="sm">
                {e.last_success_at ? <Time value={e.last_success_at} /> : 'Never'} /{' '}
                {e.last_failure_at ? <Time value={e.last_failure_at} /> : 'Never'}
              </Text>
            </div>
            <div>
              <Text size="sm" c="dimmed">
                Environment, events
              </Text>
              <Text size="sm">
                <Code>{env}</Code> {describeEvents(e.enabled_events)}
                {e.secret_rotation_ends_at && (
                  <>
                    {' '}
                    · old secret signs until <Time value={e.secret_rotation_ends_at} />
                  </>
                )}
              </Text>
            </div>
          </SimpleGrid>
          <EndpointProbe env={env} endpoint={e} canManage={canManage} />
          {canManage && e.is_active && (
            <>
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <EndpointSettings key={e.id} env={env} endpoint={e} />
                <EndpointActions env={env} endpoint={e} />
              </SimpleGrid>
              <ReplayForm env={env} endpointId={e.id} />
            </>
          )}
          <DeliveryLog env={env} endpointId={e.id} canManage={canManage && e.is_active} />
          {canManage && e.is_active && <EndpointDangerZone env={env} endpoint={e} />}
        </>
      )}
    </Page>
  )
}
