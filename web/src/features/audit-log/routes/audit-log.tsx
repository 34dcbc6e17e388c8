import { Code, Loader, Table, Text } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton } from '../../../components/next-page-button.tsx'
import { Page } from '../../../components/page.tsx'
import { formatTime } from '../../../lib/api.ts'
import { useAuditLog } from '../api/audit-log.ts'

const ACTIONS: Record<string, string> = {
  'member.signed_in': 'Signed in',
  'member.invited': 'Invited a member',
  'member.joined': 'Joined',
  'member.role_changed': 'Changed a role',
  'member.removed': 'Removed a member',
  'member.password_changed': 'Changed the password',
  'product.created': 'Created a product',
  'api_key.created': 'Created an API key',
  'api_key.revoked': 'Revoked an API key',
  'webhook_endpoint.created': 'Added a webhook endpoint',
  'webhook_endpoint.updated': 'Changed a webhook endpoint',
  'webhook_endpoint.deleted': 'Deleted a webhook endpoint',
  'webhook_endpoint.secret_rotated': 'Rotated a webhook secret',
  'webhook_endpoint.replayed': 'Replayed webhook events',
  'webhook_delivery.redelivered': 'Redelivered a webhook delivery',
}

const describe = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')

export function AuditLogRoute() {
  const log = useAuditLog()
  const entries = log.data?.pages.flatMap((p) => p.data) ?? []
  return (
    <Page title="Audit log" lead="Who did what in your organization, newest first.">
      <ErrorAlert error={log.error} />
      {log.isPending ? (
        <Loader aria-label="Loading the audit log" />
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Who</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Subject</Table.Th>
                <Table.Th>Details</Table.Th>
                <Table.Th>Address</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{formatTime(e.created_at)}</Table.Td>
                  <Table.Td>{e.actor}</Table.Td>
                  <Table.Td>
                    {ACTIONS[e.action] ?? e.action} <Code>{e.action}</Code>
                  </Table.Td>
                  <Table.Td>{e.subject}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{describe(e.details)}</Text>
                  </Table.Td>
                  <Table.Td>{e.address ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NextPageButton pages={log}>Show older entries</NextPageButton>
    </Page>
  )
}
