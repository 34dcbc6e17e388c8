import { Code } from '@mantine/core'
import { AUDIT_COLUMNS, type AuditColumn, AuditLogTable } from '../../../components/audit-log-table.tsx'
import { Page } from '../../../components/page.tsx'
import type { AuditEntry } from '../../../lib/api.ts'
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

const COLUMNS: AuditColumn<AuditEntry>[] = [
  AUDIT_COLUMNS.when,
  AUDIT_COLUMNS.who,
  {
    header: 'What',
    cell: (e) => (
      <>
        {ACTIONS[e.action] ?? e.action} <Code>{e.action}</Code>
      </>
    ),
  },
  AUDIT_COLUMNS.subject,
  AUDIT_COLUMNS.details,
  { header: 'Address', cell: (e) => e.address ?? '' },
]

export function AuditLogRoute() {
  const log = useAuditLog()
  return (
    <Page title="Audit log" lead="Who did what in your organization, newest first.">
      <AuditLogTable log={log} columns={COLUMNS} minWidth={760} />
    </Page>
  )
}
