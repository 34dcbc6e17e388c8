import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'

/**
 * order_daily_stats (migration 0017): live orders per organization, UTC day of
 * creation, status and slot, folded in from order_changes in the background
 * (orders/changes/changes.repo.ts). The sums add the changes not folded yet, so they
 * are exact; they read a few hundred rows instead of every order.
 */
const counted = (organizationId?: string) => {
  const only = organizationId === undefined ? sql`` : sql`where organization_id = ${organizationId}::uuid`
  const andOnly = organizationId === undefined ? sql`` : sql`and organization_id = ${organizationId}::uuid`
  return sql`(
    select organization_id, day, status, orders, items, quantity from order_daily_stats ${only}
    union all
    select organization_id, day, status, orders, items, quantity from order_changes where live ${andOnly}
  ) counted`
}

export interface DailyTotals {
  status: string
  orders: number
  items: number
  quantity: number
}

/** The sums' columns of each window (since a UTC day, or null: all days): o<n>, i<n> and q<n>, as text. */
function windowColumns(windows: [string, string | null][]) {
  return windows.flatMap(([, day], n) => {
    const filter = day === null ? sql`` : sql`filter (where day >= ${day}::date)`
    return [
      sql`coalesce(sum(orders) ${filter}, 0)::bigint::text as ${sql.ref(`o${n}`)}`,
      sql`coalesce(sum(items) ${filter}, 0)::bigint::text as ${sql.ref(`i${n}`)}`,
      sql`coalesce(sum(quantity) ${filter}, 0)::text as ${sql.ref(`q${n}`)}`,
    ]
  })
}

/** A row's totals of window n. */
const windowTotals = (row: Record<string, string>, n: number): DailyTotals => ({
  status: row.status!,
  orders: Number(row[`o${n}`]),
  items: Number(row[`i${n}`]),
  quantity: Number(row[`q${n}`]),
})

/** Sums of an organization's rows since each of the given UTC days (null: all days), per status. */
export async function sumDailyStats(
  db: Database,
  organizationId: string,
  since: Record<string, string | null>,
): Promise<Record<string, DailyTotals[]>> {
  const windows = Object.entries(since)
  const columns = windowColumns(windows)
  const result = await sql<Record<string, string>>`
    select status, ${sql.join(columns)}
    from ${counted(organizationId)}
    group by status`.execute(db)
  return Object.fromEntries(
    windows.map(([name], n) => [name, result.rows.map((row) => windowTotals(row, n))]),
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
  const columns = windowColumns(windows)
  const result = await sql<Record<string, string>>`
    select organization_id, status, ${sql.join(columns)}
    from ${counted()}
    group by organization_id, status`.execute(db)
  const byOrganization = new Map<string, Record<string, DailyTotals[]>>()
  for (const row of result.rows) {
    const entry =
      byOrganization.get(row.organization_id!) ?? Object.fromEntries(windows.map(([name]) => [name, []]))
    windows.forEach(([name], n) => {
      entry[name]!.push(windowTotals(row, n))
    })
    byOrganization.set(row.organization_id!, entry)
  }
  return byOrganization
}

/**
 * Live orders per UTC day of creation and current status since `day`, of one
 * organization or (undefined) of all: the charts' series, from the same
 * aggregates (a few rows per day and status), never from orders.
 */
export async function dailyOrderSeries(
  db: Database,
  organizationId: string | undefined,
  day: string,
): Promise<{ day: string; status: string; orders: number }[]> {
  const result = await sql<{ day: string; status: string; orders: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, status, sum(orders)::bigint::text as orders
    from ${counted(organizationId)}
    where day >= ${day}::date
    group by day, status
    having sum(orders) <> 0`.execute(db)
  return result.rows.map((row) => ({ day: row.day, status: row.status, orders: Number(row.orders) }))
}
