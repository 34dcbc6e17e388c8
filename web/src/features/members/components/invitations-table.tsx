import { Button, Table, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { ConfirmModal } from '../../../components/confirm-modal.tsx'
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
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {invitations.data.map((i) => (
              <Table.Tr key={i.id}>
                <Table.Td>{i.email}</Table.Td>
                <Table.Td>
                  <Text size="sm">{i.role}</Text>
                </Table.Td>
                <Table.Td>
                  <Time value={i.expires_at} />
                </Table.Td>
                <Table.Td>
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
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <ConfirmModal
        opened={revoking !== null}
        title="Revoke invitation"
        onCancel={() => setRevoking(null)}
        confirmLabel="Revoke invitation"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSettled: () => setRevoking(null) })}
      >
        Revoke the invitation for {revoking?.email}? Its link stops working at once; you can invite them
        again.
      </ConfirmModal>
    </section>
  )
}
