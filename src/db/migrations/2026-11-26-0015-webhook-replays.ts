import { type Kysely, sql } from 'kysely'

// Replays (POST /v1/webhook-endpoints/{id}/replay) and redeliveries that
// cancel the retries of the entry they repeat. See
// docs/decisions/2026-11-26-webhook-replay.md and
// docs/decisions/2026-11-26-webhook-redelivery-cancels-retry.md.
export async function up(db: Kysely<any>): Promise<void> {
  // Log entries say where they came from and what ended them; nullable columns
  // without a default, so adding them rewrites nothing.
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('redelivery_of', 'uuid')
    .addColumn('superseded_by', 'uuid')
    .addColumn('replay_id', 'uuid')
    .execute()
  // A replay selects an organization's events by time.
  await sql`create index events_scope_created_idx on events (organization_id, environment, created_at, id)`.execute(
    db,
  )
  await db.schema
    .createTable('webhook_replays')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'uuid', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('organization_id', 'uuid', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('since', 'timestamptz', (c) => c.notNull())
    .addColumn('until', 'timestamptz')
    .addColumn('event_types', sql`text[]`)
    .addColumn('only_failed', 'boolean', (c) => c.notNull())
    // running: deliveries are being fed into the queue; completed: all were;
    // cancelled: the endpoint was disabled or deleted first.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('queued', 'integer', (c) => c.notNull())
    // The replay's deliveries fed last that may still wait in the queue: the
    // feeder keeps at most a handful of them due at once.
    .addColumn('in_queue', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    // When the last fed attempt falls due: the next ones fall due after it,
    // whichever instance (and clock) feeds them.
    .addColumn('fed_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finished_at', 'timestamptz')
    .execute()
  // One running replay per endpoint, whatever instance took the request.
  await sql`create unique index webhook_replays_running_idx on webhook_replays (endpoint_id) where status = 'running'`.execute(
    db,
  )
  await db.schema
    .createIndex('webhook_replays_endpoint_idx')
    .on('webhook_replays')
    .columns(['endpoint_id', 'id'])
    .execute()
  // The events a replay has still to queue, in the order they were recorded
  // (seq), chosen when it was requested; fed rows are deleted.
  await db.schema
    .createTable('webhook_replay_events')
    .addColumn('replay_id', 'uuid', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'uuid', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_replay_events_pkey', ['replay_id', 'seq'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_replay_events').execute()
  await db.schema.dropTable('webhook_replays').execute()
  await sql`drop index events_scope_created_idx`.execute(db)
  await db.schema
    .alterTable('webhook_deliveries')
    .dropColumn('redelivery_of')
    .dropColumn('superseded_by')
    .dropColumn('replay_id')
    .execute()
}
