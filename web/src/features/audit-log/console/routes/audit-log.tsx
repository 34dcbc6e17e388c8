import { Page } from '../../../../components/page.tsx'
import type { OperatorAuditPage } from '../../../../lib/api.ts'
import { useOrganizations } from '../../../organizations/console/api/organizations.ts'
import { AuditFilters, toFilter, useAuditFilterParams } from '../../components/audit-filters.tsx'
import { AUDIT_COLUMNS, type AuditColumn, AuditLogTable, ShortId } from '../../components/audit-log-table.tsx'
import { usePlatformAuditLog } from '../api/platform-audit-log.ts'

/** The platform-wide log: what operators (accounts and the operator token) did, newest first. */
export function PlatformAuditLogRoute() {
  const [applied, apply] = useAuditFilterParams()
  const log = usePlatformAuditLog(toFilter(applied))
  const organizations = useOrganizations()
  const names = new Map(organizations.data?.map((o) => [o.id, o.name]))
  const columns: AuditColumn<OperatorAuditPage['data'][number]>[] = [
    AUDIT_COLUMNS.when,
    AUDIT_COLUMNS.what,
    {
      header: 'Organization',
      cell: (e) => {
        if (!e.organization_id) return 'Platform'
        const name = names.get(e.organization_id)
        return name ?? <ShortId id={e.organization_id} what="organization id" />
      },
    },
    AUDIT_COLUMNS.subject,
  ]
  return (
    <Page
      title="Audit log (platform)"
      lead="What operators did, by account (their email) or with the operator token, across organizations, newest first."
    >
      <AuditFilters
        key={JSON.stringify(applied)}
        applied={applied}
        onChange={apply}
        csvPath="/operator/audit-log.csv"
        csvName="platform-audit-log.csv"
      />
      <AuditLogTable log={log} columns={columns} caption="Operators' actions, newest first" />
    </Page>
  )
}
