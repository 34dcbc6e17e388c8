import { Button, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { ConfirmModal, useConfirmRow } from '../../../components/confirm-modal.tsx'
import { type Column, DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import { useInvitations, useRevokeInvitation } from '../api/members.ts'

interface PendingInvitation {
  id: string
  email: string
  expires_at: string
}

/**
 * Invitations not yet accepted, each with Revoke behind a confirmation: an
 * organization's (Members) and the platform's (Operators). `cells` draws the
 * columns between Email and Expires; `warning` says what revoking one does.
 */
export function InvitationsTable<T extends PendingInvitation>({
  label,
  columns,
  invitations,
  cells,
  revoke,
  warning,
}: {
  label: string
  columns: readonly Column[]
  invitations: T[]
  cells: (invitation: T) => ReactNode
  revoke: {
    isPending: boolean
    reset: () => void
    mutate: (id: string, options: { onSettled: () => void }) => void
  }
  warning: (email: string | undefined) => ReactNode
}) {
  const confirm = useConfirmRow<T>(revoke)
  return (
    <>
      <DataTable label={label} columns={columns}>
        {invitations.map((i) => (
          <DataRow key={i.id}>
            <DataCell label="Email" title>
              {i.email}
            </DataCell>
            {cells(i)}
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
                  confirm.ask(i)
                }}
              >
                Revoke
              </Button>
            </DataCell>
          </DataRow>
        ))}
      </DataTable>
      <ConfirmModal {...confirm.modal} title="Revoke invitation" confirmLabel="Revoke invitation">
        {warning(confirm.row?.email)}
      </ConfirmModal>
    </>
  )
}

/** The organization's pending invitations; an owner revokes one after confirming. */
export function PendingInvitations() {
  const invitations = useInvitations(true)
  const revoke = useRevokeInvitation()
  if (!invitations.data?.length && !revoke.error) return null
  return (
    <section aria-labelledby="pending-heading">
      <Title order={2} size="h3" id="pending-heading" mb="sm">
        Pending invitations
      </Title>
      <ErrorAlert error={revoke.error} title="The invitation was not revoked" />
      {!!invitations.data?.length && (
        <InvitationsTable
          label="Pending invitations"
          columns={['Email', 'Role', 'Expires', 'Actions']}
          invitations={invitations.data}
          cells={(i) => <DataCell label="Role">{i.role}</DataCell>}
          revoke={revoke}
          warning={(email) => (
            <>
              Revoke the invitation for {email}? Its link stops working at once. No message is sent to them:
              whoever opens the link is told it no longer works. You can invite them again.
            </>
          )}
        />
      )}
    </section>
  )
}
