import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { assertError } from '../../helpers/errors.ts'
import { waitUntil } from '../../helpers/wait.ts'

/**
 * A failing endpoint in the dashboard API: its answers say when its next
 * probe runs and that its deliveries wait for it, and Retry now sends one
 * probe at once (owners, developers and operators; audited).
 */
const setup = useDispatcherApp()

/** Retries a minute apart: a probe within seconds is Retry now's, not the schedule's. */
const MINUTE = [60_000, 60_000, 60_000, 60_000]

const eventId = (r: { headers: Record<string, string | string[] | undefined> }) =>
  String(r.headers['x-service-event-id'])

describe('a failing endpoint in the dashboard', () => {
  test('the endpoint, its log, a delivery, the order timeline and a sample say when the next probe runs', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 503 }) })
    const { endpoint } = await s.endpoint('/down')
    const viewer = await memberOf(s.t, s.tenant.orgId, 'viewer')
    const developer = await memberOf(s.t, s.tenant.orgId, 'developer')
    const get = async (path: string) => {
      const res = await viewer.client.call('GET', path)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    const healthy = await get(`/webhook-endpoints/${endpoint.id}?environment=live`)
    assert.equal(healthy.endpoint.next_probe_at, null, 'not failing: no probe')

    await s.dispatch({ retryDelaysMs: MINUTE })
    await s.order()
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
    const orderId = await s.order()
    const probeAt = (await s.endpointRow(endpoint.id)).next_probe_at!.toISOString()
    assert.ok(Date.parse(probeAt) > Date.now() + 50_000, `the next probe about a minute ahead: ${probeAt}`)

    const one = (await get(`/webhook-endpoints/${endpoint.id}?environment=live`)).endpoint
    assert.equal(one.next_probe_at, probeAt)
    const list = await get('/webhook-endpoints?environment=live')
    assert.equal(list[0].next_probe_at, probeAt)

    const log = (await get(`/webhook-deliveries?environment=live&endpoint_id=${endpoint.id}`)) as {
      id: string
      attempts: number
      next_attempt_at: string
      endpoint_next_probe_at: string | null
    }[]
    assert.equal(log.length, 2)
    const [waiting, failed] = log
    // The second order's delivery: never attempted, its own time long past, and waiting for the probe.
    assert.equal(waiting!.attempts, 0)
    assert.ok(Date.parse(waiting!.next_attempt_at) < Date.now())
    assert.deepEqual(
      log.map((d) => d.endpoint_next_probe_at),
      [probeAt, probeAt],
    )
    assert.equal(failed!.attempts, 1)
    const detail = await get(`/webhook-deliveries/${waiting!.id}?environment=live`)
    assert.equal(detail.delivery.endpoint_next_probe_at, probeAt)
    assert.deepEqual(detail.attempts, [])

    const timeline = (await get(`/orders/${orderId}/timeline`)) as {
      deliveries: { id: string; endpoint_next_probe_at: string | null }[]
    }[]
    assert.deepEqual(
      timeline.flatMap((e) => e.deliveries.map((d) => [d.id, d.endpoint_next_probe_at])),
      [[waiting!.id, probeAt]],
    )

    const sample = await developer.client.call(
      'POST',
      `/webhook-endpoints/${endpoint.id}/sample?environment=live`,
      { type: 'order.received' },
    )
    assert.equal(sample.statusCode, 202, sample.body)
    assert.equal(sample.json().data.endpoint_next_probe_at, probeAt)
    const ping = await developer.client.call(
      'POST',
      `/webhook-endpoints/${endpoint.id}/test?environment=live`,
    )
    assert.equal(ping.statusCode, 202, ping.body)
    assert.equal(ping.json().data.endpoint_next_probe_at, probeAt)

    // A redelivery goes when due, breaker or not: its entry waits for no probe.
    const redelivered = await developer.client.call(
      'POST',
      `/webhook-deliveries/${failed!.id}/redeliver?environment=live`,
    )
    assert.equal(redelivered.statusCode, 202, redelivered.body)
    const redelivery = await get(
      `/webhook-deliveries/${redelivered.json().data.delivery.id}?environment=live`,
    )
    assert.equal(redelivery.delivery.endpoint_next_probe_at, null)
    // Only the first delivery and the redelivery were attempted (once the redelivery's result is recorded).
    const redeliveryId = redelivered.json().data.delivery.id
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).find((d) => d.id === redeliveryId)?.attempts === 1,
      'the redelivery to be attempted',
    )
    assert.equal(s.receiver.received.length, 2)
    assert.deepEqual(
      (await s.deliveries(endpoint.id)).filter((d) => d.attempts > 0).map((d) => d.id),
      [failed!.id, redeliveryId],
      'the waiting deliveries were not attempted',
    )
  })

  test('Retry now: one probe at once (not while one is on its way), audited; when it succeeds the waiting deliveries follow', async (ctx) => {
    let down = true
    let hang = false
    const s = await setup(ctx, {
      respond: () => ({ status: down ? 503 : 204, ...(hang ? { delayMs: 1500 } : {}) }),
    })
    const { endpoint } = await s.endpoint('/hook')
    const viewer = await memberOf(s.t, s.tenant.orgId, 'viewer')
    const developer = await memberOf(s.t, s.tenant.orgId, 'developer')
    const retry = (client: typeof viewer.client) =>
      client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`)
    // One attempt at a time to the endpoint, so arrival order is sending order.
    await s.dispatch({ retryDelaysMs: MINUTE, endpointConcurrency: 1 })
    await s.order()
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
    await s.order()
    await s.order()
    const scheduled = (await s.endpointRow(endpoint.id)).next_probe_at!

    // Viewers may not; nothing changes.
    assertError(await retry(viewer.client), 403, 'role_required')
    assert.deepEqual((await s.endpointRow(endpoint.id)).next_probe_at, scheduled)

    // Still down: one probe goes at once, the delivery that failed; it hangs, and a second Retry now changes nothing.
    hang = true
    const first = await retry(developer.client)
    assert.equal(first.statusCode, 202, first.body)
    assert.equal(first.json().data.probe, 'started')
    assert.ok(Date.parse(first.json().data.endpoint.next_probe_at) <= Date.now())
    await s.receiver.waitFor(2)
    const again = await retry(developer.client)
    assert.equal(again.statusCode, 202, again.body)
    assert.equal(again.json().data.probe, 'under_way')
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 2, 'its failure')
    hang = false
    assert.equal(s.receiver.received.length, 2, 'one probe, nothing besides')
    const rows = await s.deliveries(endpoint.id)
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      [
        ['pending', 2],
        ['pending', 0],
        ['pending', 0],
      ],
    )
    const next = (await s.endpointRow(endpoint.id)).next_probe_at!
    assert.ok(next.getTime() > Date.now() + 50_000, 'the failed probe set the next one by the schedule')

    // Fixed: Retry now, and everything arrives within seconds, not at the next probe a minute away.
    down = false
    const fixed = await retry(developer.client)
    assert.equal(fixed.json().data.probe, 'started')
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
      'every delivery to succeed after Retry now',
    )
    assert.ok(Date.now() < next.getTime())
    const done = await s.deliveries(endpoint.id)
    assert.deepEqual(
      done.map((r) => r.attempts),
      [3, 1, 1],
    )
    assert.deepEqual(s.receiver.received.slice(2).map(eventId), [
      done[0]!.event_id,
      done[1]!.event_id,
      done[2]!.event_id,
    ])
    const closed = await s.endpointRow(endpoint.id)
    assert.deepEqual([closed.consecutive_failures, closed.next_probe_at], [0, null])

    // Not failing any more: nothing to retry, nothing changed.
    assertError(await retry(developer.client), 422, 'validation_failed')

    const audit = await developer.client.call('GET', '/audit-log?limit=100')
    const entries = (
      audit.json().data as {
        action: string
        actor: string
        subject: string
        details: Record<string, unknown>
      }[]
    ).filter((e) => e.action === 'webhook_endpoint.retried_now')
    assert.equal(entries.length, 2, 'the two Retry nows that started a probe')
    assert.deepEqual(
      entries.map((e) => [e.actor, e.subject, e.details.endpoint_id, e.details.delivery_id]),
      [
        [developer.email, s.receiver.url('/hook'), endpoint.id, done[0]!.id],
        [developer.email, s.receiver.url('/hook'), endpoint.id, done[0]!.id],
      ],
    )
  })

  test('Retry now in the console, by an operator, at an instance without a worker; another organization, a disabled endpoint', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 503 }) })
    const { endpoint } = await s.endpoint('/console')
    const owner = await memberOf(s.t, s.tenant.orgId, 'owner')
    const operator = await operatorOf(s.t)
    // The only worker is another instance's (on PostgreSQL): the request's instance wakes it through the database.
    await s.dispatch({ retryDelaysMs: MINUTE }, await s.instance())
    await s.order()
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')

    const listed = await operator.client.call(
      'GET',
      `/operator/organizations/${s.tenant.orgId}/webhook-endpoints`,
    )
    assert.equal(
      listed.json().data[0].next_probe_at,
      (await s.endpointRow(endpoint.id)).next_probe_at!.toISOString(),
    )
    const path = `/operator/webhook-endpoints/${endpoint.id}/retry-now`
    assertError(await owner.client.call('POST', path), 403, 'role_required')
    const res = await operator.client.call('POST', path)
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.json().data.probe, 'started')
    await s.receiver.waitFor(2)
    const log = await operator.client.call('GET', '/operator/audit-log?limit=20')
    const entry = log.json().data.find((e: { action: string }) => e.action === 'webhook_endpoint.retried_now')
    assert.equal(entry.actor, operator.email)
    assert.equal(entry.organization_id, s.tenant.orgId)

    // Another organization's member: 404, as for any of its endpoints.
    const stranger = await memberOf(s.t, (await s.t.tenant()).orgId, 'owner')
    assertError(
      await stranger.client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`),
      404,
      'not_found',
    )
    const removed = await owner.client.call('DELETE', `/webhook-endpoints/${endpoint.id}?environment=live`)
    assert.equal(removed.statusCode, 200, removed.body)
    assertError(
      await owner.client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`),
      422,
      'validation_failed',
    )
  })
})
