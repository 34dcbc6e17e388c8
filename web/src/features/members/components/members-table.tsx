import { Badge, Button, Group, Loader, Modal, Select, Table, Text } from '@mantine/core'
import { useState } from 'react'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { Time } from '../../../components/time.tsx'
import type { Member } from '../../../lib/api.ts'
import { ROLES, type Role, useChangeRole, useMembers, useRemoveMember } from '../api/members.ts'

export function MembersTable({ me, canManage }: { me: Member; canManage: boolean }) {
  const members = useMembers()
  const changeRole = useChangeRole()
  const remove = useRemoveMember()
  const [removing, setRemoving] = useState<Member | null>(null)

  if (members.isPending) return <Loader aria-label="Loading members" />
  const owners = members.data?.filter((m) => m.role === 'owner').length ?? 0
  // The API refuses to remove the last owner (the organization would have no one to manage it).
  const removable = (m: Member) => !(m.role === 'owner' && owners <= 1)
  return (
    <>
      <ErrorAlert error={members.error ?? changeRole.error ?? remove.error} />
      <Table.ScrollContainer minWidth={560}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Member since</Table.Th>
              {canManage && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data?.map((m) => (
              <Table.Tr key={m.id}>
                <Table.Td>
                  {m.email} {m.id === me.id && <Badge variant="light">You</Badge>}
                </Table.Td>
                <Table.Td>
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
                    <Text size="sm">{m.role}</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Time value={m.created_at} />
                </Table.Td>
                {canManage && (
                  <Table.Td>
                    {removable(m) ? (
                      <Button
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${m.email}`}
                        onClick={() => setRemoving(m)}
                      >
                        Remove
                      </Button>
                    ) : (
                      <Text size="sm" c="dimmed">
                        Only owner
                      </Text>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={removing !== null}
        onClose={() => setRemoving(null)}
        title="Remove member"
      >
        <Text mb="md">
          Remove {removing?.email}? Their account and every session of it end now. They can be invited again.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setRemoving(null)}>
            Cancel
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => removing && remove.mutate(removing.id, { onSettled: () => setRemoving(null) })}
          >
            Remove member
          </Button>
        </Group>
      </Modal>
    </>
  )
}
