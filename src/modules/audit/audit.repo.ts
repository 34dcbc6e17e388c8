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

/** Newest first; `before` is the id of the last entry of the previous page. */
export async function listAuditEntries(
  db: Database,
  organizationId: string,
  options: { before: string | undefined; limit: number },
) {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
  if (options.before) query = query.where('id', '<', options.before)
  return query.execute()
}

/** What operators did, newest first (the partial index audit_log_operator_idx). */
export async function listOperatorAuditEntries(
  db: Database,
  options: { before: string | undefined; limit: number },
) {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where('by_operator', '=', true)
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
  if (options.before) query = query.where('id', '<', options.before)
  return query.execute()
}

/** The entries about one subject (an order) with these actions, oldest first (audit_log_order_history_idx). */
export async function listSubjectEntries(
  db: Database,
  filter: { organizationId: string; subject: string; actions: string[] },
) {
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where('subject', '=', filter.subject)
    .where('action', 'in', filter.actions)
    .where('organization_id', '=', filter.organizationId)
    .orderBy('id', 'asc')
    .limit(500)
    .execute()
}
