import { type RawBuilder, sql } from 'kysely'
import type { Database } from '../../db/database.ts'

/**
 * unmatched_skus (migration 0022): per organization, sku and slot, the item
 * lines no product matches, the orders they are in and the latest of those
 * orders' creation. The statement that creates an order adds its unmatched
 * items; the one that links a new product's items removes its sku. The slot
 * (a byte of the order id, as in order_daily_stats) spreads one sku's
 * concurrent orders over several rows, so they do not all wait on one lock;
 * rows are written in sku order, so two orders never take two skus' locks
 * in opposite orders.
 */
const SLOTS = 8

/** A CTE counting the unmatched items (product_id null, a sku) of the order inserted by `from.order`. */
export function newUnmatchedSkusCte(
  order: { organizationId: string; createdAt: Date },
  from: { order: string; items: string },
): RawBuilder<unknown> {
  return sql`
      new_unmatched_skus as (
        insert into unmatched_skus (organization_id, sku, slot, items, orders, last_seen_at)
        select ${order.organizationId}::uuid, i.sku, get_byte(uuid_send(o.id), 15) % ${sql.lit(SLOTS)},
          count(*), 1, ${order.createdAt}::timestamptz
        from ${sql.table(from.items)} i
        cross join ${sql.table(from.order)} o
        where i.product_id is null and i.sku is not null
        group by i.sku, o.id
        order by i.sku
        on conflict (organization_id, sku, slot) do update set
          items = unmatched_skus.items + excluded.items,
          orders = unmatched_skus.orders + excluded.orders,
          last_seen_at = greatest(unmatched_skus.last_seen_at, excluded.last_seen_at)
      )`
}

export interface UnmatchedSku {
  sku: string
  items: number
  orders: number
  last_seen_at: Date
}

/** The organization's unmatched skus, most recently seen first (then by sku). */
export async function findUnmatchedSkus(db: Database, organizationId: string, limit: number) {
  const rows = await db
    .selectFrom('unmatched_skus')
    .select((eb) => [
      'sku',
      eb.fn.sum<string>('items').as('items'),
      eb.fn.sum<string>('orders').as('orders'),
      eb.fn.max('last_seen_at').as('last_seen_at'),
    ])
    .where('organization_id', '=', organizationId)
    .groupBy('sku')
    .orderBy('last_seen_at', 'desc')
    .orderBy('sku')
    .limit(limit)
    .execute()
  return rows.map(
    (r): UnmatchedSku => ({
      sku: r.sku,
      items: Number(r.items),
      orders: Number(r.orders),
      last_seen_at: new Date(r.last_seen_at),
    }),
  )
}
