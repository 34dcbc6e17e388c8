import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { orderBody } from '../../helpers/app.ts'
import { type AdminOrder, useProductionEvents } from '../../helpers/production-events.ts'

describe('partner, test and shop orders: their production events', () => {
  const f = useProductionEvents()

  test('partner orders: produced_by_partner true on order-level events, no order_item.completed, updated_at still moves', async () => {
    const body = orderBody()
    const created = await f.createLiveOrder(body)
    const ao = await f.adminOrder(created.id)
    const po = ao.production_order!
    f.tick()
    const res = await f.t.admin('POST', `/admin/v1/production-orders/${po.id}/partner`, {
      produced_by_partner: true,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.production_order.id, po.id)
    assert.equal(res.json().data.production_order.produced_by_partner, true)
    assert.equal((await f.adminOrder(created.id)).production_order?.produced_by_partner, true)

    f.tick()
    await f.setStatus(po.id, 'in_progress')

    // A job of a partner order completes: no event, but the order changed.
    const jobAt = f.tick()
    await f.completeJob(ao.items[0]!.production_job!.id)
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: jobAt,
    })
    // A poller asking for changes since that moment sees the order with the completed item.
    const poll = await f.t.api(
      f.tenant.liveKey,
      'GET',
      `/v1/orders?updated_since=${encodeURIComponent(jobAt)}&limit=100`,
    )
    assert.equal(poll.statusCode, 200, poll.body)
    const polled = poll.json().data.find((o: { id: string }) => o.id === created.id)
    assert.ok(polled, 'the partner order is in the polling window after its job completed')
    assert.equal(polled.updated_at, jobAt)
    assert.deepEqual(
      polled.items.map((i: { production_status: string }) => i.production_status),
      ['completed', 'in_progress'],
    )

    f.tick()
    await f.setStatus(po.id, 'failed')
    f.tick()
    await f.completeJob(ao.items[1]!.production_job!.id)
    f.tick()
    await f.setStatus(po.id, 'completed')
    f.tick()
    await f.setStatus(po.id, 'cancelled')

    const base = { order_id: created.id, external_order_id: body.external_order_id }
    const partner = (status: string) => ({
      ...base,
      production_order_id: po.id,
      production_status: status,
      produced_by_partner: true,
    })
    await f.assertDelivered(created.id, [
      // Created before the partner flag was set: nothing to flag yet.
      { type: 'order.received', data: base },
      { type: 'order.production_started', data: partner('in_progress') },
      { type: 'order.production_failed', data: partner('failed') },
      { type: 'order.production_completed', data: partner('completed') },
      { type: 'order.cancelled', data: partner('cancelled') },
    ])

    // A whole-order cancel of a partner order: flag, no production_status.
    const other = await f.createLiveOrder()
    const otherPo = (await f.adminOrder(other.id)).production_order!
    const flagged = await f.t.admin('POST', `/admin/v1/production-orders/${otherPo.id}/partner`, {
      produced_by_partner: true,
    })
    assert.equal(flagged.statusCode, 200, flagged.body)
    f.tick()
    await f.cancelOrder(other.id)
    await f.assertDelivered(other.id, [
      { type: 'order.received', data: { order_id: other.id, external_order_id: other.external_order_id } },
      {
        type: 'order.cancelled',
        data: {
          order_id: other.id,
          external_order_id: other.external_order_id,
          production_order_id: otherPo.id,
          produced_by_partner: true,
        },
      },
    ])
  })

  test('test orders: no production order, cancel answers 422, no event, nothing delivered', async () => {
    const testEndpoint = await f.t.api(f.tenant.testKey, 'POST', '/v1/webhook-endpoints', {
      url: f.receiver.url('/test-env'),
    })
    assert.equal(testEndpoint.statusCode, 201, testEndpoint.body)
    const res = await f.t.api(f.tenant.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(res.statusCode, 201, res.body)
    const order = res.json().data.order
    const ao = await f.adminOrder(order.id)
    assert.equal(ao.production_order, null)
    assert.deepEqual(
      ao.items.map((i) => i.production_status),
      [null, null],
    )
    assert.equal(
      (await f.t.db.selectFrom('production_orders').select('id').where('order_id', '=', order.id).execute())
        .length,
      0,
    )

    f.tick()
    const cancel = await f.t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)
    assert.equal(cancel.statusCode, 422, cancel.body)
    assert.equal(cancel.json().error.code, 'validation_failed')
    const after = await f.adminOrder(order.id)
    assert.equal(after.status, 'pending')
    assert.equal(after.updated_at, order.updated_at)

    const events = await f.t.db
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', f.tenant.orgId)
      .where('environment', '=', 'test')
      .execute()
    assert.deepEqual(events, [])
    assert.deepEqual(await f.eventRows(order.id), [])
    const deliveries = await f.t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', testEndpoint.json().data.endpoint.id)
      .execute()
    assert.deepEqual(deliveries, [])
    await f.settle()
    assert.equal(f.receiver.received.filter((r) => r.url === '/test-env').length, 0)
    assert.equal(f.receivedFor(order.id).length, 0)

    // Deleted again so it does not count against other tests' expectations.
    const del = await f.t.api(
      f.tenant.testKey,
      'DELETE',
      `/v1/webhook-endpoints/${testEndpoint.json().data.endpoint.id}`,
    )
    assert.equal(del.statusCode, 200)
  })

  test('shop orders: live with production, status follows, never an event', async () => {
    f.tick()
    const res = await f.t.admin('POST', `/admin/v1/organizations/${f.tenant.orgId}/shop-orders`, orderBody())
    assert.equal(res.statusCode, 201, res.body)
    const shop = res.json().data.order as AdminOrder & { is_test: boolean }
    assert.equal(shop.source, 'shop')
    assert.equal(shop.is_test, false)
    const po = shop.production_order!
    assert.equal(po.status, 'pending')

    let at = f.tick()
    await f.setStatus(po.id, 'in_progress')
    await f.assertOrderState(shop.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: at,
    })
    at = f.tick()
    await f.completeJob(shop.items[0]!.production_job!.id)
    f.tick()
    await f.setStatus(po.id, 'failed')
    at = f.tick()
    await f.setStatus(po.id, 'completed')
    await f.assertOrderState(shop.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    const second = await f.t.admin(
      'POST',
      `/admin/v1/organizations/${f.tenant.orgId}/shop-orders`,
      orderBody(),
    )
    assert.equal(second.statusCode, 201, second.body)
    const secondId = second.json().data.order.id
    at = f.tick()
    const cancelled = await f.cancelOrder(secondId)
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.updated_at, at)

    for (const id of [shop.id, secondId]) {
      assert.deepEqual(await f.eventRows(id), [])
    }
    const deliveries = await f.t.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select('d.id')
      .where('e.order_id', 'in', [shop.id, secondId])
      .execute()
    assert.deepEqual(deliveries, [])
    await f.settle()
    assert.equal(f.receivedFor(shop.id).length + f.receivedFor(secondId).length, 0)
  })
})
