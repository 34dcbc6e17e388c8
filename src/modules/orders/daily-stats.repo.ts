import { type RawBuilder, sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { OrderStatus } from './orders.schemas.ts'

/**
 * order_daily_stats (migration 0017): live orders per organization, UTC day of
 * creation, status and slot. Every statement that creates a live order or
 * changes an order's status changes these rows in the same statement, so the
 * statistics are exact and read a few hundred rows instead of every order.
 * The slot (a byte of the order id) spreads one organization's concurrent
 * orders over several rows, so they do not all wait on one row lock.
 */
const SLOTS = 8
const slotOf = (id: RawBuilder<unknown>) => sql`get_byte(uuid_send(${id}), 15) % ${sql.lit(SLOTS)}`
const addOnConflict = sql`
  on conflict (organization_id, day, status, slot) do update set
    orders = order_daily_stats.orders + excluded.orders,
    items = order_daily_stats.items + excluded.items,
    quantity = order_daily_stats.quantity + excluded.quantity`

/** A CTE counting the order inserted by the CTE `order` (its items in the CTE `items`). */
export function newOrderStatsCte(
  order: { organizationId: string; createdAt: Date; status: string },
  from: { order: string; items: string },
): RawBuilder<unknown> {
  const day = order.createdAt.toISOString().slice(0, 10)
  return sql`
      new_order_stats as (
        insert into order_daily_stats (organization_id, day, status, slot, orders, items, quantity)
        select ${order.organizationId}::uuid, ${day}::date, ${order.status}::text, ${slotOf(sql.ref('id'))}, 1,
          (select count(*) from ${sql.table(from.items)}),
          (select coalesce(sum(quantity), 0) from ${sql.table(from.items)})
        from ${sql.table(from.order)}
        ${addOnConflict}
      )`
}

/**
 * Sets an order's status and moves a live order's count (with its items and
 * quantity) from the old status to the new one, in one statement. The caller
 * holds the order's row lock (the production change locks it).
 */
export async function setOrderStatusCounted(db: Database, orderId: string, status: OrderStatus, at: Date) {
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
    insert into order_daily_stats (organization_id, day, status, slot, orders, items, quantity)
    select p.organization_id, (p.created_at at time zone 'UTC')::date, m.status, ${slotOf(sql.ref('p.id'))},
      m.sign, m.sign * s.items, m.sign * s.quantity
    from prev p
    cross join sizes s
    cross join lateral (values (p.status, -1), (${status}::text, 1)) as m (status, sign)
    where p.environment = 'live' and p.status <> ${status}::text
    ${addOnConflict}`.execute(db)
}

export interface DailyTotals {
  status: string
  orders: number
  items: number
  quantity: number
}

/** Sums of an organization's rows since each of the given UTC days (null: all days), per status. */
export async function sumDailyStats(
  db: Database,
  organizationId: string,
  since: Record<string, string | null>,
): Promise<Record<string, DailyTotals[]>> {
  const windows = Object.entries(since)
  const columns = windows.flatMap(([, day], n) => {
    const filter = day === null ? sql`` : sql`filter (where day >= ${day}::date)`
    return [
      sql`coalesce(sum(orders) ${filter}, 0)::bigint::text as ${sql.ref(`o${n}`)}`,
      sql`coalesce(sum(items) ${filter}, 0)::bigint::text as ${sql.ref(`i${n}`)}`,
      sql`coalesce(sum(quantity) ${filter}, 0)::text as ${sql.ref(`q${n}`)}`,
    ]
  })
  const result = await sql<Record<string, string>>`
    select status, ${sql.join(columns)}
    from order_daily_stats
    where organization_id = ${organizationId}::uuid
    group by status`.execute(db)
  return Object.fromEntries(
    windows.map(([name], n) => [
      name,
      result.rows.map((row) => ({
        status: row.status!,
        orders: Number(row[`o${n}`]),
        items: Number(row[`i${n}`]),
        quantity: Number(row[`q${n}`]),
      })),
    ]),
  )
}

/**
 * Every organization's sums since each of the given UTC days (null: all
 * days), per status: the operator's statistics across organizations, one
 * statement over the aggregates (never over orders).
 */
export async function sumDailyStatsByOrganization(
  db: Database,
  since: Record<string, string | null>,
): Promise<Map<string, Record<string, DailyTotals[]>>> {
  const windows = Object.entries(since)
  const columns = windows.flatMap(([, day], n) => {
    const filter = day === null ? sql`` : sql`filter (where day >= ${day}::date)`
    return [
      sql`coalesce(sum(orders) ${filter}, 0)::bigint::text as ${sql.ref(`o${n}`)}`,
      sql`coalesce(sum(items) ${filter}, 0)::bigint::text as ${sql.ref(`i${n}`)}`,
      sql`coalesce(sum(quantity) ${filter}, 0)::text as ${sql.ref(`q${n}`)}`,
    ]
  })
  const result = await sql<Record<string, string>>`
    select organization_id, status, ${sql.join(columns)}
    from order_daily_stats
    group by organization_id, status`.execute(db)
  const byOrganization = new Map<string, Record<string, DailyTotals[]>>()
  for (const row of result.rows) {
    const entry =
      byOrganization.get(row.organization_id!) ?? Object.fromEntries(windows.map(([name]) => [name, []]))
    windows.forEach(([name], n) => {
      entry[name]!.push({
        status: row.status!,
        orders: Number(row[`o${n}`]),
        items: Number(row[`i${n}`]),
        quantity: Number(row[`q${n}`]),
      })
    })
    byOrganization.set(row.organization_id!, entry)
  }
  return byOrganization
}
