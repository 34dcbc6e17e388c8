import { type Kysely, sql } from 'kysely'

// Attempts still to be made move to a narrow queue table: recording a result touches no log index.
// See docs/decisions/2026-11-25-webhook-delivery-queue-table.md.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_queue')
    .addColumn('delivery_id', 'uuid', (c) => c.primaryKey())
    .addColumn('event_id', 'uuid', (c) => c.notNull())
    .addColumn('endpoint_id', 'uuid', (c) => c.notNull())
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // Claim lease: a worker owns an attempt until locked_until; a worker that
    // died loses it when the lease runs out and the attempt is taken again.
    .addColumn('locked_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .execute()
  await db.schema
    .createIndex('webhook_queue_due_idx')
    .on('webhook_queue')
    .columns(['next_attempt_at'])
    .execute()
  // A queue table churns through its rows: statistics and vacuum follow a
  // fixed number of changed rows (see migration 0004), and pages are half
  // full so that claims find room for their HOT versions (see 0005).
  await sql`
    alter table webhook_queue set (
      autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000,
      autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
      fillfactor = 50
    )`.execute(db)
  await sql`
    insert into webhook_queue (delivery_id, event_id, endpoint_id, next_attempt_at, attempts, locked_until, locked_by)
    select id, event_id, endpoint_id, coalesce(next_attempt_at, created_at), attempts, locked_until, locked_by
    from webhook_deliveries
    where status = 'pending'`.execute(db)
  await db.schema.dropIndex('webhook_deliveries_due_idx').execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('locked_until').execute()
  await db.schema.alterTable('webhook_deliveries').dropColumn('locked_by').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('locked_until', 'timestamptz').execute()
  await db.schema.alterTable('webhook_deliveries').addColumn('locked_by', 'text').execute()
  await sql`
    update webhook_deliveries d
    set attempts = q.attempts, locked_until = q.locked_until, locked_by = q.locked_by
    from webhook_queue q
    where q.delivery_id = d.id`.execute(db)
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['next_attempt_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute()
  await db.schema.dropTable('webhook_queue').execute()
}
