import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'

/**
 * The platform's production calendar (migration 0038) and the production
 * orders' due dates computed from it by production_due_on(): the working day
 * a lead time of working days after the order was placed.
 */
export interface CalendarRow {
  time_zone: string
  working_weekdays: number[]
  default_lead_time_days: number
  updated_at: Date
}

export interface ClosedDay {
  day: string
  note: string
}

export async function findCalendar(db: Database): Promise<CalendarRow> {
  const result = await sql<CalendarRow>`
    select time_zone, working_weekdays::int[] as working_weekdays, default_lead_time_days::int as default_lead_time_days,
      updated_at
    from production_calendar`.execute(db)
  return result.rows[0]!
}

/** Closed days from `from` on, in order; at most `limit`. */
export async function findClosedDays(db: Database, from: string, limit: number): Promise<ClosedDay[]> {
  const result = await sql<ClosedDay>`
    select to_char(day, 'YYYY-MM-DD') as day, note from closed_days
    where day >= ${from}::date order by day limit ${limit}`.execute(db)
  return result.rows
}

/** Replaces the calendar and its closed days from `from` on (earlier ones stay: they dated past orders). */
export async function saveCalendar(
  db: Database,
  calendar: Omit<CalendarRow, 'updated_at'>,
  closed: ClosedDay[],
  from: string,
  at: Date,
): Promise<void> {
  await sql`
    update production_calendar set time_zone = ${calendar.time_zone},
      working_weekdays = ${calendar.working_weekdays}::smallint[],
      default_lead_time_days = ${calendar.default_lead_time_days}, updated_at = ${at}::timestamptz`.execute(
    db,
  )
  await sql`delete from closed_days where day >= ${from}::date`.execute(db)
  if (closed.length === 0) return
  await sql`
    insert into closed_days (day, note)
    select * from unnest(${closed.map((c) => c.day)}::date[], ${closed.map((c) => c.note)}::text[])
    on conflict (day) do update set note = excluded.note`.execute(db)
}

/**
 * The lead time of an order (by its id's column): its items' longest, an
 * item without a product's or a product without one counting the calendar's default.
 */
const orderLeadDays = (orderId: string) => sql<number>`(
  select coalesce(max(coalesce(pr.lead_time_days, c.default_lead_time_days)), c.default_lead_time_days)
  from production_calendar c
  left join order_items i on i.order_id = ${sql.ref(orderId)}
  left join products pr on pr.id = i.product_id
  group by c.default_lead_time_days)`

/** production_orders.due_on of an order (orders as `o`), for an update's SET. */
export const dueOn = sql<string>`production_due_on(o.ordered_at, ${orderLeadDays('o.id')})`

/**
 * Sets the due dates again of open production orders (pending or in
 * production) that have one: all of them (a calendar change) or those with
 * an item of a product (its lead time changed, or items linked to it).
 * Returns how many.
 */
export async function redateOpenOrders(db: Database, scope: 'all' | { productId: string }): Promise<number> {
  const product =
    scope === 'all'
      ? sql``
      : sql`and exists (select 1 from order_items i where i.order_id = o.id and i.product_id = ${scope.productId}::uuid)`
  const result = await sql`
    update production_orders p set due_on = ${dueOn}
    from orders o
    where o.id = p.order_id and p.status in ('pending', 'in_progress') and p.due_on is not null ${product}`.execute(
    db,
  )
  return Number(result.numAffectedRows ?? 0)
}

/**
 * The CTE the order fold embeds (orders/changes/changes.repo.ts): the due
 * dates of the live orders it counts as created (their ids in the CTE `from`).
 */
export const dueDatesCte = (from: string) => sql`
    due_dates as (
      update production_orders p set due_on = ${dueOn}
      from orders o
      where o.id = p.order_id and p.order_id in (select order_id from ${sql.raw(from)})
    )`
