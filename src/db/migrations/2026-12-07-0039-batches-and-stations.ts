import { type Kysely, sql } from 'kysely'

/**
 * The production floor (docs/production.md): batches of production orders
 * made together, and the named stations operators act from. A production
 * order is in at most one open batch (open or started); when the batch
 * finishes, its orders may join another.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table batches (
      id uuid primary key,
      name text not null,
      status text not null default 'open' check (status in ('open', 'in_progress', 'completed', 'failed')),
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz
    )`.execute(db)
  await sql`create index batches_list_idx on batches (status, created_at desc, id desc)`.execute(db)
  await sql`
    create table batch_orders (
      batch_id uuid not null references batches (id) on delete cascade,
      production_order_id uuid not null,
      added_at timestamptz not null,
      open boolean not null default true,
      primary key (batch_id, production_order_id)
    )`.execute(db)
  await sql`create unique index batch_orders_open_idx on batch_orders (production_order_id) where open`.execute(
    db,
  )
  await sql`
    create table stations (
      id uuid primary key,
      name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      archived_at timestamptz
    )`.execute(db)
  await sql`create unique index stations_name_idx on stations (lower(name)) where archived_at is null`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table stations`.execute(db)
  await sql`drop table batch_orders`.execute(db)
  await sql`drop table batches`.execute(db)
}
