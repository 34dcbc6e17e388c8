import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { openDatabase } from '../../src/db/database.ts'
import {
  createTestApp,
  NEEDS_POSTGRESQL,
  orderBody,
  TEST_DATABASE_URL,
  type TestApp,
  type TestDatabase,
} from '../helpers/app.ts'
import { startAppBehindProxy } from '../helpers/app-behind-proxy.ts'
import type { TcpProxy } from '../helpers/tcp-proxy.ts'
import { waitUntil } from '../helpers/wait.ts'

// The service reaches PostgreSQL through a proxy that stalls, resets and refuses.
// Timeouts are short here; the defaults are 5 s each.
const TIMEOUTS = { connectMs: 1000, statementMs: 1000 }
/** Statement timeout + the client's extra second + a margin for a busy machine. */
const ANSWER_WITHIN_MS = 4500

async function timed(request: Promise<LightMyRequestResponse>) {
  const started = performance.now()
  const res = await request
  return { res, ms: performance.now() - started }
}

function assertUnavailable({ res, ms }: { res: LightMyRequestResponse; ms: number }, what: string) {
  assert.equal(res.statusCode, 503, `${what}: ${res.statusCode} ${res.body}`)
  assert.equal(res.json().error.code, 'service_unavailable', what)
  assert.ok(ms < ANSWER_WITHIN_MS, `${what} answered after ${ms.toFixed(0)} ms`)
}

describe('PostgreSQL unreachable, stalled or reset', { skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL }, () => {
  let testDb: TestDatabase
  let proxy: TcpProxy
  let t: TestApp
  let key: string
  let close: () => Promise<void>

  before(async () => {
    ;({ testDb, proxy, t, close } = await startAppBehindProxy(TIMEOUTS))
    key = (await t.tenant()).liveKey
  })
  after(() => close())

  const post = () => timed(t.api(key, 'POST', '/v1/orders', orderBody()))
  const list = () => timed(t.api(key, 'GET', '/v1/orders'))
  const ready = () => timed(t.app.inject({ method: 'GET', url: '/readyz' }))

  async function assertServing() {
    const created = await t.api(key, 'POST', '/v1/orders', orderBody())
    assert.equal(created.statusCode, 201, created.body)
    const listed = await t.api(key, 'GET', '/v1/orders?limit=100')
    assert.equal(listed.statusCode, 200, listed.body)
    assert.ok(listed.json().data.some((o: { id: string }) => o.id === created.json().data.order.id))
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200)
  }

  /**
   * Once PostgreSQL answers again the service serves again by itself: the
   * first order is created within seconds (a connection lost in the outage
   * can still time out once on a busy machine), then everything is served.
   */
  async function servedAgain() {
    let last = ''
    await waitUntil(
      async () => {
        const { res } = await post()
        last = `${res.statusCode} ${res.body}`
        return res.statusCode === 201
      },
      'an order created once PostgreSQL answers again',
      { timeoutMs: 20_000, intervalMs: 200, details: () => `last answer: ${last}` },
    )
    await assertServing()
  }

  test('stalled: requests and /readyz answer 503 within seconds; once it answers again, so does the service', async () => {
    await assertServing()
    proxy.stall()
    // More requests at once than the pool has connections: every connection
    // ends up waiting for an answer that was dropped.
    const answers = await Promise.all([post(), post(), post(), list(), list(), post(), ready()])
    for (const [i, answer] of answers.entries()) assertUnavailable(answer, `request ${i}`)
    proxy.resume()
    // No restart: connections whose answers were lost have been replaced.
    await servedAgain()
  })

  test('stalled, with the default timeouts: /readyz answers 503 within about a second, saying why', async () => {
    // The service's default timeouts (DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_CONNECT_TIMEOUT_MS).
    const timeouts = { connectMs: 5000, statementMs: 5000 }
    const defaults = (await openDatabase({ url: proxy.url(testDb.url!), poolSize: 2, timeouts })).db
    const app = await createTestApp({ testDb, db: defaults })
    try {
      const probe = () => timed(app.app.inject({ method: 'GET', url: '/readyz' }))
      assert.equal((await probe()).res.statusCode, 200)
      proxy.stall()
      // Probes every few hundred milliseconds, as an orchestrator sends them: each answers in time.
      for (let i = 0; i < 3; i++) {
        const { res, ms } = await probe()
        assert.equal(res.statusCode, 503, res.body)
        assert.equal(res.json().error.code, 'service_unavailable')
        assert.match(res.json().error.message, /did not answer within 1000 ms/)
        assert.ok(ms < 2500, `answered after ${ms.toFixed(0)} ms (the statement timeout is 5 s)`)
      }
      proxy.resume()
      await waitUntil(
        async () => (await probe()).res.statusCode === 200,
        'readyz 200 once PostgreSQL answers',
        20_000,
      )
    } finally {
      proxy.resume()
      await app.close()
      await defaults.destroy()
    }
  })

  test('connections refused: 503 service_unavailable, not 500; served again once PostgreSQL accepts', async () => {
    await proxy.refuse()
    assertUnavailable(await post(), 'POST /v1/orders')
    assertUnavailable(await list(), 'GET /v1/orders')
    assertUnavailable(await ready(), '/readyz')
    await proxy.accept()
    await servedAgain()
  })

  test('connections reset while requests wait: 503, then served again', async () => {
    proxy.stall()
    const pending = Promise.all([post(), list()])
    // Both requests' statements are held by the proxy, each on its connection.
    await waitUntil(() => proxy.waiting >= 2, 'both requests waiting on the stalled database', {
      details: () => `${proxy.waiting} connections waiting`,
    })
    proxy.reset()
    proxy.resume()
    const [created, listed] = await pending
    assertUnavailable(created, 'POST /v1/orders')
    assertUnavailable(listed, 'GET /v1/orders')
    await servedAgain()
  })

  test('closing does not hang on a stalled database', async () => {
    const other = (
      await openDatabase({
        url: proxy.url(testDb.url!),
        poolSize: 2,
        timeouts: TIMEOUTS,
      })
    ).db
    const app = await createTestApp({ testDb, db: other })
    const otherKey = (await app.tenant('Closing')).liveKey
    proxy.stall()
    const inFlight = app.api(otherKey, 'POST', '/v1/orders', orderBody())
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = performance.now()
    await app.close()
    await other.destroy()
    assert.ok(performance.now() - started < ANSWER_WITHIN_MS, 'closed in time')
    assert.equal((await inFlight).statusCode, 503)
    proxy.resume()
  })
})
