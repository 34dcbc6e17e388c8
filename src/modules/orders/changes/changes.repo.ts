import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB } from '../../../db/schema.ts'
import { raw, type Statement, stmt } from '../../../db/statement.ts'
import { tryTransactionLock } from '../../../db/upkeep.ts'
import { dueDatesCte } from '../../production/calendar/calendar.repo.ts'
import type { OrderStatus } from '../orders.schemas.ts'

/**
 * order_changes (migration 0023): what the order statistics and the unmatched
 * skus have not counted yet. Creating an order, changing a live order's
 * status, and changing a live order's quantities in the dashboard append rows
 * here (no key, no index: no lock another order waits for); foldOrderChanges
 * moves them into order_daily_stats, unmatched_skus and the monthly usage
 * (migration 0028) in the background, and the readers add the rows still
 * here, so the figures are exact whenever they are read.
 *
 * Three kinds of row: a creation (`created`, orders 1), a status move (orders
 * -1 from the old status and +1 to the new one) and a resize (orders 0, items
 * 0, the quantity's difference, in the order's current status). Usage counts
 * creations and resizes: an order stays counted in its month whatever its
 * status becomes.
 */

/** Folding and linking a product's items take this lock, so neither counts an item the other has moved. */
const FOLD_LOCK = sql`hashtextextended('order_changes', 0)`

/** A CTE recording the creation of the order inserted by the CTE `from.order` (its items in `from.items`). */
export function newOrderChangeCte(
  order: { organizationId: string; createdAt: Date; status: string; live: boolean },
  from: { order: string; items: string },
): Statement {
  const day = order.createdAt.toISOString().slice(0, 10)
  return stmt`
      new_order_change as (
        insert into order_changes (order_id, organization_id, live, created, day, status, orders, items, quantity, at)
        select id, ${order.organizationId}::uuid, ${order.live}::boolean, true, ${day}::date, ${order.status}::text, 1,
          (select count(*) from ${raw(from.items)}),
          (select coalesce(sum(quantity), 0) from ${raw(from.items)}),
          ${order.createdAt}::timestamptz
        from ${raw(from.order)}
      )`
}

/**
 * Sets an order's status and, for a live order whose status changes, records
 * the move of its count (with its items and quantity) from the old status to
 * the new one, in one statement. The caller holds the order's row lock.
 */
export async function setOrderStatusRecorded(db: Database, orderId: string, status: OrderStatus, at: Date) {
  await sql`
    with prev as (
      select id, organization_id, environment, status, created_at from orders where id = ${orderId}::uuid
    ),
    changed as (
      update orders set status = ${status}::text, updated_at = ${at}::timestamptz where id = ${orderId}::uuid
    ),
    sizes as (
      select count(*) as items, coalesce(sum(quantity), 0) as quantity from order_items
      where order_id = ${orderId}::uuid
    )
    insert into order_changes (order_id, organization_id, live, created, day, status, orders, items, quantity, at)
    select p.id, p.organization_id, true, false, (p.created_at at time zone 'UTC')::date, m.status,
      m.sign, m.sign * s.items, m.sign * s.quantity, ${at}::timestamptz
    from prev p
    cross join sizes s
    cross join lateral (values (p.status, -1), (${status}::text, 1)) as m (status, sign)
    where p.environment = 'live' and p.status <> ${status}::text`.execute(db)
}

/** The rows the monthly usage counts: creations and resizes (orders 0), not status moves. */
export const countsForUsage = sql`(created or orders = 0)`

/**
 * Records a live order's quantities changed after it was created (the
 * dashboard's order changes): the difference of its total quantity, in its
 * current status, for the statistics and the usage; and the difference per
 * linked product for the product usage, which the fold reads from the items
 * as they are when the order's creation is folded. So the product usage moves
 * here only for an order whose creation has been folded, under the fold's
 * lock (the caller takes it before it changes the items).
 */
export async function recordResize(
  trx: Transaction<DB>,
  order: { id: string; organizationId: string; createdAt: Date; status: string },
  resized: { productId: string | null; difference: number }[],
  at: Date,
): Promise<void> {
  const difference = resized.reduce((n, r) => n + r.difference, 0)
  const day = order.createdAt.toISOString().slice(0, 10)
  if (difference !== 0) {
    await sql`
      insert into order_changes (order_id, organization_id, live, created, day, status, orders, items, quantity, at)
      values (${order.id}::uuid, ${order.organizationId}::uuid, true, false, ${day}::date, ${order.status},
        0, 0, ${difference}, ${at}::timestamptz)`.execute(trx)
  }
  const byProduct = new Map<string, number>()
  for (const r of resized) {
    if (r.productId !== null) byProduct.set(r.productId, (byProduct.get(r.productId) ?? 0) + r.difference)
  }
  const products = [...byProduct].filter(([, d]) => d !== 0)
  if (products.length === 0) return
  await sql`
    insert into monthly_product_usage (organization_id, month, product_id, orders, items, quantity)
    select ${order.organizationId}::uuid, date_trunc('month', ${day}::date)::date, p.product_id, 0, 0, p.difference
    from unnest(${products.map(([id]) => id)}::uuid[], ${products.map(([, d]) => d)}::bigint[])
      as p (product_id, difference)
    where not exists (select 1 from order_changes c where c.order_id = ${order.id}::uuid and c.created)
    order by p.product_id
    on conflict (month, organization_id, product_id) do update set
      ${add('monthly_product_usage', ['orders', 'items', 'quantity'])}`.execute(trx)
}

/** Waits until no fold is running (a product's items are linked after it). */
export async function lockOrderChanges(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${FOLD_LOCK})`.execute(trx)
}

const add = (table: string, columns: string[]) =>
  sql.raw(columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', '))

/**
 * Moves up to `limit` recorded changes into the aggregates and deletes them,
 * in one statement: a crash leaves them all recorded or all counted. Returns
 * how many it moved, or null when another instance is folding.
 */
export async function foldOrderChanges(trx: Transaction<DB>, limit: number): Promise<number | null> {
  if (!(await tryTransactionLock(trx, 'order_changes'))) return null
  const result = await sql<{ folded: number }>`
    with picked as materialized (
      select ctid from order_changes limit ${limit}::int
    ),
    taken as (
      delete from order_changes o using picked p
      where o.ctid = p.ctid
      returning o.*
    ),
    stats as (
      insert into order_daily_stats (organization_id, day, status, slot, orders, items, quantity)
      select organization_id, day, status, 0, sum(orders), sum(items), sum(quantity)
      from taken
      where live
      group by organization_id, day, status
      order by organization_id, day, status
      on conflict (organization_id, day, status, slot) do update set
        ${add('order_daily_stats', ['orders', 'items', 'quantity'])}
    ),
    -- The created orders' items, read once by order_items_order_idx alone:
    -- with the filters inside, the planner combines that index with the
    -- partial index of unlinked skus, whose every entry it then reads for each order.
    lines as materialized (
      select t.organization_id, t.order_id, t.live, t.day, t.at, i.sku, i.product_id, i.quantity, i.has_files
      from taken t
      cross join lateral (
        select sku, product_id, quantity, json_array_length(files) > 0 as has_files
        from order_items where order_id = t.order_id offset 0
      ) i
      where t.created
    ),
    -- Orders with files wait for preflight (modules/preflight) to measure them.
    preflight as (
      insert into preflight_queue (order_id, organization_id, queued_at)
      select distinct order_id, organization_id, at from lines where has_files
      order by order_id
      on conflict (order_id) do nothing
    ),
    -- Live orders' production orders get their due dates (modules/production/calendar).
    created_live as (select order_id from taken where created and live),
    ${dueDatesCte('created_live')},
    skus as (
      insert into unmatched_skus (organization_id, sku, slot, items, orders, last_seen_at)
      select organization_id, sku, 0, count(*), count(distinct order_id), max(at)
      from lines
      where product_id is null and sku is not null
      group by organization_id, sku
      order by organization_id, sku
      on conflict (organization_id, sku, slot) do update set
        ${add('unmatched_skus', ['items', 'orders'])},
        last_seen_at = greatest(unmatched_skus.last_seen_at, excluded.last_seen_at)
    ),
    -- Usage for billing counts an order once, when it is created, and its
    -- quantity changes: a later status (cancelled included) leaves it
    -- counted in its month.
    usage as (
      insert into monthly_usage (organization_id, month, orders, items, quantity)
      select organization_id, date_trunc('month', day)::date, sum(orders), sum(items), sum(quantity)
      from taken
      where live and ${countsForUsage}
      group by 1, 2
      order by 2, 1
      on conflict (month, organization_id) do update set
        ${add('monthly_usage', ['orders', 'items', 'quantity'])}
    ),
    product_usage as (
      insert into monthly_product_usage (organization_id, month, product_id, orders, items, quantity)
      select organization_id, date_trunc('month', day)::date, product_id,
        count(distinct order_id), count(*), sum(quantity)
      from lines
      where live and product_id is not null
      group by 1, 2, 3
      order by 2, 1, 3
      on conflict (month, organization_id, product_id) do update set
        ${add('monthly_product_usage', ['orders', 'items', 'quantity'])}
    )
    select count(*)::int as folded from taken`.execute(trx)
  return result.rows[0]!.folded
}

/**
 * Before a product's items are linked (the caller holds the fold's lock):
 * moves the usage of the organization's unlinked items with this sku in
 * orders already folded onto the product. The orders still waiting in
 * order_changes are counted by their fold, with the product linked by then.
 */
export async function countLinkedUsage(
  trx: Transaction<DB>,
  link: { organizationId: string; sku: string; productId: string },
): Promise<void> {
  await sql`
    insert into monthly_product_usage (organization_id, month, product_id, orders, items, quantity)
    select o.organization_id, date_trunc('month', o.created_at at time zone 'UTC')::date,
      ${link.productId}::uuid, count(distinct o.id), count(*), sum(i.quantity)
    from order_items i
    join orders o on o.id = i.order_id
    where i.organization_id = ${link.organizationId}::uuid and i.sku = ${link.sku}
      and i.product_id is null and o.environment = 'live'
      and not exists (select 1 from order_changes c where c.order_id = o.id and c.created)
    group by 1, 2
    order by 2
    on conflict (month, organization_id, product_id) do update set
      ${add('monthly_product_usage', ['orders', 'items', 'quantity'])}`.execute(trx)
}

/** Reclaims folded rows, so that folds stop reading them (skipped while another instance vacuums). */
export async function vacuumOrderChanges(db: Database): Promise<void> {
  await sql`vacuum (skip_locked) order_changes`.execute(db)
}
