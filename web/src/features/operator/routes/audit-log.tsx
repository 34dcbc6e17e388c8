import { Code } from '@mantine/core'
import { AUDIT_COLUMNS, type AuditColumn, AuditLogTable } from '../../../components/audit-log-table.tsx'
import { Page } from '../../../components/page.tsx'
import type { OperatorAuditPage } from '../../../lib/api.ts'
import { useOrganizations, usePlatformAuditLog } from '../api/organizations.ts'

/** The platform-wide log: what operators (accounts and the operator token) did, newest first. */
export function PlatformAuditLogRoute() {
  const log = usePlatformAuditLog()
  const organizations = useOrganizations()
  const names = new Map(organizations.data?.map((o) => [o.id, o.name]))
  const columns: AuditColumn<OperatorAuditPage['data'][number]>[] = [
    AUDIT_COLUMNS.when,
    AUDIT_COLUMNS.who,
    { header: 'What', cell: (e) => <Code>{e.action}</Code> },
    {
      header: 'Organization',
      cell: (e) => (e.organization_id ? (names.get(e.organization_id) ?? e.organization_id) : 'Platform'),
    },
    // Operators' subjects are often long ids.
    { ...AUDIT_COLUMNS.subject, style: { wordBreak: 'break-all' } },
    AUDIT_COLUMNS.details,
  ]
  return (
    <Page
      title="Audit log (platform)"
      lead="What operators did, by account (their email) or with the operator token, across organizations, newest first."
    >
      <AuditLogTable log={log} columns={columns} minWidth={900} caption="Operators' actions, newest first" />
    </Page>
  )
}
