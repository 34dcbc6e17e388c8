import { Table, Text, Title } from '@mantine/core'
import { formatTime } from '../../../lib/api.ts'
import { useInvitations } from '../api/members.ts'

export function PendingInvitations() {
  const invitations = useInvitations(true)
  if (!invitations.data?.length) return null
  return (
    <section aria-labelledby="pending-heading">
      <Title order={2} size="h3" id="pending-heading" mb="sm">
        Pending invitations
      </Title>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Email</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Expires</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {invitations.data.map((i) => (
            <Table.Tr key={i.id}>
              <Table.Td>{i.email}</Table.Td>
              <Table.Td>
                <Text size="sm">{i.role}</Text>
              </Table.Td>
              <Table.Td>{formatTime(i.expires_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </section>
  )
}
