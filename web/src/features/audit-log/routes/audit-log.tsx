import { Page } from '../../../components/page.tsx'
import type { AuditEntry } from '../../../lib/api.ts'
import { useAuditLog } from '../api/audit-log.ts'
import { AuditFilters, toFilter, useAuditFilterParams } from '../components/audit-filters.tsx'
import { AUDIT_COLUMNS, type AuditColumn, AuditLogTable } from '../components/audit-log-table.tsx'

const COLUMNS: AuditColumn<AuditEntry>[] = [
  AUDIT_COLUMNS.when,
  AUDIT_COLUMNS.what,
  AUDIT_COLUMNS.subject,
  { header: 'Address', cell: (e) => e.address ?? '', style: { whiteSpace: 'nowrap' } },
]

export function AuditLogRoute() {
  const [applied, apply] = useAuditFilterParams()
  const log = useAuditLog(toFilter(applied))
  return (
    <Page title="Audit log" lead="Who did what in your organization, newest first.">
      <AuditFilters
        key={JSON.stringify(applied)}
        applied={applied}
        onChange={apply}
        csvPath="/audit-log.csv"
        csvName="audit-log.csv"
      />
      <AuditLogTable log={log} columns={COLUMNS} caption="Your organization's audit log, newest first" />
    </Page>
  )
}
