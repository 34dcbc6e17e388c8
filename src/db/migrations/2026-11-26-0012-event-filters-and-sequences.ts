import { type Kysely, sql } from 'kysely'

// Each endpoint receives the event types it lists in enabled_events, or every
// type with '*'; existing endpoints keep receiving everything.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('enabled_events', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{*}'::text[]`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('enabled_events').execute()
}
