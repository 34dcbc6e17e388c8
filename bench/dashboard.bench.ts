// The dashboard's Home and first Orders page with 1 000 000 orders in one
// organization, and the console's production board on their production
// orders (PostgreSQL only). Not part of npm test.
//
//   npm run bench:dashboard                          # DATABASE_URL, else postgres://postgres@127.0.0.1:5432
//   npm run bench:dashboard -- --orders=200000 --requests=100
//
// Creates a database of its own (bench_dashboard, dropped first and after),
// starts the real service on it, signs a viewer in through an operator
// invitation, seeds the orders with generate_series inserts (spread over 90
// days, mixed statuses, 5% test orders, 1 to 3 items each; each live order
// with its production order, due date and jobs: bench/lib/dashboard-data.ts),
// and a small organization with a thousandth of them (at least 1 000), and counts them
// into the daily statistics and the unmatched skus with the backfills of
// migrations 0017 and 0022, then times
// GET /dashboard/api/home, the first page of GET /dashboard/api/orders, a
// search, a status filter, the Products page's unmatched SKUs, the console's
// Billing page (GET /dashboard/api/operator/usage, as an operator) and the
// owners' Usage page (GET /dashboard/api/usage), counted into the monthly
// usage with the backfill of migration 0028, sequentially, and prints p50/p99
// against the 100 ms target. Then, as the operator, the production board's
// first page under each filter, and its actions on distinct startable
// production orders against a p99 of 1 s (bench/lib/production-board.ts).
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { backfillOrderDailyStats } from '../src/db/migrations/2026-11-26-0017-order-daily-stats.ts'
import { backfillUnmatchedSkus } from '../src/db/migrations/2026-11-26-0022-unmatched-skus.ts'
import { backfillMonthlyUsage } from '../src/db/migrations/2026-11-29-0028-monthly-usage.ts'
import { benchArgs } from './lib/args.ts'
import { seedOrders } from './lib/dashboard-data.ts'
import { timeGet } from './lib/dashboard-timing.ts'
import { benchProductionBoard } from './lib/production-board.ts'
import { signIn, startService, tenant } from './lib/service.ts'

const {
  orders: ORDERS,
  requests: REQUESTS,
  flags,
} = benchArgs(
  { orders: 1_000_000, requests: 200 },
  { 'pg-url': { type: 'string' }, keep: { type: 'boolean', default: false } },
)
const TARGET_MS = 100
const DB_NAME = 'bench_dashboard'

const adminUrl = new URL(
  flags['pg-url'] ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
)
const benchUrl = new URL(adminUrl)
benchUrl.pathname = `/${DB_NAME}`

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: adminUrl.toString() })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** This month's live orders of the organization, counted from the orders themselves. */
async function liveOrdersIn(url: string, orgId: string, month: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const res = await client.query(
      `select count(*)::int as n from orders where organization_id = $1 and environment = 'live'
        and to_char(created_at at time zone 'UTC', 'YYYY-MM') = $2`,
      [orgId, month],
    )
    return res.rows[0].n
  } finally {
    await client.end()
  }
}

const time = (base: string, cookie: string, path: string) =>
  timeGet(base, cookie, path, { requests: REQUESTS, targetMs: TARGET_MS })

async function main() {
  await admin(`drop database if exists ${DB_NAME} with (force)`)
  await admin(`create database ${DB_NAME}`)
  const service = await startService({ DATABASE_URL: benchUrl.toString(), WEBHOOK_WORKER: 'off' })
  let failed = false
  try {
    const { orgId } = await tenant(service, 'Dashboard bench')
    const { orgId: smallOrgId } = await tenant(service, 'Dashboard bench, small')
    const db = new pg.Client({ connectionString: benchUrl.toString() })
    await db.connect()
    const started = performance.now()
    await seedOrders(db, orgId, ORDERS)
    await seedOrders(
      db,
      smallOrgId,
      Math.max(1000, Math.round(ORDERS / 1000)),
      'orders of a small organization',
    )
    const kysely = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: benchUrl.toString(), max: 1 }) }),
    })
    await backfillOrderDailyStats(kysely)
    await backfillUnmatchedSkus(kysely)
    await kysely.transaction().execute((trx) => backfillMonthlyUsage(trx))
    await kysely.destroy()
    for (const table of [
      'orders',
      'order_items',
      'production_orders',
      'production_jobs',
      'order_daily_stats',
      'unmatched_skus',
      'monthly_usage',
    ])
      await db.query(`vacuum analyze ${table}`)
    const counts = await db.query(
      `select count(*) filter (where environment = 'live') as live, count(*) as all from orders
      where organization_id = $1`,
      [orgId],
    )
    const rows = await db.query('select count(*) as n from order_daily_stats')
    console.log(
      `${counts.rows[0].all} orders (${counts.rows[0].live} live) seeded and counted in ${((performance.now() - started) / 1000).toFixed(0)} s; ${rows.rows[0].n} daily statistics rows`,
    )
    const plan = await db.query(
      `explain select * from orders where organization_id = $1 and environment = 'live'
        and (lower(external_order_id) like 'customer1234%' or lower(customer_email) like 'customer1234%'
          or lower(customer_name) like 'customer1234%')
        order by created_at desc, id desc limit 51`,
      [orgId],
    )
    const usesIndexes = plan.rows.map((r) => r['QUERY PLAN']).join('\n')
    console.log(`search plan uses the search indexes: ${/orders_search_/.test(usesIndexes)}`)
    await db.end()

    const cookie = await signIn(service, orgId)
    const home = await time(service.base, cookie, '/home')
    const total = JSON.parse(home.last).data.live_orders.all_time.orders_total
    if (total !== Number(counts.rows[0].live)) throw new Error(`home counts ${total} live orders`)
    const list = await time(service.base, cookie, '/orders?environment=live&limit=50')
    await time(service.base, cookie, '/orders?environment=live&limit=50&q=customer1234')
    await time(service.base, cookie, '/orders?environment=live&limit=50&status=failed')
    // Every seeded item's SKU is unmatched (no products): the Products page's worst case.
    await time(service.base, cookie, '/products/unmatched-skus')
    // Usage for billing: this month's live orders, read from the monthly usage (never the orders).
    const month = new Date().toISOString().slice(0, 7)
    const thisMonth = await liveOrdersIn(benchUrl.toString(), orgId, month)
    const operatorCookie = await signIn(service, orgId, 'operator')
    const billing = await time(service.base, operatorCookie, `/operator/usage?month=${month}`)
    const billed = JSON.parse(billing.last).data.organizations.find((o: { id: string }) => o.id === orgId)
    if (billed.orders !== thisMonth)
      throw new Error(`billing counts ${billed.orders} live orders, not ${thisMonth}`)
    const ownerCookie = await signIn(service, orgId, 'owner')
    const usage = await time(service.base, ownerCookie, `/usage?month=${month}`)
    const board = await benchProductionBoard({
      service,
      cookie: operatorCookie,
      dbUrl: benchUrl.toString(),
      orgs: { large: orgId, small: smallOrgId },
      requests: REQUESTS,
      targetMs: TARGET_MS,
    })
    failed = [home, list, billing, usage].some((r) => r.p50 >= TARGET_MS) || board.failed
  } finally {
    await service.stop()
    if (!flags.keep) await admin(`drop database if exists ${DB_NAME} with (force)`)
  }
  if (failed) process.exitCode = 1
}

await main()
