import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type Database, openDatabase } from '../../src/db/database.ts'
import { createMetrics } from '../../src/metrics.ts'
import {
  createTestApp,
  createTestDatabase,
  NEEDS_POSTGRESQL,
  TEST_DATABASE_URL,
  type TestApp,
  type TestDatabase,
} from '../helpers/app.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'

/**
 * A scrape never waits on the database: while it does not answer, GET /metrics
 * answers at once with the last queue figures read and metrics_stale_seconds
 * saying how old they are.
 */

/** A scrape answers within this, whatever the database does. */
const SCRAPE_WITHIN_MS = 500

function samples(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

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

describe('GET /metrics while PostgreSQL is stalled', { skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL }, () => {
  let testDb: TestDatabase
  let proxy: TcpProxy
  let db: Database
  let t: TestApp

  before(async () => {
    testDb = await createTestDatabase()
    proxy = await startTcpProxy(TEST_DATABASE_URL!)
    db = (
      await openDatabase({
        url: proxy.url(testDb.url!),
        poolSize: 4,
        timeouts: { connectMs: 1000, statementMs: 1000 },
      })
    ).db
    t = await createTestApp({ testDb, db, metrics: createMetrics() })
  })
  after(async () => {
    await proxy.close()
    await t.close()
    await db.destroy()
    await testDb.close()
  })

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
