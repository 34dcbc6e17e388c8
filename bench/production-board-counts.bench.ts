// The production board's status counts (countBoard, capped at 1000 per status)
// on PostgreSQL with many production orders, by EXPLAIN ANALYZE. Not part of npm test.
//
//   node bench/production-board-counts.bench.ts                  # 1 000 000 production orders
//   node bench/production-board-counts.bench.ts --orders=200000
//
// Creates a database of its own (bench_board_counts, dropped first and after),
// migrates it, seeds live orders of 20 organizations (one of them with 0.1% of
// the orders) and their production orders (90% completed, 5% cancelled, 2%
// pending, 2% failed, 1% in progress; 10% partner-produced), then prints the
// execution time of the counts under each filter the board offers, next to an
// exact count(*) for comparison.
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from '../src/db/database.ts'
import type { DB } from '../src/db/schema.ts'
import { countBoard } from '../src/modules/production/board/board.repo.ts'
import { BOARD_COUNT_CAP } from '../src/modules/production/board/board.service.ts'
import { PRODUCTION_STATUSES } from '../src/modules/production/production.views.ts'
import { benchArgs } from './lib/args.ts'

const { orders: ORDERS, flags } = benchArgs(
  { orders: 1_000_000 },
  { 'pg-url': { type: 'string' }, keep: { type: 'boolean', default: false } },
)
const DB_NAME = 'bench_board_counts'
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

async function seed(client: pg.Client, orgs: string[]) {
  const CHUNK = 200_000
  for (let start = 0; start < ORDERS; start += CHUNK) {
    const end = Math.min(ORDERS, start + CHUNK) - 1
    await client.query(
      `with new_orders as (
        insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
          total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at,
          content_hash, content_bytes)
        select gen_random_uuid(),
          -- organization 0 gets one order in a thousand; the others share the rest
          ($1::uuid[])[case when n % 1000 = 0 then 1 else 2 + n % 19 end], 'live', 'api',
          'ORD-' || lpad(n::text, 8, '0'), 'pending', 'EUR', 10, 'Customer', null, null, t, t, t, md5(n::text), 100
        from generate_series($2::int, $3::int) as n,
          lateral (select now() - ((n::bigint * 7919) % 129600) * interval '1 minute' as t) as at
        returning id, created_at, external_order_id
      )
      insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
      select gen_random_uuid(), id,
        (case when r < 90 then 'completed' when r < 95 then 'cancelled' when r < 97 then 'pending'
              when r < 99 then 'failed' else 'in_progress' end),
        abs(hashtext(external_order_id || 'p')) % 10 = 3, created_at, created_at
      from new_orders, lateral (select abs(hashtext(external_order_id)) % 100 as r) as x`,
      [orgs, start, end],
    )
    process.stdout.write(`\rseeded ${end + 1} production orders`)
  }
  process.stdout.write('\n')
  await client.query('analyze')
}

await admin(`drop database if exists ${DB_NAME}`)
await admin(`create database ${DB_NAME}`)
const pool = new pg.Pool({ connectionString: benchUrl.toString(), max: 2 })
let captured: { sql: string; parameters: readonly unknown[] } | undefined
const db = new Kysely<DB>({
  dialect: new PostgresDialect({ pool }),
  log: (event) => {
    captured = { sql: event.query.sql, parameters: event.query.parameters }
  },
})
try {
  await migrateToLatest(db)
  const orgs = Array.from({ length: 20 }, () => crypto.randomUUID())
  await db
    .insertInto('organizations')
    .values(orgs.map((id, n) => ({ id, name: `Org ${n}`, created_at: new Date() })))
    .execute()
  const client = await pool.connect()
  try {
    await seed(client as unknown as pg.Client, orgs)
    const filters: [string, Parameters<typeof countBoard>[1]][] = [
      ['no filter', {}],
      ['a large organization (5%)', { organizationId: orgs[1] }],
      ['a small organization (0.1%)', { organizationId: orgs[0] }],
      ['partner-produced', { producedByPartner: true }],
      ['older than 1 day', { createdBefore: new Date(Date.now() - 86_400_000) }],
    ]
    for (const [name, filter] of filters) {
      const counts = await countBoard(db, filter, PRODUCTION_STATUSES, BOARD_COUNT_CAP)
      const { sql, parameters } = captured!
      const ms = async (statement: string) => {
        const times: number[] = []
        for (let i = 0; i < 5; i++) {
          const plan = await client.query(`explain (analyze, format json) ${statement}`, [...parameters])
          times.push(plan.rows[0]['QUERY PLAN'][0]['Execution Time'])
        }
        return times.sort((a, b) => a - b)[2]!.toFixed(1)
      }
      const capped = await ms(sql)
      // The same filter counted exactly: the capped subqueries without their limit.
      const exact = await ms(sql.replace(/ limit (\$\d+)/g, ' limit ($1::bigint + null)'))
      console.log(
        `${name.padEnd(30)} capped ${capped.padStart(7)} ms   exact ${exact.padStart(7)} ms   ${JSON.stringify(counts)}`,
      )
    }
  } finally {
    client.release()
  }
} finally {
  await db.destroy()
  if (!flags.keep) await admin(`drop database if exists ${DB_NAME}`)
}
