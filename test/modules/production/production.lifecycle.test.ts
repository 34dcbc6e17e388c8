import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { orderBody } from '../../helpers/app.ts'
import { expectedEvent, useProductionEvents } from '../../helpers/production-events.ts'

describe('production changes emit the reference events', () => {
  const f = useProductionEvents()

  test('a live API order: every event type with the reference envelope and data; order and items follow', async () => {
    const body = orderBody()
    const created = await f.createLiveOrder(body)
    const ao = await f.adminOrder(created.id)
    assert.equal(ao.source, 'api')
    const po = ao.production_order!
    assert.equal(po.status, 'pending')
    assert.equal(po.produced_by_partner, false)
    const [item0, item1] = ao.items
    assert.equal(item0!.production_job?.status, 'pending')
    const base = { order_id: created.id, external_order_id: body.external_order_id }
    const statusData = (status: string) => ({
      ...base,
      production_order_id: po.id,
      production_status: status,
    })

    let at = f.tick()
    await f.setStatus(po.id, 'in_progress')
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: at,
    })

    at = f.tick()
    await f.completeJob(item0!.production_job!.id)
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: at,
    })

    at = f.tick()
    await f.setStatus(po.id, 'failed')
    // The job already completed keeps 'completed'.
    await f.assertOrderState(created.id, {
      status: 'failed',
      productionStatus: 'failed',
      items: ['completed', 'failed'],
      updated_at: at,
    })

    at = f.tick()
    await f.setStatus(po.id, 'in_progress')
    await f.assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: at,
    })

    at = f.tick()
    await f.completeJob(item1!.production_job!.id)
    at = f.tick()
    await f.setStatus(po.id, 'completed')
    await f.assertOrderState(created.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    at = f.tick()
    await f.setStatus(po.id, 'cancelled')
    await f.assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    const envelopes = await f.assertDelivered(created.id, [
      { type: 'order.received', data: base },
      { type: 'order.production_started', data: statusData('in_progress') },
      {
        type: 'order_item.completed',
        data: {
          ...base,
          order_item_id: item0!.id,
          production_job_id: item0!.production_job!.id,
          sku: 'MUG-01',
          name: 'Mug',
        },
      },
      { type: 'order.production_failed', data: statusData('failed') },
      { type: 'order.production_started', data: statusData('in_progress') },
      {
        type: 'order_item.completed',
        data: {
          ...base,
          order_item_id: item1!.id,
          production_job_id: item1!.production_job!.id,
          sku: null,
          name: 'Card',
        },
      },
      { type: 'order.production_completed', data: statusData('completed') },
      { type: 'order.cancelled', data: statusData('cancelled') },
    ])
    assert.equal(new Set(envelopes.map((e) => e.id)).size, envelopes.length, 'event ids are unique')
    // created_at is when the event was recorded (the change's time), not the attempt's.
    assert.equal(envelopes[0]!.created_at, created.updated_at)
    assert.equal(envelopes.at(-1)!.created_at, at)
  })

  test('whole-order cancel: order.cancelled without production_status; unfinished items cancelled', async () => {
    const body = orderBody()
    const created = await f.createLiveOrder(body)
    const ao = await f.adminOrder(created.id)
    const po = ao.production_order!
    f.tick()
    await f.setStatus(po.id, 'in_progress')
    f.tick()
    await f.completeJob(ao.items[0]!.production_job!.id)
    const at = f.tick()
    const cancelled = await f.cancelOrder(created.id)
    assert.equal(cancelled.id, created.id)
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.updated_at, at)
    assert.equal(cancelled.production_order?.status, 'cancelled')
    await f.assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'cancelled'],
      updated_at: at,
    })
    const envelopes = await f.assertDelivered(created.id, [
      expectedEvent.received(created),
      expectedEvent.started(created, po.id),
      expectedEvent.itemCompleted(created, ao.items[0]!, { sku: 'MUG-01', name: 'Mug' }),
      expectedEvent.cancelled(created, po.id),
    ])
    assert.equal('production_status' in envelopes.at(-1)!.data, false)
    assert.equal('produced_by_partner' in envelopes.at(-1)!.data, false)
  })
})
