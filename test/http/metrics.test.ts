import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { type Database, openDatabase } from '../../src/db/database.ts'
import { serveMetrics } from '../../src/http/metrics.ts'
import { createMetrics, type Metrics, observePools } from '../../src/metrics.ts'
import { png } from '../fixtures/files.ts'
import {
  createTestApp,
  createTestDatabase,
  DIALECT,
  manualClock,
  NEEDS_POSTGRESQL,
  OPERATOR_TOKEN,
  orderBody,
  TEST_DATABASE_URL,
  type TestApp,
  type TestDatabase,
} from '../helpers/app.ts'
import { startAppBehindProxy } from '../helpers/app-behind-proxy.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import type { TcpProxy } from '../helpers/tcp-proxy.ts'

/** `name{labels} value` lines of a Prometheus text exposition. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

describe('after real traffic', () => {
  const LIMIT = 10

  describe('GET /metrics after real traffic', () => {
    const clock = manualClock()
    let t: TestApp
    let metrics: Metrics
    before(async () => {
      metrics = createMetrics()
      t = await createTestApp({
        clock,
        metrics,
        rateLimitPerMinute: LIMIT,
        resolver: loopbackResolver,
        webhookAllowPrivateCidrs: ['127.0.0.0/8'],
      })
      observePools(metrics, { api: t.testDb.poolStats })
    })
    after(() => t.close())

    const scrape = async () => {
      const res = await t.admin('GET', '/metrics')
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
      return samples(res.body)
    }

    test('needs the operator token', async () => {
      const res = await t.api(undefined, 'GET', '/metrics')
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'invalid_operator_token')
    })

    test('counts orders, uploads, refusals, rate limiting, webhook attempts, the queue and the pool', async () => {
      const shop = await t.tenant('Shop')
      const a = await t.tenant('A')
      const b = await t.tenant('B')
      // Orders: one test, two live, one repeat (not created), one shop order.
      const first = orderBody()
      assert.equal((await t.api(a.testKey, 'POST', '/v1/orders', first)).statusCode, 201)
      assert.equal((await t.api(a.testKey, 'POST', '/v1/orders', first)).statusCode, 200)
      for (let i = 0; i < 2; i++)
        assert.equal((await t.api(a.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      const shopOrder = await t.admin(
        'POST',
        `/admin/v1/organizations/${shop.orgId}/shop-orders`,
        orderBody(),
      )
      assert.equal(shopOrder.statusCode, 201, shopOrder.body)

      // An upload received, one refused at the PUT, one refused when an order references it.
      const slot = new URL(
        (await t.api(a.testKey, 'POST', '/v1/uploads', { filename: 'a.png' })).json().data.upload_url,
      )
      const put = (search: string) =>
        t.app.inject({ method: 'PUT', url: slot.pathname + search, payload: png() })
      assert.equal((await put(slot.search)).statusCode, 200)
      assert.equal((await put(slot.search.replace(/signature=[^&]+/, 'signature=forged'))).statusCode, 403)
      const missing = orderBody({
        items: [{ name: 'Card', quantity: 1, files: [{ upload_id: randomUUID() }] }],
      })
      const refused = await t.api(a.testKey, 'POST', '/v1/orders', missing)
      assert.equal(refused.statusCode, 422, refused.body)

      // B's test key goes over its limit once.
      for (let i = 0; i < LIMIT; i++) await t.api(b.testKey, 'GET', '/v1/ping')
      assert.equal((await t.api(b.testKey, 'GET', '/v1/ping')).statusCode, 429)

      // A webhook ping waits in the queue (no worker runs) while 90 s pass.
      const endpoint = await t.api(b.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: 'https://webhook.test/h',
      })
      assert.equal(endpoint.statusCode, 201, endpoint.body)
      const ping = await t.api(
        b.liveKey,
        'POST',
        `/v1/webhook-endpoints/${endpoint.json().data.endpoint.id}/test`,
      )
      assert.equal(ping.statusCode, 202, ping.body)
      clock.advance(90_000)
      const queued = await t.db
        .selectFrom('webhook_queue')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('next_attempt_at').as('oldest')])
        .executeTakeFirstOrThrow()

      // What the dispatcher reports through its observer.
      metrics.webhookObserver.attempted('timeout', 10_000)
      metrics.webhookObserver.attempted('succeeded', 120)
      metrics.webhookObserver.attempted('succeeded', 80)

      const m = await scrape()
      assert.equal(m.get('orders_created_total{environment="test",source="api"}'), 1)
      assert.equal(m.get('orders_created_total{environment="live",source="api"}'), 2)
      assert.equal(m.get('orders_created_total{environment="live",source="shop"}'), 1)
      assert.equal(m.get('upload_slots_created_total{environment="test"}'), 1)
      assert.equal(m.get('uploads_received_total'), 1)
      assert.equal(m.get('upload_received_bytes_total'), png().length)
      assert.equal(m.get('uploads_refused_total{reason="upload_url_invalid"}'), 1)
      assert.equal(m.get('uploads_refused_total{reason="file_not_found"}'), 1)
      assert.equal(m.get('rate_limit_rejections_total{environment="test"}'), 1)
      assert.equal(m.get('webhook_attempts_total{outcome="succeeded"}'), 2)
      assert.equal(m.get('webhook_attempts_total{outcome="timeout"}'), 1)
      assert.equal(m.get('webhook_attempt_duration_seconds_count{outcome="succeeded"}'), 2)
      assert.equal(m.get('webhook_attempt_duration_seconds_sum{outcome="timeout"}'), 10)
      assert.ok(Number(queued.n) >= 1)
      assert.equal(m.get('webhook_queue_attempts'), Number(queued.n))
      assert.equal(m.get('webhook_queue_due_attempts'), Number(queued.n))
      const oldestAge = (clock.now().getTime() - new Date(queued.oldest as Date).getTime()) / 1000
      assert.ok(oldestAge >= 90)
      assert.equal(m.get('webhook_queue_oldest_due_age_seconds'), oldestAge)
      assert.equal(
        m.get('http_request_duration_seconds_count{method="POST",route="/v1/orders",status_code="201"}'),
        3,
      )
      assert.equal(
        m.get('http_request_duration_seconds_count{method="GET",route="/v1/ping",status_code="429"}'),
        1,
      )
      assert.equal(m.get('db_pool_max_connections{pool="api"}'), DIALECT === 'pglite' ? 1 : 20)
      assert.ok(m.get('db_pool_waiting_queries{pool="api"}')! >= 0)
      assert.ok(m.has('db_pool_connections{pool="api",state="idle"}'))
    })
  })

  describe('METRICS_PORT', () => {
    test('serves the same metrics on a port of their own, without a token; the API port then has none', async () => {
      const metrics = createMetrics()
      const t = await createTestApp({ metrics, metricsOnApiPort: false })
      const server = await serveMetrics(metrics, { port: 0, host: '127.0.0.1' })
      try {
        const { orgId } = await t.tenant()
        const res = await fetch(`http://127.0.0.1:${server.port}/metrics`)
        assert.equal(res.status, 200)
        const m = samples(await res.text())
        const created = '{method="POST",route="/admin/v1/organizations",status_code="201"}'
        assert.equal(m.get(`http_request_duration_seconds_count${created}`), 1, orgId)
        assert.equal((await fetch(`http://127.0.0.1:${server.port}/`)).status, 404)
        const onApi = await t.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        })
        assert.equal(onApi.statusCode, 404)
      } finally {
        await server.close()
        await t.close()
      }
    })
  })
})

describe('database outage', () => {
  /**
   * A scrape never waits on the database: while it does not answer, GET /metrics
   * answers at once with the last queue figures read and metrics_stale_seconds
   * saying how old they are.
   */

  /** A scrape answers within this, whatever the database does. */
  const SCRAPE_WITHIN_MS = 500

  /** GET /metrics, timed; a scrape that has not answered after 3 s fails instead of hanging the suite. */
  async function scrape(t: TestApp) {
    const started = performance.now()
    const res = await Promise.race([
      t.admin('GET', '/metrics'),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('GET /metrics did not answer within 3 s')), 3000).unref(),
      ),
    ])
    const ms = performance.now() - started
    assert.equal(res.statusCode, 200, res.body)
    return { m: samples(res.body), ms }
  }

  /** Queues a ping for a new live endpoint of a new organization: one more queued attempt. */
  async function queuePing(t: TestApp, name: string) {
    const key = (await t.tenant(name)).liveKey
    const created = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: `https://webhook.test/${name}` })
    assert.equal(created.statusCode, 201, created.body)
    const ping = await t.api(key, 'POST', `/v1/webhook-endpoints/${created.json().data.endpoint.id}/test`)
    assert.equal(ping.statusCode, 202, ping.body)
  }

  describe('GET /metrics while the database does not answer', () => {
    let testDb: TestDatabase
    let db: Database
    let t: TestApp

    before(async () => {
      testDb = await createTestDatabase()
      // One connection (as the embedded database has), so holding it stalls every query.
      db = testDb.url ? (await openDatabase({ url: testDb.url, poolSize: 1 })).db : testDb.db
      t = await createTestApp({
        testDb,
        db,
        metrics: createMetrics(),
        resolver: loopbackResolver,
        webhookAllowPrivateCidrs: ['127.0.0.0/8'],
      })
    })
    after(async () => {
      await t.close()
      if (db !== testDb.db) await db.destroy()
      await testDb.close()
    })

    test('answers at once with the last figures and their age; fresh ones once the database answers', async () => {
      await queuePing(t, 'before')
      const fresh = await scrape(t)
      assert.equal(fresh.m.get('webhook_queue_attempts'), 1)
      assert.ok(fresh.m.get('metrics_stale_seconds')! < 0.25, `stale ${fresh.m.get('metrics_stale_seconds')}`)

      // Every connection is taken and stays taken: the queue cannot be read.
      let release!: () => void
      const held = db.connection().execute(
        () =>
          new Promise<void>((resolve) => {
            release = resolve
          }),
      )
      await new Promise((resolve) => setTimeout(resolve, 50))
      for (let i = 0; i < 3; i++) {
        const stalled = await scrape(t)
        assert.ok(stalled.ms < SCRAPE_WITHIN_MS, `scrape ${i} answered after ${stalled.ms.toFixed(0)} ms`)
        assert.equal(stalled.m.get('webhook_queue_attempts'), 1, 'the last figures')
        assert.ok(
          stalled.m.get('metrics_stale_seconds')! > 0.2,
          `stale ${stalled.m.get('metrics_stale_seconds')}`,
        )
      }
      release()
      await held

      await queuePing(t, 'after')
      const again = await scrape(t)
      assert.equal(again.m.get('webhook_queue_attempts'), 2)
      assert.ok(again.m.get('metrics_stale_seconds')! < 0.25, `stale ${again.m.get('metrics_stale_seconds')}`)
    })
  })

  describe('GET /metrics while PostgreSQL is stalled', {
    skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL,
  }, () => {
    let proxy: TcpProxy
    let t: TestApp
    let close: () => Promise<void>

    before(async () => {
      ;({ proxy, t, close } = await startAppBehindProxy(
        { connectMs: 1000, statementMs: 1000 },
        { metrics: createMetrics() },
      ))
    })
    after(() => close())

    test('every scrape answers within 500 ms, the figures growing stale; fresh again once it answers', async () => {
      const before = await scrape(t)
      assert.equal(before.m.get('webhook_queue_attempts'), 0)
      proxy.stall()
      const started = performance.now()
      let stale = 0
      // Past the client-side statement timeout (2 s here), so a scrape meets a read that is given up too.
      while (performance.now() - started < 2500) {
        const stalled = await scrape(t)
        assert.ok(stalled.ms < SCRAPE_WITHIN_MS, `answered after ${stalled.ms.toFixed(0)} ms`)
        assert.equal(stalled.m.get('webhook_queue_attempts'), 0, 'the last figures')
        assert.ok(stalled.m.get('metrics_stale_seconds')! > stale, 'staler with every scrape')
        stale = stalled.m.get('metrics_stale_seconds')!
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      assert.ok(stale > 2, `stale ${stale}`)
      proxy.resume()
      // The connection that lost its answer is replaced; the next read succeeds.
      let fresh = Number.POSITIVE_INFINITY
      for (let i = 0; i < 20 && fresh >= 0.25; i++) {
        fresh = (await scrape(t)).m.get('metrics_stale_seconds')!
        if (fresh >= 0.25) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.ok(fresh < 0.25, `stale ${fresh} after the database answers again`)
    })
  })
})
