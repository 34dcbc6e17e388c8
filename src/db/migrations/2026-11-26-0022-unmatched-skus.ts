import { type Kysely, sql } from 'kysely'
import { STATS_SLOTS } from './2026-11-26-0017-order-daily-stats.ts'

/**
 * The skus of an organization's items that no product matches, counted per
 * sku and slot (item lines, orders, the latest order's creation), kept by the
 * statement that creates an order and the one that links a new product's
 * items, so the Products page reads a row per sku instead of grouping every
 * item (docs/decisions/2026-11-26-unmatched-skus.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table unmatched_skus (
      organization_id uuid not null references organizations (id),
      sku text not null,
      slot smallint not null,
      items integer not null,
      orders integer not null,
      last_seen_at timestamptz not null,
      primary key (organization_id, sku, slot)
    )`.execute(db)
  await backfillUnmatchedSkus(db)
}

/** Counts every unlinked item with a sku into unmatched_skus (added to what is there). */
export async function backfillUnmatchedSkus(db: Kysely<any>): Promise<void> {
  await sql`
    insert into unmatched_skus (organization_id, sku, slot, items, orders, last_seen_at)
    select i.organization_id, i.sku, get_byte(uuid_send(o.id), 15) % ${sql.lit(STATS_SLOTS)},
      count(*), count(distinct o.id), max(o.created_at)
    from order_items i
    join orders o on o.id = i.order_id
    where i.product_id is null and i.sku is not null
    group by 1, 2, 3
    on conflict (organization_id, sku, slot) do update set
      items = unmatched_skus.items + excluded.items,
      orders = unmatched_skus.orders + excluded.orders,
      last_seen_at = greatest(unmatched_skus.last_seen_at, excluded.last_seen_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table unmatched_skus`.execute(db)
}
