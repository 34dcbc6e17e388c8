import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { png } from './fixtures/files.ts'
import { NEEDS_POSTGRESQL, orderBody, TEST_DATABASE_URL } from './helpers/app.ts'
import { createPgDatabase, type PgDatabase } from './helpers/databases.ts'
import {
  callService,
  type ServiceProcess,
  spawnService,
  startServiceProcess,
} from './helpers/service-process.ts'
import { startTcpProxy } from './helpers/tcp-proxy.ts'

// Real service processes on one PostgreSQL database, empty at first: the first starts migrate it.
const TOKEN = 'op_instances_test_token'

const call = callService

async function liveKey(service: ServiceProcess): Promise<string> {
  const org = await call(service.port, TOKEN, 'POST', '/admin/v1/organizations', { name: 'Instances' })
  const key = await call(
    service.port,
    TOKEN,
    'POST',
    `/admin/v1/organizations/${org.body.data.organization.id}/api-keys`,
    {
      environment: 'live',
      scopes: ['orders:read', 'orders:write', 'files:write'],
    },
  )
  return key.body.data.key
}

describe('service processes on one PostgreSQL', { skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL }, () => {
  let database: PgDatabase
  const dirs: string[] = []
  const running: ServiceProcess[] = []
  let url: string

  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-instance-'))
    dirs.push(dir)
    return dir
  }
  const env = (dir: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: url,
    DATA_DIR: dir,
    OPERATOR_TOKEN: TOKEN,
    WEBHOOK_WORKER: 'off',
    ...extra,
  })
  const start = async (e: Record<string, string>) => {
    const service = await startServiceProcess(e)
    running.push(service)
    return service
  }

  before(async () => {
    database = await createPgDatabase(TEST_DATABASE_URL!, { migrated: false })
    url = database.url
  })
  after(async () => {
    for (const service of running) service.child.kill('SIGKILL')
    await Promise.all(running.map((s) => s.exited))
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  test('separate DATA_DIRs without S3: the second instance refuses to start, saying DATA_DIR must be shared or S3 configured', async () => {
    const first = await start(env(dataDir()))
    const second = spawnService(env(dataDir()))
    assert.equal(await second.exited, 2, second.output())
    assert.match(second.output(), /must share DATA_DIR .* or use the same S3 bucket/)
    assert.ok(second.output().includes(`pid ${first.child.pid}`), second.output())
    assert.doesNotMatch(second.output(), /service ready/)
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)
  })

  test('one shared DATA_DIR: both run, and a file uploaded through one is accepted in an order through the other', async () => {
    const dir = dataDir()
    const a = await start(env(dir))
    const b = await start(env(dir))
    const key = await liveKey(a)
    const slot = await call(a.port, key, 'POST', '/v1/uploads', { filename: 'art.png' })
    assert.equal(slot.status, 201)
    const signed = new URL(slot.body.data.upload_url)
    const put = await fetch(`http://127.0.0.1:${a.port}${signed.pathname}${signed.search}`, {
      method: 'PUT',
      body: new Uint8Array(png()),
    })
    assert.ok(put.ok, String(put.status))
    const items = [{ name: 'Poster', quantity: 1, files: [{ upload_id: slot.body.data.upload_id }] }]
    const created = await call(b.port, key, 'POST', '/v1/orders', orderBody({ items }))
    assert.equal(created.status, 201, JSON.stringify(created.body))
    for (const service of [a, b]) {
      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0)
    }
  })

  test('SIGTERM with PostgreSQL stalled: the request in flight gets 503 and the process exits 0 well before the forced exit', async () => {
    const proxy = await startTcpProxy(TEST_DATABASE_URL!)
    try {
      const service = await start(
        env(dataDir(), {
          DATABASE_URL: proxy.url(url),
          DATABASE_CONNECT_TIMEOUT_MS: '1000',
          DATABASE_STATEMENT_TIMEOUT_MS: '1000',
        }),
      )
      const key = await liveKey(service)
      proxy.stall()
      const inFlight = call(service.port, key, 'POST', '/v1/orders', orderBody())
      await new Promise((resolve) => setTimeout(resolve, 300))
      const started = performance.now()
      service.child.kill('SIGTERM')
      const answer = await inFlight
      assert.equal(answer.status, 503)
      assert.equal(answer.body.error.code, 'service_unavailable')
      assert.equal(await service.exited, 0, service.output())
      assert.ok(performance.now() - started < 10_000, 'exited in time')
    } finally {
      await proxy.close()
    }
  })

  test('two instances fold order changes once; after kill -9 of one under load, the figures are a full count', async () => {
    // A database of its own: an instance of an earlier test may still count as registered.
    const own = await createPgDatabase(TEST_DATABASE_URL!)
    const dir = dataDir()
    const ownEnv = () => ({ ...env(dir), DATABASE_URL: own.url })
    let a = await start(ownEnv())
    const b = await start(ownEnv())
    const key = await liveKey(a)
    const client = new pg.Client({ connectionString: own.url })
    await client.connect()
    try {
      const acknowledged: string[] = []
      let killed = false
      const send = async (n: number) => {
        const via = n % 2 === 0 ? a : b
        const items = [
          { sku: `SKU-${n % 3}`, name: 'Mug', quantity: 1 + (n % 4) },
          { sku: 'SHARED', name: 'Card', quantity: 1 },
        ]
        const res = await call(
          via.port,
          key,
          'POST',
          '/v1/orders',
          orderBody({ external_order_id: `kill-${n}`, items }),
        ).catch(() => undefined)
        if (res?.status === 201) acknowledged.push(res.body.data.order.id)
      }
      for (let n = 0; n < 240; n += 12) {
        await Promise.all(Array.from({ length: 12 }, (_, k) => send(n + k)))
        if (n >= 120 && !killed) {
          killed = true
          a.child.kill('SIGKILL')
          await a.exited
        }
      }
      a = await start(ownEnv())
      const stored = await client.query('select count(*)::int as n from orders')
      assert.ok(acknowledged.length >= 120)
      assert.equal(stored.rows[0].n >= acknowledged.length, true)
      // Both instances fold; the table empties within seconds.
      for (let i = 0; i < 100; i++) {
        const { rows } = await client.query('select count(*)::int as n from order_changes')
        if (rows[0].n === 0) break
        await new Promise((r) => setTimeout(r, 100))
      }
      const left = await client.query('select count(*)::int as n from order_changes')
      assert.equal(left.rows[0].n, 0)
      const folded = await client.query(`
        select status, sum(orders)::int as orders, sum(items)::int as items, sum(quantity)::int as quantity
        from order_daily_stats group by status order by status`)
      const counted = await client.query(`
        select o.status, count(distinct o.id)::int as orders, count(i.id)::int as items,
          sum(i.quantity)::int as quantity
        from orders o join order_items i on i.order_id = o.id
        where o.environment = 'live' group by o.status order by o.status`)
      assert.deepEqual(folded.rows, counted.rows)
      const skus = await client.query(
        'select sku, sum(items)::int as items, sum(orders)::int as orders from unmatched_skus group by sku order by sku',
      )
      const items = await client.query(`
        select sku, count(*)::int as items, count(distinct order_id)::int as orders from order_items
        where product_id is null and sku is not null group by sku order by sku`)
      assert.deepEqual(skus.rows, items.rows)
      assert.equal(
        counted.rows.reduce((sum, r) => sum + r.orders, 0),
        stored.rows[0].n,
      )
    } finally {
      await client.end()
      for (const service of [a, b]) {
        service.child.kill('SIGTERM')
        await service.exited
      }
    }
  })
})
