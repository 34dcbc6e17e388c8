import { type Kysely, sql } from 'kysely'

// API keys as the dashboard lists them: who created each (a member's email,
// or `operator token` for the operator API and CLI, which made every key before
// this migration), and when it was last used (written at most once a minute
// per key, so "within a minute"; null until first used).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('created_by', 'text', (c) => c.notNull().defaultTo('operator token'))
    .addColumn('last_used_at', 'timestamptz')
    .execute()
  await sql`alter table api_keys alter column created_by drop default`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('created_by').dropColumn('last_used_at').execute()
}
