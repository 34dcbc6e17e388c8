import { Button, Title } from '@mantine/core'
import { useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Invitation } from '../../../lib/api.ts'
import { useInvitations, useRevokeInvitation } from '../api/members.ts'

/** Invitations not yet accepted, revoked or expired; an owner revokes one after confirming. */
export function PendingInvitations() {
  const invitations = useInvitations(true)
  const revoke = useRevokeInvitation()
  const [revoking, setRevoking] = useState<Invitation | null>(null)
  if (!invitations.data?.length && !revoke.error) return null
  return (
    <section aria-labelledby="pending-heading">
      <Title order={2} size="h3" id="pending-heading" mb="sm">
        Pending invitations
      </Title>
      <ErrorAlert error={revoke.error} title="The invitation was not revoked" />
      {!!invitations.data?.length && (
        <DataTable label="Pending invitations" columns={['Email', 'Role', 'Expires', 'Actions']}>
          {invitations.data.map((i) => (
            <DataRow key={i.id}>
              <DataCell label="Email" title>
                {i.email}
              </DataCell>
              <DataCell label="Role">{i.role}</DataCell>
              <DataCell label="Expires">
                <Time value={i.expires_at} />
              </DataCell>
              <DataCell label="Actions" hideLabel>
                <Button
                  variant="subtle"
                  color="red"
                  aria-label={`Revoke the invitation for ${i.email}`}
                  onClick={() => {
                    revoke.reset()
                    setRevoking(i)
                  }}
                >
                  Revoke
                </Button>
              </DataCell>
            </DataRow>
          ))}
        </DataTable>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke invitation"
        onCancel={() => setRevoking(null)}
        confirmLabel="Revoke invitation"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      >
        Revoke the invitation for {revoking?.email}? Its link stops working at once. No message is sent to
        them: whoever opens the link is told it no longer works. You can invite them again.
      </ConfirmModal>
    </section>
  )
}
