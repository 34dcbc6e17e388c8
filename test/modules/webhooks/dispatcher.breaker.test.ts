import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { webhookQueueStats } from '../../../src/modules/webhooks/queue-stats.repo.ts'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'

/** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
const setup = useDispatcherApp()

const eventId = (r: { headers: Record<string, string | string[] | undefined> }) =>
  String(r.headers['x-service-event-id'])

describe('webhook dispatcher: circuit breaker', () => {
  test('a blip costs one failure, not one per queued delivery; the waiting ones go after recovery, in order', async (ctx) => {
    let down = true
    const s = await setup(ctx, { respond: () => ({ status: down ? 503 : 204 }) })
    const { endpoint } = await s.endpoint('/hook')
    // One attempt in flight to the endpoint, so arrival order is sending order.
    await s.dispatch({ retryDelaysMs: [1500, 1500, 1500], endpointConcurrency: 1 })
    await s.order()
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
    for (let i = 0; i < 10; i++) await s.order()
    await sleep(500)

    // While the receiver is down, its other deliveries wait: not sent, not counted, not failed.
    assert.equal(s.receiver.received.length, 1, 'only the first delivery was attempted')
    const ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.consecutive_failures, 1)
    assert.equal(ep.is_active, true)
    assert.ok(ep.next_probe_at, 'the endpoint waits for its next probe')
    const waiting = await s.deliveries(endpoint.id)
    assert.equal(waiting.length, 11)
    assert.deepEqual(
      waiting.map((r) => [r.status, r.attempts]),
      [['pending', 1], ...Array.from({ length: 10 }, () => ['pending', 0])],
    )
    assert.ok(waiting.slice(1).every((r) => r.error_code === null && r.next_attempt_at !== null))
    const log = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.ok(log.json().data.every((e: { status: string }) => e.status === 'pending'))
    // Waiting for the probe is not falling behind: the queue's metrics do not count them as due.
    const stats = await webhookQueueStats(s.t.db, new Date())
    assert.equal(stats.attempts, 11)
    assert.deepEqual([stats.due, stats.oldestDueAgeSeconds], [0, 0])

    down = false
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
      'every delivery to succeed after recovery',
    )
    const rows = await s.deliveries(endpoint.id)
    assert.deepEqual(
      rows.map((r) => r.attempts),
      [2, ...Array.from({ length: 10 }, () => 1)],
    )
    // The probe (the failed delivery's retry) first, then the backlog in the order it was recorded.
    const after = s.receiver.received.slice(1).map(eventId)
    assert.deepEqual(
      after,
      rows.map((r) => r.event_id),
    )
    const closed = await s.endpointRow(endpoint.id)
    assert.equal(closed.consecutive_failures, 0)
    assert.equal(closed.next_probe_at, null)
    assert.deepEqual(await s.queued(endpoint.id), [])
  })

  test('a receiver that stays down gets one probe at a time on the retry schedule, and the 25th failure disables it', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 500 }) })
    const { endpoint } = await s.endpoint('/down')
    for (let i = 0; i < 8; i++) await s.order()
    const delay = 60
    // Five attempts per delivery: the 25th failure is the fifth delivery's last.
    await s.dispatch({ retryDelaysMs: [delay, delay, delay, delay], endpointConcurrency: 1 })
    await waitUntil(
      async () => !(await s.endpointRow(endpoint.id)).is_active,
      'the endpoint to be disabled',
      20_000,
    )
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status !== 'pending'),
      'the pending deliveries to fail',
    )
    await sleep(200)
    const ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.disabled_reason, 'too_many_failures')
    assert.equal(ep.consecutive_failures, 25)
    const received = s.receiver.received
    assert.equal(received.length, 25, 'no attempt after the 25th failure')
    // Every attempt after the first waited out a retry delay after the one before.
    const gaps = received.slice(1).map((r, i) => r.at - received[i]!.at)
    assert.ok(
      gaps.every((gap) => gap >= delay - 5),
      `gaps ${gaps.join(', ')} ms, each at least ${delay} ms`,
    )
    const rows = await s.deliveries(endpoint.id)
    assert.deepEqual(
      rows.map((r) => [r.attempts, r.error_code]),
      [
        ...Array.from({ length: 5 }, () => [5, 'http_error']),
        ...Array.from({ length: 3 }, () => [0, 'endpoint_disabled']),
      ],
    )
    assert.ok(rows.every((r) => r.status === 'failed' && r.next_attempt_at === null))
  })
  test('two workers on one database send a failing endpoint one probe at a time between them', async (ctx) => {
    let down = true
    const s = await setup(ctx, { respond: () => ({ status: down ? 503 : 204 }) })
    const { endpoint } = await s.endpoint('/hook')
    for (let i = 0; i < 12; i++) await s.order()
    const delay = 300
    await s.twoWorkers({ retryDelaysMs: [delay, delay, delay, delay], endpointConcurrency: 1 })
    await s.receiver.waitFor(1)
    await sleep(1000)
    // A probe may be on its way back when the second ends: read at a moment when every attempt made is recorded.
    await waitUntil(async () => {
      const made = s.receiver.received.length
      const counted = (await s.deliveries(endpoint.id)).reduce((n, r) => n + r.attempts, 0)
      return (await s.endpointRow(endpoint.id)).consecutive_failures === made && counted === made
    }, 'every attempt made to be recorded')
    const received = s.receiver.received.map((r) => r.at)
    // At most one attempt on its way per worker when the first failure was
    // recorded; after that, one probe per retry delay between the two.
    const probes = received.slice(2)
    const gaps = probes.slice(1).map((at, i) => at - probes[i]!)
    assert.ok(received.length <= 2 + 4, `${received.length} attempts in 1 s`)
    assert.ok(
      gaps.every((gap) => gap >= delay - 5),
      `gaps ${gaps.join(', ')} ms between probes, each at least ${delay} ms`,
    )
    const ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.consecutive_failures, received.length)
    const rows = await s.deliveries(endpoint.id)
    assert.equal(
      rows.reduce((n, r) => n + r.attempts, 0),
      received.length,
      'attempts counted are attempts made',
    )
    assert.ok(rows.every((r) => r.status === 'pending'))

    down = false
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
      'every delivery to succeed after recovery',
    )
    assert.equal((await s.endpointRow(endpoint.id)).consecutive_failures, 0)
    assert.equal(new Set(s.receiver.received.map(eventId)).size, 12)
  })
})
