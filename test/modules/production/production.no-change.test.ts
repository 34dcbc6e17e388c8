import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { orderBody } from '../../helpers/app.ts'
import { expectedEvent, useProductionEvents } from '../../helpers/production-events.ts'

describe('production changes that change nothing emit nothing', () => {
  const f = useProductionEvents()

  test('a status the production order already has: no event, no updated_at change', async () => {
    const body = orderBody()
    const created = await f.createLiveOrder(body)
    const ao = await f.adminOrder(created.id)
    const po = ao.production_order!
    const storedPo = () =>
      f.t.db.selectFrom('production_orders').selectAll().where('id', '=', po.id).executeTakeFirstOrThrow()

    // pending -> pending on a fresh order.
    f.tick()
    await f.setStatus(po.id, 'pending')
    await f.assertOrderState(created.id, {
      status: 'pending',
      productionStatus: 'pending',
      items: ['pending', 'pending'],
      updated_at: created.updated_at,
    })

    const started = f.tick()
    await f.setStatus(po.id, 'in_progress')
    const before = await storedPo()
    f.tick()
    await f.setStatus(po.id, 'in_progress')
    assert.equal((await storedPo()).updated_at.toISOString(), before.updated_at.toISOString())
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: started,
    })

    // A job completed twice: one order_item.completed.
    const jobDone = f.tick()
    await f.completeJob(ao.items[0]!.production_job!.id)
    f.tick()
    await f.completeJob(ao.items[0]!.production_job!.id)
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: jobDone,
    })

    // Cancelled as a whole, then cancelled again either way: one order.cancelled.
    const cancelledAt = f.tick()
    await f.cancelOrder(created.id)
    f.tick()
    const again = await f.cancelOrder(created.id)
    assert.equal(again.updated_at, cancelledAt)
    f.tick()
    await f.setStatus(po.id, 'cancelled')
    await f.assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'cancelled'],
      updated_at: cancelledAt,
    })

    const envelopes = await f.assertDelivered(created.id, [
      expectedEvent.received(created),
      expectedEvent.started(created, po.id),
      expectedEvent.itemCompleted(created, ao.items[0]!, { sku: 'MUG-01', name: 'Mug' }),
      expectedEvent.cancelled(created, po.id),
    ])
    assert.equal(envelopes.length, 4)
  })

  test('a repeated identical POST /v1/orders produces no second order.received', async () => {
    const body = orderBody()
    const first = await f.createLiveOrder(body)
    f.tick()
    const repeat = await f.t.api(f.tenant.liveKey, 'POST', '/v1/orders', body)
    assert.equal(repeat.statusCode, 200, repeat.body)
    assert.equal(repeat.json().data.order.id, first.id)
    assert.equal(repeat.json().data.order.updated_at, first.updated_at)
    await f.assertDelivered(first.id, [
      { type: 'order.received', data: { order_id: first.id, external_order_id: body.external_order_id } },
    ])
  })
})
