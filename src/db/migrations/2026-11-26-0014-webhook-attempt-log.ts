import { type Kysely, sql } from 'kysely'

// The delivery log says why: each entry keeps the last attempt's error message,
// and every attempt made is a row of webhook_attempts (written by the worker in
// the statement that records its result). The indexes serve the log's filters
// on columns that never change after a delivery is written, so recording a
// result stays a HOT update. See docs/decisions/2026-11-26-webhook-attempt-log.md.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('error_message', 'text').execute()
  // Append-only, no foreign key: deliveries are never deleted, and a key check
  // per row would cost the worker's statement a lookup and a row lock.
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('delivery_id', 'uuid', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('response_status', 'integer')
    .addColumn('response_snippet', 'text')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addPrimaryKeyConstraint('webhook_attempts_pkey', ['delivery_id', 'attempt'])
    .execute()
  await sql`create index webhook_deliveries_type_idx on webhook_deliveries (organization_id, environment, event_type, id)`.execute(
    db,
  )
  await sql`create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`.execute(db)
  await sql`create index webhook_deliveries_created_idx on webhook_deliveries (organization_id, environment, created_at, id)`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index webhook_deliveries_created_idx`.execute(db)
  await sql`drop index webhook_deliveries_event_idx`.execute(db)
  await sql`drop index webhook_deliveries_type_idx`.execute(db)
  await db.schema.dropTable('webhook_attempts').execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('error_message').execute()
}
