import { Anchor, Loader, Table, Text } from '@mantine/core'
import { Link } from 'react-router'
import { ErrorAlert } from '../../../components/error-alert.tsx'
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
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label={`Webhook endpoints (${env})`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>URL</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Events</Table.Th>
                <Table.Th>Health</Table.Th>
                <Table.Th>Failure streak</Table.Th>
                <Table.Th>Last success</Table.Th>
                <Table.Th>Last failure</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {endpoints.data?.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/webhooks/${e.id}?environment=${env}`}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {e.url}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{e.description}</Table.Td>
                  <Table.Td>{describeEvents(e.enabled_events)}</Table.Td>
                  <Table.Td>
                    <EndpointHealth endpoint={e} />
                  </Table.Td>
                  <Table.Td>{e.consecutive_failures}</Table.Td>
                  <Table.Td>{e.last_success_at ? <Time value={e.last_success_at} /> : 'Never'}</Table.Td>
                  <Table.Td>{e.last_failure_at ? <Time value={e.last_failure_at} /> : 'Never'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  )
}
