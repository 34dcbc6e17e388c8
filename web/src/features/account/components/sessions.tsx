import { Alert, Badge, Button, Group, Loader, Paper, Table, Text, Title } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { useSessions, useSignOutOthers } from '../api/account.ts'

export function Sessions() {
  const sessions = useSessions()
  const signOutOthers = useSignOutOthers()
  const others = sessions.data?.filter((s) => !s.current).length ?? 0
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="sessions-heading">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h3" id="sessions-heading">
          Sessions
        </Title>
        <Button
          variant="light"
          color="red"
          disabled={others === 0}
          loading={signOutOthers.isPending}
          onClick={() => signOutOthers.mutate()}
        >
          Sign out other sessions
        </Button>
      </Group>
      <ErrorAlert error={sessions.error ?? signOutOthers.error} />
      {signOutOthers.isSuccess && (
        <Alert color="green" variant="default" role="status" mb="sm">
          {signOutOthers.data.sessions_ended} other session
          {signOutOthers.data.sessions_ended === 1 ? '' : 's'} signed out.
        </Alert>
      )}
      {sessions.isPending ? (
        <Loader aria-label="Loading sessions" />
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Browser</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Signed in</Table.Th>
                <Table.Th>Last active</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sessions.data?.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>
                    <Text size="sm" lineClamp={1} title={s.user_agent}>
                      {s.user_agent || 'Unknown'}
                    </Text>{' '}
                    {s.current && <Badge variant="light">This session</Badge>}
                  </Table.Td>
                  <Table.Td>{s.address}</Table.Td>
                  <Table.Td>
                    <Time value={s.created_at} />
                  </Table.Td>
                  <Table.Td>
                    <Time value={s.last_seen_at} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  )
}
