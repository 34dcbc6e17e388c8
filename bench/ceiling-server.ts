// The ceiling for POST /v1/orders: a bare Fastify route that inserts the same order
// row and item rows as the service, in one transaction, and nothing else (no auth,
// no validation, no duplicate check, no production rows, no event). Started as a
// child process by orders.bench.ts.
//
//   CEILING_DB=pg             DATABASE_URL (already migrated), ORG_IDS (comma-separated, used in
//                             turn); pg pool with named prepared statements (BEGIN / INSERT / INSERT / COMMIT)
//   CEILING_DB=pglite         DATA_DIR: embedded PGlite on the event loop through PGlite's own
//                             query() and transaction() (each statement parsed and planned anew)
//   CEILING_DB=pglite-pg      DATA_DIR: the same PGlite driven through node-postgres, as the service
//                             runs it: named prepared statements (BEGIN / INSERT / INSERT / COMMIT)
//
// POST /v1/orders-lean is a what-if, not a ceiling: everything the service writes for
// a live order (order, items linked to products by sku, production order, jobs,
// order.received event), preceded by the API key lookup: two statements, named
// prepared statements on pg. API_KEYS (comma-separated) are registered on PGlite.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { createPgConfig } from '@electric-sql/pglite/node-postgres'
import Fastify from 'fastify'
import { Kysely, PGliteDialect } from 'kysely'
import pg from 'pg'
import { v7 } from 'uuid'
import { migrateToLatest } from '../src/db/database.ts'
import { durablePgliteOptions } from '../src/db/embedded.ts'
import type { DB } from '../src/db/schema.ts'

interface CeilingItem {
  sku?: string | null
  name: string
  quantity: number
  price?: number | null
  personalization?: Record<string, unknown>
  files?: unknown[]
}

interface CeilingOrder {
  external_order_id: string
  customer: { name: string; email?: string | null; phone?: string | null }
  currency?: string | null
  total_amount?: number | null
  ordered_at?: string | null
  items: CeilingItem[]
}

const ORDER_COLUMNS =
  'id, organization_id, environment, source, external_order_id, status, currency, total_amount, ' +
  'customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at, content_hash'
const ITEM_COLUMNS =
  'id, order_id, organization_id, position, sku, name, quantity, price, product_id, personalization, files'
const ITEM_WIDTH = 11

const INSERT_ORDER = `insert into orders (${ORDER_COLUMNS}) values (${placeholders(0, 15)})`

function placeholders(offset: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${offset + i + 1}`).join(', ')
}

function insertItemsSql(count: number): string {
  const rows = Array.from({ length: count }, (_, r) => `(${placeholders(r * ITEM_WIDTH, ITEM_WIDTH)})`)
  return `insert into order_items (${ITEM_COLUMNS}) values ${rows.join(', ')}`
}

const itemSqlCache = new Map<number, string>()
function itemsSql(count: number): string {
  let text = itemSqlCache.get(count)
  if (!text) {
    text = insertItemsSql(count)
    itemSqlCache.set(count, text)
  }
  return text
}

type Insert = (orderParams: unknown[], itemParams: unknown[], itemCount: number) => Promise<void>
/** One statement outside an explicit transaction; on pg a named prepared statement. */
type Query = (name: string, text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>

interface Store {
  insert: Insert
  query: Query
  orgIds: string[]
  close: () => Promise<void>
}

const AUTH_SQL =
  'select k.id, k.organization_id, k.environment, k.scopes, k.expires_at, k.revoked_at, o.name as organization_name ' +
  'from api_keys k join organizations o on o.id = k.organization_id where k.key_hash = $1'

const LEAN_ITEM_WIDTH = 8
const LEAN_FIXED = 19

/** The service's writes for a live order as one statement of data-modifying CTEs. */
function leanSql(count: number): string {
  const values = Array.from({ length: count }, (_, r) => {
    const p = (k: number) => `$${LEAN_FIXED + r * LEAN_ITEM_WIDTH + k}`
    return `(${p(1)}::uuid, ${p(2)}::int, ${p(3)}::text, ${p(4)}::text, ${p(5)}::int, ${p(6)}::numeric, ${p(7)}::json, ${p(8)}::json)`
  })
  return `with o as (
  insert into orders (${ORDER_COLUMNS}) values (${placeholders(0, 15)})
  on conflict (organization_id, environment, external_order_id) do nothing
  returning id, organization_id, environment, created_at
), v (id, position, sku, name, quantity, price, personalization, files) as (values ${values.join(', ')}),
i as (
  insert into order_items (${ITEM_COLUMNS})
  select v.id, o.id, o.organization_id, v.position, v.sku, v.name, v.quantity, v.price, p.id, v.personalization, v.files
  from o cross join v left join products p on p.organization_id = o.organization_id and p.sku = v.sku
  returning id, product_id
), po as (
  insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
  select $16::uuid, o.id, 'pending', false, o.created_at, o.created_at from o
  returning id
), j as (
  insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
  select gen_random_uuid(), po.id, i.id, 'pending', $13::timestamptz, $13::timestamptz from po cross join i
  returning id, order_item_id
), e as (
  insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
  select $17::uuid, o.organization_id, o.environment, 'order.received', o.id, $18::json, $19::text, o.created_at
  from o
)
select o.id, (select json_agg(i) from i) as items, (select json_agg(j) from j) as jobs from o`
}

const leanSqlCache = new Map<number, string>()
function leanSqlFor(count: number): string {
  let text = leanSqlCache.get(count)
  if (!text) {
    text = leanSql(count)
    leanSqlCache.set(count, text)
  }
  return text
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

function rowsFor(orgId: string, body: CeilingOrder) {
  const now = new Date()
  const orderId = v7()
  const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex')
  const orderParams = [
    orderId,
    orgId,
    'live',
    'api',
    body.external_order_id,
    'pending',
    body.currency ?? null,
    body.total_amount ?? null,
    body.customer.name,
    body.customer.email ?? null,
    body.customer.phone ?? null,
    body.ordered_at ? new Date(body.ordered_at) : now,
    now,
    now,
    hash,
  ]
  const itemParams = body.items.flatMap((item, position) => [
    v7(),
    orderId,
    orgId,
    position,
    item.sku ?? null,
    item.name,
    item.quantity,
    item.price ?? null,
    null,
    JSON.stringify(item.personalization ?? {}),
    JSON.stringify(item.files ?? []),
  ])
  return { orderId, orderParams, itemParams }
}

async function openPg(): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: Number(process.env.POOL_SIZE ?? 10),
  })
  return storeOnPool(pool, process.env.ORG_IDS!.split(','))
}

function storeOnPool(pool: pg.Pool, orgIds: string[]): Store {
  pool.on('error', () => {})
  const insert: Insert = async (orderParams, itemParams, itemCount) => {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query({ name: 'ceiling_order', text: INSERT_ORDER, values: orderParams })
      await client.query({
        name: `ceiling_items_${itemCount}`,
        text: itemsSql(itemCount),
        values: itemParams,
      })
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    } finally {
      client.release()
    }
  }
  const query: Query = (name, text, values) => pool.query({ name, text, values })
  return { insert, query, orgIds, close: () => pool.end() }
}

/** PGlite in DATA_DIR with the service's schema (Kysely for the migration only) and one organization. */
async function openMigratedPglite(): Promise<{ pglite: PGlite; orgId: string }> {
  const dir = join(process.env.DATA_DIR!, 'pgdata')
  mkdirSync(dir, { recursive: true })
  const pglite = await PGlite.create(dir, durablePgliteOptions(dir))
  await migrateToLatest(new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) }))
  return { pglite, orgId: await registerTenant(pglite) }
}

async function openPglite(): Promise<Store> {
  const { pglite, orgId } = await openMigratedPglite()
  const insert: Insert = async (orderParams, itemParams, itemCount) => {
    await pglite.transaction(async (tx) => {
      await tx.query(INSERT_ORDER, orderParams)
      await tx.query(itemsSql(itemCount), itemParams)
    })
  }
  const query: Query = (_name, text, params) => pglite.query(text, params)
  return { insert, query, orgIds: [orgId], close: () => pglite.close() }
}

/** PGlite through node-postgres with named prepared statements, one client as the service holds. */
async function openPgliteThroughPg(): Promise<Store> {
  const { pglite, orgId } = await openMigratedPglite()
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, idleTimeoutMillis: 0 } as pg.PoolConfig)
  const store = storeOnPool(pool, [orgId])
  return {
    ...store,
    close: async () => {
      await store.close()
      await pglite.close()
    },
  }
}

async function registerTenant(pglite: PGlite): Promise<string> {
  const orgId = v7()
  await pglite.query('insert into organizations (id, name, created_at) values ($1, $2, $3)', [
    orgId,
    'ceiling',
    new Date(),
  ])
  for (const key of (process.env.API_KEYS ?? '').split(',').filter(Boolean)) {
    await pglite.query(
      'insert into api_keys (id, organization_id, environment, scopes, key_prefix, key_hash, created_at) ' +
        "values ($1, $2, 'live', $3, $4, $5, $6)",
      [v7(), orgId, ['orders:read', 'orders:write'], key.slice(0, 17), sha256(key), new Date()],
    )
  }
  return orgId
}

const mode = process.env.CEILING_DB ?? 'pg'
const store =
  mode === 'pg' ? await openPg() : mode === 'pglite-pg' ? await openPgliteThroughPg() : await openPglite()

let requests = 0
const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 })
app.get('/healthz', async () => ({ status: 'ok' }))
app.post('/v1/orders', async (request, reply) => {
  const body = request.body as CeilingOrder
  const orgId = store.orgIds[requests++ % store.orgIds.length]!
  const { orderId, orderParams, itemParams } = rowsFor(orgId, body)
  await store.insert(orderParams, itemParams, body.items.length)
  reply.code(201)
  return { data: { order: { id: orderId, external_order_id: body.external_order_id } } }
})

app.post('/v1/orders-lean', async (request, reply) => {
  const body = request.body as CeilingOrder
  const header = request.headers.authorization ?? ''
  const { rows: keys } = await store.query('lean_auth', AUTH_SQL, [sha256(header.slice('Bearer '.length))])
  const key = keys[0]
  if (!key || key.revoked_at) {
    reply.code(401)
    return { error: { code: 'invalid_api_key' } }
  }
  const orgId = key.organization_id as string
  const { orderId, orderParams } = rowsFor(orgId, body)
  const now = orderParams[12]
  const eventId = v7()
  const data = { order_id: orderId, external_order_id: body.external_order_id }
  const params: unknown[] = [
    ...orderParams,
    v7(),
    eventId,
    JSON.stringify(data),
    // The body every delivery of the event sends, as the service stores it.
    JSON.stringify({
      id: eventId,
      type: 'order.received',
      created_at: (now as Date).toISOString(),
      api_version: 'v1',
      data,
    }),
  ]
  body.items.forEach((item, position) => {
    params.push(
      v7(),
      position,
      item.sku ?? null,
      item.name,
      item.quantity,
      item.price ?? null,
      JSON.stringify(item.personalization ?? {}),
      JSON.stringify(item.files ?? []),
    )
  })
  const n = body.items.length
  const { rows } = await store.query(`lean_${n}`, leanSqlFor(n), params)
  if (rows.length === 0) {
    reply.code(200)
    return { data: { order: null, created_at: now } }
  }
  reply.code(201)
  return {
    data: { order: { id: orderId, external_order_id: body.external_order_id, items: rows[0]!.items } },
  }
})

await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' })

async function shutdown() {
  await app.close()
  await store.close()
  process.exit(0)
}
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)
