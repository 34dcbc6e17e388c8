import { type Kysely, sql } from 'kysely'

/**
 * Preflight (docs/preflight.md): the facts measured of each production file,
 * the orders whose files wait to be measured or checked again, and each
 * checked order's verdict, for the lists' filters and automation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table file_facts (
      upload_id uuid primary key,
      organization_id uuid not null,
      measured boolean not null,
      facts jsonb,
      reason text,
      thumbnail_key text,
      measured_at timestamptz not null
    )`.execute(db)
  // A queue, filled by the order fold, order changes, print spec changes and
  // sku links; every instance's runner takes orders from it with SKIP LOCKED.
  await sql`
    create table preflight_queue (
      order_id uuid primary key,
      organization_id uuid not null,
      queued_at timestamptz not null,
      claimed_until timestamptz,
      attempts integer not null default 0
    )`.execute(db)
  await sql`create index preflight_queue_queued_idx on preflight_queue (queued_at)`.execute(db)
  await sql`alter table preflight_queue set (autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 1000)`.execute(db)
  await sql`
    create table order_preflight (
      order_id uuid primary key,
      organization_id uuid not null,
      environment text not null,
      verdict text not null,
      problems integer not null,
      warnings integer not null,
      checked_at timestamptz not null
    )`.execute(db)
  await sql`
    create index order_preflight_flagged_idx on order_preflight (organization_id, environment, verdict)
    where verdict in ('problem', 'warning')`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table order_preflight`.execute(db)
  await sql`drop table preflight_queue`.execute(db)
  await sql`drop table file_facts`.execute(db)
}
