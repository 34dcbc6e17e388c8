import { type Kysely, sql } from 'kysely'

/**
 * The inbox of the order aggregates (docs/decisions/2026-11-28-aggregates-off-the-order-path.md):
 * the statement that creates an order, and the one that changes a live
 * order's status, append a row here instead of upserting the shared rows of
 * order_daily_stats and unmatched_skus, whose row locks made concurrent
 * orders wait for each other's commits. A background step folds the rows into
 * the aggregates in batches and deletes them in the same statement; readers
 * add the rows not yet folded, so the figures stay exact. No key, no index:
 * appending takes no lock another order waits for.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table order_changes (
      order_id uuid not null,
      organization_id uuid not null,
      live boolean not null,
      created boolean not null,
      day date not null,
      status text not null,
      orders integer not null,
      items integer not null,
      quantity bigint not null,
      at timestamptz not null
    )`.execute(db)
  // A queue: vacuum it after every thousand folded rows, whatever its size.
  await sql`alter table order_changes set (autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0,
    autovacuum_vacuum_insert_threshold = 1000)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table order_changes`.execute(db)
}
