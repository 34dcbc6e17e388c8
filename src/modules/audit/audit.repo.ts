import type { Database } from '../../db/database.ts'
import type { AuditLogTable } from '../../db/schema.ts'

export type AuditInsert = Omit<AuditLogTable, 'details' | 'by_operator'> & {
  details: Record<string, unknown>
  by_operator: boolean
}

export async function insertAuditEntry(db: Database, entry: AuditInsert): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ ...entry, details: JSON.stringify(entry.details) })
    .execute()
}

/** What a log can be narrowed to: one actor, one action, a period (from inclusive, to exclusive). */
export interface AuditFilter {
  actor?: string | undefined
  action?: string | undefined
  from?: Date | undefined
  to?: Date | undefined
}

type Scope = { organizationId: string } | { operators: true }

/**
 * Newest first; `before` is the id of the last entry of the previous page.
 * The organization's log by audit_log_organization_idx, or by the action and
 * actor indexes when filtered; the platform log by audit_log_operator_idx.
 */
export async function listAuditEntries(
  db: Database,
  scope: Scope,
  filter: AuditFilter,
  options: { before: string | undefined; limit: number },
) {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
  query =
    'organizationId' in scope
      ? query.where('organization_id', '=', scope.organizationId)
      : query.where('by_operator', '=', true)
  if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor)
  if (filter.action !== undefined) query = query.where('action', '=', filter.action)
  if (filter.from) query = query.where('created_at', '>=', filter.from)
  if (filter.to) query = query.where('created_at', '<', filter.to)
  if (options.before) query = query.where('id', '<', options.before)
  return query.execute()
}

/** The entries about one subject (an order) with these actions, oldest first (audit_log_order_history_idx). */
export async function listSubjectEntries(
  db: Database,
  filter: { organizationId: string; subjects: string[]; actions: string[] },
) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('subject', 'in', filter.subjects)
    .where('action', 'in', filter.actions)
    .where('organization_id', '=', filter.organizationId)
    .orderBy('id', 'asc')
    .limit(500)
    .execute()
}
