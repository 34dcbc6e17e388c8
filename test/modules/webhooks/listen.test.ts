import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { orderBody } from '../../helpers/app.ts'
import { openStream, type SseFrame, useListenApp } from '../../helpers/sse.ts'

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
