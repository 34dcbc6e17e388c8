import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'

const setup = useDispatcherApp()

/** What each of the five endpoints subscribes to: only /received takes order.received. */
const FILTERS: Record<string, string[]> = {
  '/received': ['order.received'],
  '/started': ['order.production_started'],
  '/cancelled': ['order.cancelled'],
  '/items': ['order_item.completed'],
  '/done': ['order.production_completed', 'order.production_failed'],
}

describe('fan-out by enabled_events', () => {
  test('an order burst to 5 endpoints, 4 of which filter order.received out: 1 delivery per event; ping reaches all', async (ctx) => {
    const s = await setup(ctx)
    const ids: Record<string, string> = {}
    for (const [path, enabled_events] of Object.entries(FILTERS)) {
      const res = await s.t.api(s.tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: s.receiver.url(path),
        enabled_events,
      })
      assert.equal(res.statusCode, 201, res.body)
      ids[path] = res.json().data.endpoint.id
    }
    const pathOf = Object.fromEntries(Object.entries(ids).map(([path, id]) => [id, path]))
    /** What the receiver got, as "path event-id", each once (delivery is at least once), of the given type. */
    const received = (type = 'order.received') =>
      [
        ...new Set(
          s.receiver.received
            .filter((r) => r.headers['x-service-event-type'] === type)
            .map((r) => `${r.url} ${r.headers['x-service-event-id']}`),
        ),
      ].sort()

    const orders = await Promise.all(Array.from({ length: 20 }, () => s.order()))
    const events = await s.t.db
      .selectFrom('events')
      .select(['id', 'type', 'order_id'])
      .where('order_id', 'in', orders)
      .execute()
    assert.equal(events.length, 20)
    assert.ok(events.every((e) => e.type === 'order.received'))
    const eventIds = events.map((e) => e.id).sort()

    // Written with the events: exactly one delivery and one queued attempt each, all to /received.
    const written = await s.t.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'endpoint_id'])
      .where('event_id', 'in', eventIds)
      .execute()
    assert.deepEqual(written.map((d) => d.event_id).sort(), eventIds)
    assert.ok(written.every((d) => d.endpoint_id === ids['/received']))
    const queued = await s.t.db.selectFrom('webhook_queue').select(['event_id', 'endpoint_id']).execute()
    assert.deepEqual(queued.map((q) => q.event_id).sort(), eventIds)
    assert.ok(queued.every((q) => q.endpoint_id === ids['/received']))

    // A retry would only add a duplicate: the first attempt gets time even on a busy machine.
    await s.dispatch({ timeoutMs: 10_000 })
    await waitUntil(
      async () =>
        (await s.deliveries(ids['/received']!)).filter((d) => d.status === 'succeeded').length === 20,
      'the burst to be delivered',
    )
    assert.deepEqual(received(), eventIds.map((id) => `/received ${id}`).sort())
    for (const path of Object.keys(FILTERS).filter((p) => p !== '/received')) {
      assert.deepEqual(await s.deliveries(ids[path]!), [], `nothing written for ${path}`)
    }

    // A production change reaches the one endpoint that lists its type.
    const order = (await s.t.admin('GET', `/admin/v1/orders/${orders[0]}`)).json().data.order
    const status = await s.t.admin(
      'POST',
      `/admin/v1/production-orders/${order.production_order.id}/status`,
      {
        status: 'in_progress',
      },
    )
    assert.equal(status.statusCode, 200, status.body)
    const [started] = await s.t.db
      .selectFrom('events')
      .select('id')
      .where('type', '=', 'order.production_started')
      .where('order_id', '=', orders[0]!)
      .execute()
    await waitUntil(
      () => received('order.production_started').length > 0,
      'order.production_started to arrive',
    )
    assert.deepEqual(received('order.production_started'), [`/started ${started!.id}`])

    // ping reaches every endpoint, whatever it lists.
    for (const id of Object.values(ids)) {
      const ping = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)
      assert.equal(ping.statusCode, 202, ping.body)
    }
    await waitUntil(() => received('ping').length === 5, 'the pings to arrive')
    assert.deepEqual(
      received('ping').map((r) => r.split(' ')[0]),
      Object.keys(FILTERS).sort(),
    )

    // After a PATCH, the next order reaches the endpoints that now take order.received, and only those.
    const widened = await s.t.api(s.tenant.liveKey, 'PATCH', `/v1/webhook-endpoints/${ids['/items']}`, {
      enabled_events: ['order_item.completed', 'order.received'],
    })
    assert.equal(widened.statusCode, 200, widened.body)
    const star = await s.t.api(s.tenant.liveKey, 'PATCH', `/v1/webhook-endpoints/${ids['/done']}`, {
      enabled_events: ['*'],
    })
    assert.equal(star.statusCode, 200, star.body)
    const next = await s.order()
    const rows = await s.t.db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select(['webhook_deliveries.endpoint_id', 'events.id'])
      .where('events.order_id', '=', next)
      .execute()
    assert.deepEqual(rows.map((r) => pathOf[r.endpoint_id]).sort(), ['/done', '/items', '/received'])
    const nextId = rows[0]!.id
    await waitUntil(() => received().length === 23, 'the next order.received to arrive three times')
    assert.deepEqual(
      received().filter((r) => r.endsWith(nextId)),
      ['/done', '/items', '/received'].map((path) => `${path} ${nextId}`),
    )
  })
})
