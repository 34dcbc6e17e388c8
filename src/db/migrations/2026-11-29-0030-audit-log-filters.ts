import { type Kysely, sql } from 'kysely'

/**
 * The audit logs filter by action and by actor, newest first: one index each,
 * so a filter that matches few entries does not walk the organization's whole
 * log. The platform log (by_operator) is small and keeps its partial index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index audit_log_action_idx on audit_log (organization_id, action, id desc)`.execute(db)
  await sql`create index audit_log_actor_idx on audit_log (organization_id, actor, id desc)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index audit_log_actor_idx`.execute(db)
  await sql`drop index audit_log_action_idx`.execute(db)
}
