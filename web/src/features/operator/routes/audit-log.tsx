import { Code, Loader, Table, Text } from '@mantine/core'
import { ErrorAlert } from '../../../components/error-alert.tsx'
import { NextPageButton } from '../../../components/next-page-button.tsx'
import { Page } from '../../../components/page.tsx'
import { formatTime } from '../../../lib/api.ts'
import { useOrganizations, usePlatformAuditLog } from '../api/operator.ts'

const describe = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')

/** The platform-wide log: what operators (accounts and the operator token) did, newest first. */
export function PlatformAuditLogRoute() {
  const log = usePlatformAuditLog()
  const organizations = useOrganizations()
  const names = new Map(organizations.data?.map((o) => [o.id, o.name]))
  const entries = log.data?.pages.flatMap((p) => p.data) ?? []
  return (
    <Page
      title="Audit log (platform)"
      lead="What operators did, by account (their email) or with the operator token, across organizations, newest first."
    >
      <ErrorAlert error={log.error} />
      {log.isPending ? (
        <Loader aria-label="Loading the audit log" />
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped>
            <Table.Caption>Operators' actions, newest first</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">Who</Table.Th>
                <Table.Th scope="col">What</Table.Th>
                <Table.Th scope="col">Organization</Table.Th>
                <Table.Th scope="col">Subject</Table.Th>
                <Table.Th scope="col">Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{formatTime(e.created_at)}</Table.Td>
                  <Table.Td>{e.actor}</Table.Td>
                  <Table.Td>
                    <Code>{e.action}</Code>
                  </Table.Td>
                  <Table.Td>
                    {e.organization_id ? (names.get(e.organization_id) ?? e.organization_id) : 'Platform'}
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{e.subject}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{describe(e.details)}</Text>
                  </Table.Td>
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
