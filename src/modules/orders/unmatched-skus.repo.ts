import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'

/**
 * unmatched_skus (migration 0022): per organization and sku, the item lines no
 * product matches, the orders they are in and the latest of those orders'
 * creation, folded in from order_changes in the background
 * (orders/changes/changes.repo.ts); linking a new product's items removes its sku. The
 * list adds the orders not folded yet, so it is exact.
 */
export interface UnmatchedSku {
  sku: string
  items: number
  orders: number
  last_seen_at: Date
}

/** The organization's unmatched skus, most recently seen first (then by sku). */
export async function findUnmatchedSkus(db: Database, organizationId: string, limit: number) {
  const result = await sql<{ sku: string; items: string; orders: string; last_seen_at: Date }>`
    select sku, sum(items)::text as items, sum(orders)::text as orders, max(last_seen_at) as last_seen_at
    from (
      select sku, items, orders, last_seen_at from unmatched_skus where organization_id = ${organizationId}::uuid
      union all
      select i.sku, count(*), 1, c.at
      from order_changes c
      join order_items i on i.order_id = c.order_id
      where c.organization_id = ${organizationId}::uuid and c.created
        and i.product_id is null and i.sku is not null
      group by c.order_id, i.sku, c.at
    ) unmatched
    group by sku
    order by max(last_seen_at) desc, sku
    limit ${limit}::int`.execute(db)
  return result.rows.map(
    (r): UnmatchedSku => ({
      sku: r.sku,
      items: Number(r.items),
      orders: Number(r.orders),
      last_seen_at: new Date(r.last_seen_at),
    }),
  )
}
