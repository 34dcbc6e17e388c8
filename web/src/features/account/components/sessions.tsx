import { Alert, Badge, Button, Group, Loader, Paper, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable, useStacked } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { useSessions, useSignOutOthers } from '../api/account.ts'

export function Sessions() {
  const sessions = useSessions()
  const signOutOthers = useSignOutOthers()
  const stacked = useStacked()
  const others = sessions.data?.filter((s) => !s.current).length ?? 0
  const [confirming, setConfirming] = useState(false)
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
          onClick={() => setConfirming(true)}
        >
          Sign out other sessions
        </Button>
      </Group>
      <ConfirmModal
        opened={confirming}
        title="Sign out your other sessions?"
        onCancel={() => setConfirming(false)}
        confirmLabel={`Sign out ${others} other session${others === 1 ? '' : 's'}`}
        busy={signOutOthers.isPending}
        onConfirm={() => signOutOthers.mutate(undefined, { onSettled: () => setConfirming(false) })}
      >
        Every other browser signed in to your account is signed out at once and must sign in again with the
        password; this one stays signed in. Nothing is sent to tell them.
      </ConfirmModal>
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
        <DataTable label="Sessions" columns={['Browser', 'Address', 'Signed in', 'Last active']}>
          {sessions.data?.map((s) => (
            <DataRow key={s.id}>
              <DataCell label="Browser">
                {/* In words when the service can read it; the header as sent on hover, or as the text when not. */}
                <Text size="sm" lineClamp={stacked ? undefined : 1} title={s.user_agent}>
                  {s.browser ?? (s.user_agent || 'Unknown')}
                </Text>{' '}
                {s.current && <Badge variant="light">This session</Badge>}
              </DataCell>
              <DataCell label="Address">{s.address}</DataCell>
              <DataCell label="Signed in">
                <Time value={s.created_at} />
              </DataCell>
              <DataCell label="Last active">
                <Time value={s.last_seen_at} />
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
    </Paper>
  )
}
