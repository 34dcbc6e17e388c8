import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { signature, useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'

/** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
const setup = useDispatcherApp()

describe('webhook dispatcher: endpoints', () => {
  test('25 consecutive failures disable the endpoint; its pending deliveries fail with endpoint_disabled', async (ctx) => {
    const s = await setup(ctx, { respond: (req) => ({ status: req.url === '/bad' ? 500 : 200 }) })
    const bad = (await s.endpoint('/bad')).endpoint
    const good = (await s.endpoint('/good')).endpoint
    // Five attempts per delivery, six deliveries: the 25th failure comes with work left.
    // One attempt at a time, so none is in flight when the endpoint is disabled.
    await s.dispatch({ retryDelaysMs: [1, 1, 1, 1], concurrency: 1 })
    for (let i = 0; i < 6; i++) await s.order()
    await waitUntil(
      async () => !(await s.endpointRow(bad.id)).is_active,
      'the endpoint to be disabled',
      20_000,
    )
    await waitUntil(
      async () => (await s.deliveries(good.id)).every((r) => r.status === 'succeeded'),
      'the healthy endpoint to get everything',
    )
    // The worker fails the pending deliveries right after the statement that disabled the endpoint.
    await waitUntil(
      async () => (await s.deliveries(bad.id)).every((r) => r.status !== 'pending'),
      'the pending deliveries to fail',
    )
    const ep = await s.endpointRow(bad.id)
    assert.equal(ep.disabled_reason, 'too_many_failures')
    assert.equal(ep.consecutive_failures, 25)
    assert.ok(ep.disabled_at)
    const rows = await s.deliveries(bad.id)
    assert.equal(rows.length, 6)
    assert.ok(rows.every((r) => r.status === 'failed' && r.next_attempt_at === null))
    assert.equal(
      rows.reduce((n, r) => n + r.attempts, 0),
      25,
    )
    assert.ok(rows.some((r) => r.error_code === 'endpoint_disabled'))
    assert.ok(rows.every((r) => r.error_code === 'endpoint_disabled' || r.error_code === 'http_error'))
    assert.equal(s.receiver.received.filter((r) => r.url === '/bad').length, 25)
    assert.equal((await s.endpointRow(good.id)).is_active, true)

    // Nothing further: no delivery rows, no requests.
    await s.order()
    await waitUntil(async () => (await s.deliveries(good.id)).length === 7, 'the next order to fan out')
    await sleep(300)
    assert.equal((await s.deliveries(bad.id)).length, 6)
    assert.equal(s.receiver.received.filter((r) => r.url === '/bad').length, 25)

    const list = await s.t.api(s.tenant.liveKey, 'GET', '/v1/webhook-endpoints')
    const listed = list.json().data.find((e: { id: string }) => e.id === bad.id)
    assert.equal(listed.is_active, false)
    assert.equal(listed.disabled_reason, 'too_many_failures')
    const ping = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${bad.id}/test`)
    assert.equal(ping.statusCode, 422)
    assert.equal(ping.json().error.code, 'validation_failed')
  })

  test('after the 25th consecutive failure, attempts already claimed for the endpoint are not sent', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 500 }) })
    const { endpoint } = await s.endpoint('/bad')
    for (let i = 0; i < 30; i++) await s.order()
    // One attempt per delivery and one slot: the worker holds the next
    // delivery, claimed, while the 25th failure is recorded.
    await s.dispatch({ retryDelaysMs: [], concurrency: 1 })
    await waitUntil(async () => !(await s.endpointRow(endpoint.id)).is_active, 'the endpoint to be disabled')
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status !== 'pending'),
      'the pending deliveries to fail',
    )
    await sleep(300)
    assert.equal(s.receiver.received.length, 25)
    const rows = await s.deliveries(endpoint.id)
    assert.equal(rows.filter((r) => r.error_code === 'http_error').length, 25)
    assert.equal(rows.filter((r) => r.error_code === 'endpoint_disabled').length, 5)
    assert.deepEqual(await s.queued(endpoint.id), [])
  })

  test('fan-out: one delivery per active endpoint of the organization and environment', async (ctx) => {
    const s = await setup(ctx)
    const mine = await Promise.all(['/a', '/b', '/c'].map((p) => s.endpoint(p)))
    const deleted = await s.endpoint('/deleted')
    assert.equal(
      (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${deleted.endpoint.id}`)).statusCode,
      200,
    )
    const testEnv = await s.endpoint('/test-env', { key: s.tenant.testKey })
    const other = await s.t.tenant('Other Org')
    const foreign = await s.endpoint('/foreign', { key: other.liveKey })
    await s.dispatch()

    await s.order()
    await s.receiver.waitFor(3)
    await sleep(300)
    const received = s.receiver.received
    assert.deepEqual(received.map((r) => r.url).sort(), ['/a', '/b', '/c'])
    const eventId = received[0]!.headers['x-service-event-id'] as string
    assert.ok(received.every((r) => r.headers['x-service-event-id'] === eventId))
    assert.ok(received.every((r) => r.body.equals(received[0]!.body)))
    assert.equal(
      new Set(received.map((r) => signature(r).v1)).size,
      3,
      'each endpoint signs with its own secret',
    )

    const rows = await s.t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('event_id', '=', eventId)
      .execute()
    assert.deepEqual(rows.map((r) => r.endpoint_id).sort(), mine.map((m) => m.endpoint.id).sort())
    assert.ok(
      rows.every((r) => r.status === 'succeeded' && r.attempts === 1 && r.event_type === 'order.received'),
    )
    for (const none of [deleted, testEnv, foreign]) {
      assert.equal((await s.deliveries(none.endpoint.id)).length, 0)
    }

    // A test order produces no event, so nothing is delivered.
    await s.order(s.tenant.testKey)
    await sleep(300)
    assert.equal(s.receiver.received.length, 3)
  })
})
