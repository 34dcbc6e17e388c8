import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createMemoryRateLimiter } from '../../../../src/http/rate-limit.ts'
import { EVENT_TYPES } from '../../../../src/modules/webhooks/outbox/events.ts'
import { orderBody, rowCounts } from '../../../helpers/app.ts'
import { openStream, type SseFrame, useListenApp } from '../../../helpers/sse.ts'

describe('stream', () => {
  // Listen streams over real HTTP (an in-process app listening on a free port).
  const ctx = useListenApp({
    listenTimings: { keepaliveMs: 100, pollMs: 200 },
    timeouts: { headersMs: 300, keepAliveMs: 200, bodyMs: 300 },
  })

  async function stream(key: string, options: { query?: string; lastEventId?: string } = {}) {
    const s = await openStream(ctx.base, key, options)
    ctx.opened.push(s)
    if (s.status === 200) await s.next((f) => f.event === 'ready')
    return s
  }

  /** Moves a live order's production to in_progress through the operator API (order.production_started). */
  async function startProduction(orderId: string): Promise<void> {
    const view = await ctx.t.admin('GET', `/admin/v1/orders/${orderId}`)
    const productionId = view.json().data.order.production_order.id
    const moved = await ctx.t.admin('POST', `/admin/v1/production-orders/${productionId}/status`, {
      status: 'in_progress',
    })
    assert.equal(moved.statusCode, 200, moved.body)
  }

  async function createOrder(key: string): Promise<string> {
    const res = await ctx.t.api(key, 'POST', '/v1/orders', orderBody())
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.order.id
  }

  async function eventBodies(orgId: string): Promise<string[]> {
    const rows = await ctx.t.db
      .selectFrom('events')
      .select('body')
      .where('organization_id', '=', orgId)
      .orderBy('created_at')
      .execute()
    return rows.map((r) => r.body)
  }

  const ofType = (type: string) => (f: SseFrame) => f.event === type

  function assertError(res: LightMyRequestResponse, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body)
    assert.equal(res.json().error.code, code)
  }

  describe('GET /v1/webhook-events/stream', () => {
    test('a live key streams its live events with the exact body a registered endpoint receives', async () => {
      const org = await ctx.t.tenant('Live stream')
      const res = await ctx.t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: ctx.receiver.url('/live'),
      })
      assert.equal(res.statusCode, 201, res.body)
      const s = await stream(org.liveKey)
      assert.equal(s.headers.get('content-type'), 'text/event-stream; charset=utf-8')
      assert.equal(s.headers.get('cache-control'), 'no-store')
      assert.deepEqual(JSON.parse(s.frames[0]!.data), { environment: 'live', events: null })

      const orderId = await createOrder(org.liveKey)
      const received = await s.next(ofType('order.received'))
      assert.equal(JSON.parse(received.data).data.order_id, orderId)
      assert.match(received.id!, /^\d+\.[0-9a-f-]{36}$/)

      await startProduction(orderId)
      const started = await s.next(ofType('order.production_started'))

      // The endpoint gets the same bytes.
      const dispatcher = await ctx.t.startDispatcher({ ca: ctx.receiver.ca })
      await ctx.receiver.waitFor(2)
      await dispatcher.stop(100)
      const delivered = ctx.receiver.received.filter((r) => r.url === '/live').map((r) => r.body.toString())
      assert.deepEqual(delivered.sort(), [received.data, started.data].sort())
      assert.deepEqual(await eventBodies(org.orgId), [received.data, started.data])
    })

    test('test orders write nothing to a test stream; each stream sees only its organization and environment', async () => {
      const a = await ctx.t.tenant('Isolation A')
      const b = await ctx.t.tenant('Isolation B')
      const aTest = await stream(a.testKey)
      const aLive = await stream(a.liveKey)
      const bLive = await stream(b.liveKey)
      await createOrder(a.testKey)
      await createOrder(b.liveKey)
      await bLive.next(ofType('order.received'))
      const aOrder = await createOrder(a.liveKey)
      const first = await aLive.next((f) => f.event !== 'ready')
      assert.equal(
        JSON.parse(first.data).data.order_id,
        aOrder,
        'B’s order and A’s test order never reach A live',
      )
      // The test stream is alive (a sample reaches it) and got nothing else.
      assert.equal(
        (await ctx.t.api(a.testKey, 'POST', '/v1/webhook-events/trigger', { type: 'ping' })).statusCode,
        202,
      )
      await aTest.next(ofType('ping'))
      assert.deepEqual(
        aTest.frames.map((f) => f.event),
        ['ready', 'ping'],
      )
      assert.equal(bLive.frames.length, 2)
    })

    test('the events filter sends only the listed types; an unknown type is refused', async () => {
      const org = await ctx.t.tenant('Filter')
      const s = await stream(org.liveKey, { query: '?events=order.production_started' })
      assert.deepEqual(JSON.parse(s.frames[0]!.data), {
        environment: 'live',
        events: ['order.production_started'],
      })
      const orderId = await createOrder(org.liveKey)
      await startProduction(orderId)
      await s.next(ofType('order.production_started'))
      assert.deepEqual(
        s.frames.map((f) => f.event),
        ['ready', 'order.production_started'],
      )
      const bad = await ctx.t.api(org.liveKey, 'GET', '/v1/webhook-events/stream?events=order.created')
      assertError(bad, 422, 'validation_failed')
      assert.equal(bad.json().error.field, 'events')
    })

    test('Last-Event-ID resumes after that event, in order, without it', async () => {
      const org = await ctx.t.tenant('Resume')
      const s = await stream(org.liveKey)
      await createOrder(org.liveKey)
      const first = await s.next(ofType('order.received'))
      s.close()
      const later = [await createOrder(org.liveKey), await createOrder(org.liveKey)]
      const resumed = await stream(org.liveKey, { lastEventId: first.id! })
      await resumed.next(ofType('order.received'), { from: 2 })
      assert.deepEqual(
        resumed.frames.slice(1).map((f) => JSON.parse(f.data).data.order_id),
        later,
      )
      const garbled = await ctx.t.app.inject({
        method: 'GET',
        url: '/v1/webhook-events/stream',
        headers: { authorization: `Bearer ${org.liveKey}`, 'last-event-id': 'not-an-id' },
      })
      assertError(garbled, 422, 'validation_failed')
      assert.equal(garbled.json().error.field, 'Last-Event-ID')
    })

    test('at most 5 open streams per organization: the 6th is refused before it starts', async () => {
      const org = await ctx.t.tenant('Cap')
      const five = [
        ...(await Promise.all([1, 2, 3].map(() => stream(org.liveKey)))),
        ...(await Promise.all([1, 2].map(() => stream(org.testKey)))),
      ]
      assert.deepEqual(
        five.map((s) => s.status),
        [200, 200, 200, 200, 200],
      )
      const sixth = await openStream(ctx.base, org.testKey)
      assert.equal(sixth.status, 422)
      assert.equal(JSON.parse(sixth.body!).error.code, 'listen_limit_reached')
      assert.equal(sixth.headers.get('content-type'), 'application/json; charset=utf-8')
      five[0]!.close()
      await five[0]!.ended
      // The session is released once the server sees the client gone.
      for (let i = 0; ; i++) {
        const again = await openStream(ctx.base, org.liveKey)
        ctx.opened.push(again)
        if (again.status === 200) break
        assert.ok(i < 50, 'a closed stream frees its place')
        await new Promise((r) => setTimeout(r, 50))
      }
      for (const s of five) s.close()
    })

    test('keepalives flow and the request timeouts do not cut a stream', async () => {
      const org = await ctx.t.tenant('Keepalive')
      const s = await stream(org.liveKey)
      await new Promise((r) => setTimeout(r, 700))
      assert.ok(s.comments.filter((c) => c === ': keepalive').length >= 3, `${s.comments.length} keepalives`)
      await createOrder(org.liveKey)
      await s.next(ofType('order.received'))
      s.close()
    })

    test('webhooks:manage is required (403); no key or a bad key is 401', async () => {
      const org = await ctx.t.tenant('Scopes')
      const narrow = await ctx.t.createKey(org.orgId, {
        environment: 'live',
        scopes: ['orders:read', 'orders:write', 'files:write'],
      })
      for (const [method, url, body] of [
        ['GET', '/v1/webhook-events/stream', undefined],
        ['POST', '/v1/webhook-events/trigger', { type: 'ping' }],
      ] as const) {
        const res = await ctx.t.api(narrow.key, method, url, body)
        assertError(res, 403, 'insufficient_scope')
        assert.match(res.json().error.message, /webhooks:manage/)
        assertError(await ctx.t.api(undefined, method, url, body), 401, 'invalid_api_key')
        assertError(await ctx.t.api('svc_test_nonsense', method, url, body), 401, 'invalid_api_key')
      }
    })
  })
})

describe('trigger', () => {
  // POST /v1/webhook-events/trigger, and what a stream costs against the rate limit.
  const LIMIT = 8
  const ctx = useListenApp({ rateLimiter: createMemoryRateLimiter(LIMIT) })

  async function stream(key: string, query = '') {
    const s = await openStream(ctx.base, key, { query })
    ctx.opened.push(s)
    assert.equal(s.status, 200, s.body)
    await s.next((f) => f.event === 'ready')
    return s
  }

  const trigger = (key: string, type: string) =>
    ctx.t.api(key, 'POST', '/v1/webhook-events/trigger', { type })

  describe('POST /v1/webhook-events/trigger', () => {
    test('a sample reaches the organization’s test streams only: no endpoint, no stored row', async () => {
      const org = await ctx.t.tenant('Trigger')
      const other = await ctx.t.tenant('Trigger other')
      const endpoint = await ctx.t.api(org.testKey, 'POST', '/v1/webhook-endpoints', {
        url: ctx.receiver.url('/t'),
      })
      assert.equal(endpoint.statusCode, 201, endpoint.body)
      const dispatcher = await ctx.t.startDispatcher({ ca: ctx.receiver.ca })
      const tests = [await stream(org.testKey), await stream(org.testKey, '?events=order_item.completed')]
      const live = await stream(org.liveKey)
      const foreign = await stream(other.testKey)
      const before = await rowCounts(ctx.t.db)

      const res = await trigger(org.testKey, 'order.production_started')
      assert.equal(res.statusCode, 202, res.body)
      assert.deepEqual(res.json(), { data: { type: 'order.production_started', sessions: 2 } })
      const sample = await tests[0]!.next((f) => f.event === 'order.production_started')
      assert.equal(sample.id, undefined, 'samples carry no resume id')
      const body = JSON.parse(sample.data)
      assert.deepEqual(Object.keys(body), ['id', 'type', 'created_at', 'api_version', 'data'])
      assert.equal(body.type, 'order.production_started')
      assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/)
      assert.deepEqual(Object.keys(body.data), [
        'order_id',
        'external_order_id',
        'production_order_id',
        'production_status',
        'sample',
        'sequence',
      ])
      assert.equal(body.data.sample, true)
      assert.equal(body.data.production_status, 'in_progress')
      assert.equal(body.data.sequence, 2, 'a sample order\u2019s second event')

      const item = await trigger(org.testKey, 'order_item.completed')
      assert.equal(item.statusCode, 202)
      const itemSample = await tests[1]!.next((f) => f.event === 'order_item.completed')
      assert.deepEqual(Object.keys(JSON.parse(itemSample.data).data), [
        'order_id',
        'external_order_id',
        'order_item_id',
        'production_job_id',
        'sku',
        'name',
        'sample',
        'sequence',
      ])
      await tests[0]!.next((f) => f.event === 'order_item.completed')
      await new Promise((r) => setTimeout(r, 300))
      await dispatcher.stop(100)
      assert.deepEqual(
        tests[1]!.frames.map((f) => f.event),
        ['ready', 'order_item.completed'],
        'the filter applies to samples',
      )
      assert.deepEqual(
        [live, foreign].map((s) => s.frames.length),
        [1, 1],
        'no live or foreign stream gets a sample',
      )
      assert.deepEqual(await rowCounts(ctx.t.db), before, 'nothing stored')
      const deliveries = await ctx.t.api(org.testKey, 'GET', '/v1/webhook-deliveries')
      assert.deepEqual(deliveries.json().data, [])
      assert.equal(ctx.receiver.received.length, 0)
    })

    test('live keys are refused; unknown types are 422 on `type`; no open session answers 0', async () => {
      const org = await ctx.t.tenant('Trigger rules')
      const live = await trigger(org.liveKey, 'ping')
      assert.equal(live.statusCode, 403)
      assert.equal(live.json().error.code, 'test_key_required')
      const unknown = await trigger(org.testKey, 'order.created')
      assert.equal(unknown.statusCode, 422)
      assert.equal(unknown.json().error.field, 'type')
      // What `order-intake trigger` prints for an unknown type: the valid ones.
      assert.deepEqual(unknown.json().error.errors, [
        {
          code: 'invalid_format',
          field: 'type',
          message: `type must be one of ${EVENT_TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
        },
      ])
      const none = await trigger(org.testKey, 'order.cancelled')
      assert.deepEqual(none.json(), { data: { type: 'order.cancelled', sessions: 0 } })
    })

    test('a stream counts against the rate limit once, at connect', async () => {
      const org = await ctx.t.tenant('Rate')
      const s = await stream(org.testKey)
      assert.equal(s.headers.get('x-ratelimit-remaining'), String(LIMIT - 1))
      for (let i = 0; i < 3; i++) assert.equal((await trigger(org.testKey, 'ping')).statusCode, 202)
      await s.next((f) => f.event === 'ping', { from: 3 })
      const next = await ctx.t.api(org.testKey, 'GET', '/v1/webhook-endpoints')
      assert.equal(
        next.headers['x-ratelimit-remaining'],
        String(LIMIT - 5),
        'the open stream took one request',
      )
      s.close()
    })
  })
})
