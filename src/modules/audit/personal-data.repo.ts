import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'

/** The organization's audit entries about the orders (changes, cancels, production), oldest first. */
export async function auditEntriesOf(db: Database, organizationId: string, orderIds: string[]) {
  if (orderIds.length === 0) return []
  return db
    .selectFrom('audit_log')
    .select(['id', 'action', 'actor', 'subject', 'details', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('subject', 'in', orderIds)
    .orderBy('id')
    .execute()
}

/** Entries' details rewritten (an erasure's: without the customer); who did what, and when, stays. */
export async function setAuditDetails(trx: Database, entries: { id: string; details: unknown }[]) {
  if (entries.length === 0) return
  await sql`
    update audit_log a set details = v.details::jsonb
    from unnest(${entries.map((e) => e.id)}::uuid[], ${entries.map((e) => JSON.stringify(e.details))}::text[])
      as v(id, details)
    where a.id = v.id`.execute(trx)
}
