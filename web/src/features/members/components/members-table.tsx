import { Badge, Button, Group, Loader, Select, Text } from '@mantine/core'
import { ConfirmModal, useConfirmRow } from '../../../components/confirm-modal.tsx'
import { DataCell, DataRow, DataTable } from '../../../components/data-table.tsx'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Member } from '../../../lib/api.ts'
import {
  ROLES,
  type Role,
  useChangeRole,
  useIssuePasswordReset,
  useMembers,
  useRemoveMember,
} from '../api/members.ts'
import { usePasswordResetAction } from './password-reset.tsx'

export function MembersTable({ me, canManage }: { me: Member; canManage: boolean }) {
  const members = useMembers()
  const changeRole = useChangeRole()
  const remove = useRemoveMember()
  const confirm = useConfirmRow<Member>(remove)
  const reset = usePasswordResetAction<Member>(useIssuePasswordReset())

  if (members.isPending) return <Loader aria-label="Loading members" />
  const owners = members.data?.filter((m) => m.role === 'owner').length ?? 0
  // The API refuses to remove the last owner (the organization would have no one to manage it).
  const removable = (m: Member) => !(m.role === 'owner' && owners <= 1)
  return (
    <>
      <ErrorAlert error={members.error ?? changeRole.error ?? remove.error} />
      <DataTable
        label="Members"
        columns={['Email', 'Role', 'Member since', ...(canManage ? ['Actions'] : [])]}
      >
        {members.data?.map((m) => (
          <DataRow key={m.id}>
            <DataCell label="Email" title>
              {m.email} {m.id === me.id && <Badge variant="light">You</Badge>}
            </DataCell>
            <DataCell label="Role">
              {canManage ? (
                <Select
                  aria-label={`Role of ${m.email}`}
                  data={ROLES}
                  value={m.role}
                  allowDeselect={false}
                  onChange={(v) => v && v !== m.role && changeRole.mutate({ id: m.id, role: v as Role })}
                  w={150}
                />
              ) : (
                m.role
              )}
            </DataCell>
            <DataCell label="Member since">
              <Time value={m.created_at} />
            </DataCell>
            {canManage && (
              <DataCell label="Actions" hideLabel>
                <Group gap="xs" wrap="wrap">
                  {m.id !== me.id && (
                    <Button
                      variant="subtle"
                      aria-label={`Reset password of ${m.email}`}
                      onClick={() => reset.ask(m)}
                    >
                      Reset password
                    </Button>
                  )}
                  {removable(m) ? (
                    <Button
                      variant="subtle"
                      color="red"
                      aria-label={`Remove ${m.email}`}
                      onClick={() => confirm.ask(m)}
                    >
                      Remove
                    </Button>
                  ) : (
                    <Text size="sm" c="dimmed" component="span">
                      Only owner
                    </Text>
                  )}
                </Group>
              </DataCell>
            )}
          </DataRow>
        ))}
      </DataTable>
      {reset.shown}
      {reset.modal}
      <ConfirmModal {...confirm.modal} title="Remove member" confirmLabel="Remove member">
        Remove {confirm.row?.email}? Their account ends now and every session of it with it: they are signed
        out at once, and no message is sent to them. The removal is in the audit log; they can be invited
        again.
      </ConfirmModal>
    </>
  )
}
