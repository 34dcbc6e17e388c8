// GET /v1/orders at a small and a large number of stored orders (PostgreSQL,
// 10 k and 1 M by default, seeded in SQL): page p50 at the large over the small,
// against the target of 1.2.
import pg from 'pg'
import { percentile } from '../lib/service.ts'
import { log, opts } from './options.ts'
import { checks, rows } from './report.ts'
import { createTenant, timed } from './service.ts'

const SEED_SQL = `
with o as (
  insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
    total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at, content_hash,
    content_bytes)
  select gen_random_uuid(), $1::uuid, 'live', 'api', 'seed-' || g, 'pending', 'EUR', 43.20,
    'Customer ' || g, 'customer' || g || '@example.com', null, ts, ts, ts, md5(g::text), 300
  from generate_series($2::int, $3::int) g
  cross join lateral (select $4::timestamptz + g * interval '1 second' as ts) t
  returning id, updated_at
), i as (
  insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price, product_id,
    personalization, files)
  select gen_random_uuid(), o.id, $1::uuid, p, 'SKU-' || p, 'Item ' || p, 1, 9.90, null,
    '{"text":"Happy birthday, Anna!","font":"Serif","color":"#aa3300"}'::json, '[]'::json
  from o cross join generate_series(0, 2) p
  returning id, order_id
), po as (
  insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
  select gen_random_uuid(), o.id, 'pending', false, o.updated_at, o.updated_at from o
  returning id, order_id
)
insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
select gen_random_uuid(), po.id, i.id, 'pending', now(), now() from i join po using (order_id)`

/** GET /v1/orders p50 at a small and at a large number of stored orders (PostgreSQL). */
interface ScaleSide {
  label: string
  n: number
  url: string
  databaseUrl: string
  key?: string
  since: number[]
  cursor: number[]
}

const SCALE_BASE = new Date('2020-01-01T00:00:00.000Z')

async function seedOrders(databaseUrl: string, orgId: string, n: number, label: string): Promise<void> {
  const started = Date.now()
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('set synchronous_commit = off')
    for (let from = 1; from <= n; from += 50_000) {
      await client.query(SEED_SQL, [orgId, from, Math.min(n, from + 49_999), SCALE_BASE.toISOString()])
    }
    await client.query('analyze')
  } finally {
    await client.end()
  }
  log(`PostgreSQL: ${label} orders seeded (${((Date.now() - started) / 1000).toFixed(0)} s)`)
}

/**
 * Two databases, two service processes: one with the small number of orders, one with
 * the large. Requests alternate between them, so both sides see the same machine
 * (the cores are shared with other work); each sample is a page from a random point
 * of the data (updated_since) and the page after it (cursor).
 */
export async function scaling(
  large: { url: string; databaseUrl: string },
  small: { url: string; databaseUrl: string },
) {
  const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`)
  const sides: ScaleSide[] = [
    { ...small, label: label(opts.scaleSmall), n: opts.scaleSmall, since: [], cursor: [] },
    { ...large, label: label(opts.scaleLarge), n: opts.scaleLarge, since: [], cursor: [] },
  ]
  for (const side of sides) {
    const tenant = await createTenant(side.url, 1)
    side.key = tenant.keys[0]!
    await seedOrders(side.databaseUrl, tenant.orgId, side.n, side.label)
  }
  // Both processes warm up alike (the large side's service has served the load runs).
  const WARMUP = 150
  const sample = async (side: ScaleSide, record: boolean) => {
    const page = (query: string) =>
      timed(`${side.url}/v1/orders?${query}`, { headers: { authorization: `Bearer ${side.key}` } }, 200)
    // A random point in the data, deep enough that the page and the next one are full.
    const at = 1 + Math.floor(Math.random() * (side.n - 250))
    const iso = new Date(SCALE_BASE.getTime() + at * 1000).toISOString()
    const first = await page(`limit=100&updated_since=${encodeURIComponent(iso)}`)
    const body = JSON.parse(first.text) as { data: unknown[]; next_cursor: string | null }
    if (body.data.length !== 100 || !body.next_cursor) throw new Error('scaling: expected a full page')
    const second = await page(`limit=100&cursor=${encodeURIComponent(body.next_cursor)}`)
    if (record) {
      side.since.push(first.ms)
      side.cursor.push(second.ms)
    }
  }
  log(`PostgreSQL: GET pages at ${sides.map((s) => s.label).join(' and ')} orders, alternating`)
  for (let i = 0; i < opts.scaleSamples + WARMUP; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) await sample(side, i >= WARMUP)
  }
  const p50 = (side: ScaleSide) => percentile([...side.since, ...side.cursor], 50)
  for (const side of sides) {
    rows.push({
      database: 'PostgreSQL',
      scenario: `GET page of 100 at ${side.label} orders, sequential`,
      p50: p50(side),
      p99: percentile([...side.since, ...side.cursor], 99),
      note: `p50 updated_since ${percentile(side.since, 50).toFixed(1)} ms, cursor ${percentile(side.cursor, 50).toFixed(1)} ms`,
    })
  }
  const [s, l] = sides as [ScaleSide, ScaleSide]
  const ratio = p50(l) / p50(s)
  checks.push({
    target: `PostgreSQL: GET /v1/orders p50 at ${l.label} / at ${s.label} orders <= 1.2`,
    measured: `${ratio.toFixed(2)} (${p50(l).toFixed(1)} ms / ${p50(s).toFixed(1)} ms)`,
    pass: ratio <= 1.2,
  })
}
