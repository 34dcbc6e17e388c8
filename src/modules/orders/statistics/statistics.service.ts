import type { Database } from '../../../db/database.ts'
import type { Clock } from '../../../lib/clock.ts'
import type { OrganizationLookup } from '../../organizations/organizations.service.ts'
import { ORDER_STATUSES } from '../orders.schemas.ts'
import {
  type DailyTotals,
  dailyOrderSeries,
  sumDailyStats,
  sumDailyStatsByOrganization,
} from './statistics.repo.ts'

/**
 * Statistics of live orders (test orders never count), read from the daily
 * aggregates, never by counting orders: per organization, for its dashboard,
 * and across the platform.
 */
export function createOrderStatsService(deps: {
  db: Database
  clock: Clock
  organizations: OrganizationLookup
}) {
  const { db, clock } = deps
  /** Each of the last 30 UTC days (today included), oldest first, with its live orders per status. */
  async function last30Days(organizationId?: string) {
    const now = clock.now()
    const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
    const rows = await dailyOrderSeries(db, organizationId, day(29))
    return Array.from({ length: 30 }, (_, n) => {
      const date = day(29 - n)
      const byStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]))
      let total = 0
      for (const row of rows) {
        if (row.day !== date) continue
        byStatus[row.status] = row.orders
        total += row.orders
      }
      return { day: date, orders_total: total, orders_by_status: byStatus }
    })
  }

  return {
    last30Days,

    /** Live orders of an existing organization (else 404) only: test orders never appear in statistics. */
    async stats(organizationId: string) {
      const organization = await deps.organizations.require(organizationId)
      const { all } = await sumDailyStats(db, organization.id, { all: null })
      return totalsView(all!)
    },

    /**
     * Live orders created today, in the last 7 and 30 days (UTC days: today
     * and the 6 or 29 before it) and in all, and how many are in production
     * now, read from the daily statistics (never by counting orders).
     */
    async dashboardStats(organizationId: string) {
      const now = clock.now()
      const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
      const windows = await sumDailyStats(db, organizationId, {
        today: day(0),
        last_7_days: day(6),
        last_30_days: day(29),
        all_time: null,
      })
      const all = totalsView(windows.all_time!)
      return {
        today: day(0),
        windows: {
          today: totalsView(windows.today!),
          last_7_days: totalsView(windows.last_7_days!),
          last_30_days: totalsView(windows.last_30_days!),
          all_time: all,
        },
        in_production: all.orders_by_status.in_production ?? 0,
      }
    },

    /**
     * Live orders of each status, all time, of one organization or of every
     * one (the production board's counts without partner or age filter): from
     * the daily statistics, exact, and as cheap at a million orders as at ten.
     */
    async liveOrdersByStatus(organizationId?: string): Promise<Record<string, number>> {
      if (organizationId !== undefined) {
        const { all } = await sumDailyStats(db, organizationId, { all: null })
        return totalsView(all!).orders_by_status
      }
      const rows = [...(await sumDailyStatsByOrganization(db, { all: null })).values()].flatMap((w) => w.all!)
      const byStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]))
      for (const row of rows) byStatus[row.status] = (byStatus[row.status] ?? 0) + row.orders
      return byStatus
    },

    /**
     * Live orders across organizations (the operator console): the same
     * windows as dashboardStats, for the platform and per organization, read
     * from the daily statistics in one statement.
     */
    async platformStats() {
      const now = clock.now()
      const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
      const since = { today: day(0), last_7_days: day(6), last_30_days: day(29), all_time: null }
      const perOrganization = await sumDailyStatsByOrganization(db, since)
      const names = Object.keys(since) as (keyof typeof since)[]
      const merged = Object.fromEntries(
        names.map((name) => {
          const byStatus = new Map<string, DailyTotals>()
          for (const windows of perOrganization.values()) {
            for (const row of windows[name]!) {
              const sum = byStatus.get(row.status) ?? { status: row.status, orders: 0, items: 0, quantity: 0 }
              sum.orders += row.orders
              sum.items += row.items
              sum.quantity += row.quantity
              byStatus.set(row.status, sum)
            }
          }
          return [name, totalsView([...byStatus.values()])]
        }),
      ) as Record<keyof typeof since, ReturnType<typeof totalsView>>
      return {
        today: day(0),
        windows: merged,
        organizations: [...perOrganization].map(([organizationId, windows]) => ({
          organization_id: organizationId,
          windows: Object.fromEntries(names.map((name) => [name, totalsView(windows[name]!)])) as Record<
            keyof typeof since,
            ReturnType<typeof totalsView>
          >,
        })),
      }
    },
  }
}

/** Daily totals per status as the statistics answer them: every status a key (0 when none). */
function totalsView(rows: DailyTotals[]) {
  const ordersByStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]))
  let orders = 0
  let items = 0
  let quantity = 0
  for (const row of rows) {
    ordersByStatus[row.status] = row.orders
    orders += row.orders
    items += row.items
    quantity += row.quantity
  }
  return {
    orders_total: orders,
    orders_by_status: ordersByStatus,
    items_total: items,
    quantity_total: quantity,
  }
}
