import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { newId } from '../../../src/lib/ids.ts'
import { eventData, recordEvent } from '../../../src/modules/webhooks/outbox/outbox.service.ts'
import { orderBody } from '../../helpers/app.ts'
import { expectedEvent, useProductionEvents } from '../../helpers/production-events.ts'

describe('per-order event sequence', () => {
  const f = useProductionEvents()

  /** The order's events by sequence: [sequence, type], with data and body checked to carry the same bytes. */
  async function sequences(orderId: string) {
    const rows = await f.t.db
      .selectFrom('events')
      .select(['id', 'type', 'body', sql<string>`data::text`.as('text')])
      .where('order_id', '=', orderId)
      .execute()
    return rows
      .map((r) => {
        assert.ok(r.body.endsWith(`"data":${r.text}}`), r.body)
        return [JSON.parse(r.text).sequence as number, r.type] as const
      })
      .sort((a, b) => a[0] - b[0])
  }

  test('one order’s lifecycle: 1, 2, 3 ... in the order recorded, as delivered to both endpoints', async () => {
    const order = await f.createLiveOrder()
    const ao = await f.adminOrder(order.id)
    const po = ao.production_order!
    f.tick()
    await f.setStatus(po.id, 'in_progress')
    f.tick()
    await f.completeJob(ao.items[1]!.production_job!.id)
    f.tick()
    await f.cancelOrder(order.id)
    // assertDelivered expects data with sequence 1..n in this order, in the stored rows and the bodies received.
    const envelopes = await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po.id),
      expectedEvent.itemCompleted(order, ao.items[1]!, { sku: null, name: 'Card' }),
      expectedEvent.cancelled(order, po.id),
    ])
    assert.deepEqual(
      envelopes.map((e) => [e.data.sequence, e.type]),
      [
        [1, 'order.received'],
        [2, 'order.production_started'],
        [3, 'order_item.completed'],
        [4, 'order.cancelled'],
      ],
    )
    // Another order counts from 1 again; its creation writes no counter row (its first event is always 1).
    const other = await f.createLiveOrder()
    assert.deepEqual(await sequences(other.id), [[1, 'order.received']])
    const counters = (id: string) =>
      f.t.db.selectFrom('order_event_counters').select('last_sequence').where('order_id', '=', id).execute()
    assert.deepEqual(await counters(other.id), [])
    assert.deepEqual(await counters(order.id), [{ last_sequence: 4 }])
  })

  test('simultaneous production changes of one order get distinct consecutive numbers', async () => {
    const items = Array.from({ length: 6 }, (_, n) => ({ sku: `SEQ-${n}`, name: `Item ${n}`, quantity: 1 }))
    const order = await f.createLiveOrder(orderBody({ items }))
    const ao = await f.adminOrder(order.id)
    f.tick()
    const changes = [
      ...ao.items.map((i) => f.t.admin('POST', `/admin/v1/production-jobs/${i.production_job!.id}/complete`)),
      f.t.admin('POST', `/admin/v1/production-orders/${ao.production_order!.id}/status`, {
        status: 'in_progress',
      }),
    ]
    for (const res of await Promise.all(changes)) assert.equal(res.statusCode, 200, res.body)
    const got = await sequences(order.id)
    assert.deepEqual(
      got.map(([n]) => n),
      [1, 2, 3, 4, 5, 6, 7, 8],
    )
    assert.deepEqual(got[0], [1, 'order.received'])
    assert.deepEqual(got.filter(([, type]) => type === 'order_item.completed').length, 6)
    await f.settle()
    const delivered = f
      .receivedFor(order.id)
      .map((r) => r.envelope.data.sequence)
      .sort((a, b) => Number(a) - Number(b))
    assert.deepEqual(delivered, [1, 2, 3, 4, 5, 6, 7, 8])
  })

  test('writers of one order’s events in concurrent transactions, with no other lock, never share a number', async () => {
    const order = await f.createLiveOrder()
    const at = new Date(f.tick())
    const writers = Array.from({ length: 12 }, (_, n) =>
      f.t.db.transaction().execute(async (trx) => {
        const event = await recordEvent(trx, {
          organizationId: f.tenant.orgId,
          environment: 'live',
          type: 'order_item.completed',
          orderId: order.id,
          data: eventData.itemCompleted(
            { order_id: order.id, external_order_id: order.external_order_id },
            { order_item_id: newId(), production_job_id: newId(), sku: null, name: `Writer ${n}` },
          ),
          at,
        })
        // Hold the transaction open a moment, so the others overlap it on PostgreSQL.
        await sql`select pg_sleep(0.02)`.execute(trx)
        return event.data.sequence
      }),
    )
    const returned = (await Promise.all(writers)).sort((a, b) => Number(a) - Number(b))
    const expected = Array.from({ length: 12 }, (_, n) => n + 2)
    assert.deepEqual(returned, expected)
    assert.deepEqual(
      (await sequences(order.id)).map(([n]) => n),
      [1, ...expected],
    )
    const [counter] = await f.t.db
      .selectFrom('order_event_counters')
      .selectAll()
      .where('order_id', '=', order.id)
      .execute()
    assert.equal(counter?.last_sequence, 13)
    await f.settle()
  })

  test('ping carries no sequence and counts nothing', async () => {
    const [endpoint] = await f.t.db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', f.tenant.orgId)
      .execute()
    const before = await f.t.db.selectFrom('order_event_counters').selectAll().orderBy('order_id').execute()
    const res = await f.t.api(f.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint!.id}/test`)
    assert.equal(res.statusCode, 202, res.body)
    const [ping] = await f.t.db
      .selectFrom('events')
      .select(['data', 'body'])
      .where('type', '=', 'ping')
      .where('organization_id', '=', f.tenant.orgId)
      .execute()
    assert.deepEqual(ping!.data, eventData.ping())
    assert.equal(JSON.parse(ping!.body).data.sequence, undefined)
    assert.deepEqual(
      await f.t.db.selectFrom('order_event_counters').selectAll().orderBy('order_id').execute(),
      before,
    )
    await f.settle()
  })
})
