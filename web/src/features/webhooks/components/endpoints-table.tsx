import { Anchor, Loader, Text } from '@mantine/core'
import { Link } from 'react-router'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextProbe } from '../../../components/next-attempt.tsx'
import { Time } from '../../../components/time.tsx'
import { type Env, useEndpoints } from '../api/webhooks.ts'
import { EndpointHealth } from './endpoint-health.tsx'
import { describeEvents } from './events-picker.tsx'

export function EndpointsTable({ env }: { env: Env }) {
  const endpoints = useEndpoints(env)
  if (endpoints.isPending) return <Loader aria-label="Loading endpoints" />
  return (
    <>
      <ErrorAlert error={endpoints.error} />
      {endpoints.data?.length === 0 ? (
        <Text c="dimmed">No {env} endpoints yet.</Text>
      ) : (
        <DataTable
          label={`Webhook endpoints (${env})`}
          columns={[
            'URL',
            'Description',
            'Events',
            'Health',
            'Failure streak',
            'Last success',
            'Last failure',
          ]}
        >
          {endpoints.data?.map((e) => (
            <DataRow key={e.id}>
              <DataCell label="URL" title>
                <Anchor
                  component={Link}
                  to={`/webhooks/${e.id}?environment=${env}`}
                  style={{ wordBreak: 'break-all' }}
                >
                  {e.url}
                </Anchor>
              </DataCell>
              <DataCell label="Description">{e.description}</DataCell>
              <DataCell label="Events">{describeEvents(e.enabled_events)}</DataCell>
              <DataCell label="Health">
                <EndpointHealth endpoint={e} />
                {e.next_probe_at && (
                  <Text size="xs" component="span" display="block">
                    Failing: deliveries wait for the next probe, <NextProbe at={e.next_probe_at} />
                  </Text>
                )}
              </DataCell>
              <DataCell label="Failure streak">{e.consecutive_failures}</DataCell>
              <DataCell label="Last success">
                {e.last_success_at ? <Time value={e.last_success_at} /> : 'Never'}
              </DataCell>
              <DataCell label="Last failure">
                {e.last_failure_at ? <Time value={e.last_failure_at} /> : 'Never'}
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </>
  )
}
