import { type Kysely, sql } from 'kysely'

// Listen sessions (GET /v1/webhook-events/stream) read committed events in
// commit-safe order: each event records the id of the transaction that wrote
// it (xid8), and a reader only passes a transaction id once every older one
// has ended, so a slow transaction cannot commit an event behind a reader's
// cursor. Events written before this migration share one old id.
// listen_sessions holds the open sessions of every instance, to cap them per
// organization; a crashed instance's rows lapse when their lease ends.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table events add column tx xid8 not null default '1'::xid8`.execute(db)
  await sql`alter table events alter column tx set default pg_current_xact_id()`.execute(db)
  await sql`create index events_tx_idx on events (tx, id)`.execute(db)
  await sql`create index events_scope_tx_idx on events (organization_id, environment, tx, id)`.execute(db)
  await db.schema
    .createTable('listen_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('listen_sessions_organization_idx')
    .on('listen_sessions')
    .columns(['organization_id', 'environment'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('listen_sessions').execute()
  await sql`drop index events_scope_tx_idx`.execute(db)
  await sql`drop index events_tx_idx`.execute(db)
  await sql`alter table events drop column tx`.execute(db)
}
