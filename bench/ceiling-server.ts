// The ceiling for POST /v1/orders: a bare Fastify route that writes exactly what the
// reference requires for an order, and nothing optional, in ONE prepared statement of
// data-modifying CTEs (one round trip):
// - the order: an app-generated UUIDv7, the content hash that tells an identical
//   repeat from a different body, ON CONFLICT DO NOTHING on the unique index on
//   (organization, environment, external_order_id), and the polling index on
//   (organization, environment, updated_at, id);
// - its items (one JSON document read by json_to_recordset);
// - for a live order its production order and one job per item, and its
//   order.received event row (the outbox of webhooks and polling of events).
// A live 3-item order is 9 rows. No authentication, no validation, no statistics,
// no search indexes, no foreign keys: the tables live in a schema of their own
// (`ceiling`) with only the keys above. Started as a child process by orders.bench.ts.
//
// GET /v1/orders?limit=&updated_since=&cursor= is the ceiling of a polling page, over
// the orders the service wrote (PostgreSQL only): one prepared statement ranges over
// the polling index for limit + 1 orders, reads each order's items, their jobs and
// files by index, and has PostgreSQL write each order's JSON in the service's bytes
// (the service's own expression, ORDER_JSON); Node joins the texts, applies the 8 MB
// budget as the service does (content_bytes + 512 an order) and writes the same
// keyset cursor.
//
//   CEILING_DB=pg          DATABASE_URL, ORG_IDS (comma-separated, used in turn): a pg pool
//   CEILING_DB=pglite      DATA_DIR: embedded PGlite (durable, as the service opens it)
//                          through PGlite's own query()
//   CEILING_DB=pglite-pg   DATA_DIR: the same through node-postgres with named prepared
//                          statements, one client, as the service drives it
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import Fastify from 'fastify'
import pg from 'pg'
import { v7 } from 'uuid'
import { durablePgliteOptions } from '../src/db/embedded.ts'
import { ORDER_JSON } from '../src/modules/orders/orders-pages.repo.ts'
import { ORDER_OVERHEAD_BYTES, PAGE_BUDGET_BYTES } from '../src/modules/orders/page-budget.ts'

interface CeilingOrder {
  external_order_id: string
  customer: { name: string; email?: string | null; phone?: string | null }
  currency?: string | null
  total_amount?: number | null
  ordered_at?: string | null
  items: {
    sku?: string | null
    name: string
    quantity: number
    price?: number | null
    personalization?: Record<string, unknown>
    files?: unknown[]
  }[]
}

const SCHEMA = `
drop schema if exists ceiling cascade;
create schema ceiling;
create table ceiling.orders (
  id uuid primary key, organization_id uuid not null, environment text not null,
  external_order_id text not null, status text not null, currency text, total_amount numeric,
  customer_name text not null, customer_email text, customer_phone text, ordered_at timestamptz,
  created_at timestamptz not null, updated_at timestamptz not null, content_hash text not null,
  unique (organization_id, environment, external_order_id));
create index on ceiling.orders (organization_id, environment, updated_at, id);
create table ceiling.order_items (
  id uuid primary key, order_id uuid not null, position int not null, sku text, name text not null,
  quantity int not null, price numeric, personalization json not null, files json not null);
create index on ceiling.order_items (order_id, position);
create table ceiling.production_orders (
  id uuid primary key, order_id uuid not null, status text not null,
  created_at timestamptz not null, updated_at timestamptz not null);
create table ceiling.production_jobs (
  id uuid primary key, production_order_id uuid not null, order_item_id uuid not null,
  status text not null, created_at timestamptz not null, updated_at timestamptz not null);
create table ceiling.events (
  id uuid primary key, organization_id uuid not null, environment text not null, type text not null,
  order_id uuid, data json not null, created_at timestamptz not null);
`

const INSERT = `
with item_input as (
  select * from json_to_recordset($14::json)
    as i(id uuid, job_id uuid, position int, sku text, name text, quantity int, price numeric,
      personalization json, files json)
), o as (
  insert into ceiling.orders (id, organization_id, environment, external_order_id, status, currency,
    total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at,
    content_hash)
  values ($1::uuid, $2::uuid, $3::text, $4::text, 'pending', $5::text, $6::numeric, $7::text, $8::text,
    $9::text, $10::timestamptz, $11::timestamptz, $11::timestamptz, $12::text)
  on conflict (organization_id, environment, external_order_id) do nothing
  returning id
), i as (
  insert into ceiling.order_items (id, order_id, position, sku, name, quantity, price, personalization, files)
  select i.id, o.id, i.position, i.sku, i.name, i.quantity, i.price, i.personalization, i.files
  from o cross join item_input i
), po as (
  insert into ceiling.production_orders (id, order_id, status, created_at, updated_at)
  select $13::uuid, o.id, 'pending', $11::timestamptz, $11::timestamptz from o where $3::text = 'live'
  returning id
), j as (
  insert into ceiling.production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
  select i.job_id, po.id, i.id, 'pending', $11::timestamptz, $11::timestamptz from po cross join item_input i
), e as (
  insert into ceiling.events (id, organization_id, environment, type, order_id, data, created_at)
  select $15::uuid, $2::uuid, $3::text, 'order.received', o.id, $16::json, $11::timestamptz from o
)
select exists (select 1 from o) as inserted`

// Each order's JSON in the service's bytes (the expression its own statement uses).
const PAGE = `
with page as (
  select * from public.orders
  where organization_id = $1::uuid and environment = 'live' and updated_at >= $2::timestamptz
    and (updated_at, id) > ($3::timestamptz, $4::uuid)
  order by updated_at, id
  limit $5::int
)
select o.id, o.updated_at, o.content_bytes, ${ORDER_JSON} as json
from page o
order by o.updated_at, o.id`
const NIL = '00000000-0000-0000-0000-000000000000'

type Insert = (params: unknown[]) => Promise<boolean>

interface PageRow {
  id: string
  updated_at: Date
  content_bytes: number
  json: string
}

interface Store {
  insert: Insert
  page?: (params: unknown[]) => Promise<PageRow[]>
  close: () => Promise<void>
}

function paramsFor(orgId: string, body: CeilingOrder): { orderId: string; params: unknown[] } {
  const now = new Date()
  const orderId = v7()
  const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex')
  const items = body.items.map((item, position) => ({
    id: v7(),
    job_id: v7(),
    position,
    sku: item.sku ?? null,
    name: item.name,
    quantity: item.quantity,
    price: item.price ?? null,
    personalization: item.personalization ?? {},
    files: item.files ?? [],
  }))
  const params = [
    orderId,
    orgId,
    'live',
    body.external_order_id,
    body.currency ?? null,
    body.total_amount ?? null,
    body.customer.name,
    body.customer.email ?? null,
    body.customer.phone ?? null,
    body.ordered_at ? new Date(body.ordered_at) : now,
    now,
    hash,
    v7(),
    JSON.stringify(items),
    v7(),
    JSON.stringify({ order_id: orderId, external_order_id: body.external_order_id }),
  ]
  return { orderId, params }
}

function storeOnPool(pool: pg.Pool, close: () => Promise<void>): Store {
  pool.on('error', () => {})
  return {
    insert: async (values) => {
      const { rows } = await pool.query({ name: 'ceiling_order', text: INSERT, values })
      return rows[0]!.inserted as boolean
    },
    close,
  }
}

async function openPg(): Promise<Store> {
  const setup = new pg.Client({ connectionString: process.env.DATABASE_URL })
  await setup.connect()
  await setup.query(SCHEMA)
  await setup.end()
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.POOL_SIZE ?? 10),
  })
  return {
    ...storeOnPool(pool, () => pool.end()),
    page: async (values) => (await pool.query<PageRow>({ name: 'ceiling_page', text: PAGE, values })).rows,
  }
}

async function openEmbedded(): Promise<PGlite> {
  const dir = join(process.env.DATA_DIR!, 'pgdata')
  mkdirSync(dir, { recursive: true })
  const pglite = await PGlite.create(dir, durablePgliteOptions(dir))
  await pglite.exec(SCHEMA)
  return pglite
}

async function openPglite(): Promise<Store> {
  const pglite = await openEmbedded()
  return {
    insert: async (params) => (await pglite.query<{ inserted: boolean }>(INSERT, params)).rows[0]!.inserted,
    close: () => pglite.close(),
  }
}

async function openPgliteThroughPg(): Promise<Store> {
  const pglite = await openEmbedded()
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, idleTimeoutMillis: 0 } as pg.PoolConfig)
  // PGlite has no autovacuum: the first page gathers the statistics a running
  // database would have (the service gathers them as its tables grow).
  let analyzed: Promise<unknown> | undefined
  return {
    ...storeOnPool(pool, async () => {
      await pool.end()
      await pglite.close()
    }),
    page: async (values) => {
      analyzed ??= pool.query('analyze')
      await analyzed
      return (await pool.query<PageRow>({ name: 'ceiling_page', text: PAGE, values })).rows
    },
  }
}

const mode = process.env.CEILING_DB ?? 'pg'
const store =
  mode === 'pg' ? await openPg() : mode === 'pglite-pg' ? await openPgliteThroughPg() : await openPglite()
const orgIds = process.env.ORG_IDS?.split(',') ?? [v7()]

let requests = 0
const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 })
app.get('/healthz', async () => ({ status: 'ok' }))
app.post('/v1/orders', async (request, reply) => {
  const body = request.body as CeilingOrder
  const { orderId, params } = paramsFor(orgIds[requests++ % orgIds.length]!, body)
  const inserted = await store.insert(params)
  reply.code(inserted ? 201 : 200)
  return { data: { order: { id: orderId, external_order_id: body.external_order_id } } }
})

app.get('/v1/orders', async (request, reply) => {
  if (!store.page) {
    reply.code(404)
    return { error: 'PostgreSQL and PGlite through node-postgres only' }
  }
  const query = request.query as { limit?: string; updated_since?: string; cursor?: string }
  const limit = Number(query.limit ?? 50)
  const [at, id] = query.cursor
    ? Buffer.from(query.cursor, 'base64url').toString('utf8').split('|')
    : ['1970-01-01T00:00:00.000Z', NIL]
  const rows = await store.page([
    orgIds[requests++ % orgIds.length],
    query.updated_since ?? '1970-01-01T00:00:00.000Z',
    at,
    id,
    limit + 1,
  ])
  // The service's rule: the first order always, then while within the budget.
  let shown = Math.min(rows.length, limit)
  let bytes = 0
  for (let n = 0; n < shown; n++) {
    bytes += rows[n]!.content_bytes + ORDER_OVERHEAD_BYTES
    if (n > 0 && bytes > PAGE_BUDGET_BYTES) shown = n
  }
  const last = rows[shown - 1]
  const next =
    rows.length > shown && last
      ? Buffer.from(`${last.updated_at.toISOString()}|${last.id}`, 'utf8').toString('base64url')
      : null
  reply.type('application/json; charset=utf-8')
  const data = rows
    .slice(0, shown)
    .map((r) => r.json)
    .join(',')
  return `{"data":[${data}],"next_cursor":${JSON.stringify(next)}}`
})

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })

async function shutdown() {
  await app.close()
  await store.close()
  process.exit(0)
}
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)
