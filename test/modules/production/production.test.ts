import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { countBoard } from '../../../src/modules/production/board/board.repo.ts'
import { createTestApp, manualClock, orderBody, type TestApp, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, HOSTILE_SVG, PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { type AdminOrder, expectedEvent, useProductionEvents } from '../../helpers/production-events.ts'

type Production = ReturnType<typeof useProductionEvents>

/** A live order made through /v1, the operator's view of it and its production order. */
async function liveOrder(f: Production, body = orderBody()) {
  const created = await f.createLiveOrder(body)
  const ao = await f.adminOrder(created.id)
  return { created, ao, po: ao.production_order! }
}

/**
 * A change at a moment of its own (the clock moves on first), then the order's
 * state in the operator's and the public view, updated at that moment.
 * Returns the moment.
 */
async function changedAt(
  f: Production,
  orderId: string,
  change: () => Promise<unknown>,
  expected: { status: string; productionStatus: string; items: string[] },
): Promise<string> {
  const at = f.tick()
  await change()
  await f.assertOrderState(orderId, { ...expected, updated_at: at })
  return at
}

/**
 * The production side (POST /admin/v1/production-orders/...) as receivers and
 * pollers see it. Each part has its own app, worker and receiver
 * (useProductionEvents): a part's tests assume its webhook log and clock are
 * theirs.
 */
describe('production changes emit the reference events', () => {
  const f = useProductionEvents()

  test('a live API order: every event type with the reference envelope and data; order and items follow', async () => {
    const body = orderBody()
    const { created, ao, po } = await liveOrder(f, body)
    assert.equal(ao.source, 'api')
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

    let at = await changedAt(f, created.id, () => f.setStatus(po.id, 'in_progress'), {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
    })

    at = await changedAt(f, created.id, () => f.completeJob(item0!.production_job!.id), {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
    })

    // The job already completed keeps 'completed'.
    at = await changedAt(f, created.id, () => f.setStatus(po.id, 'failed'), {
      status: 'failed',
      productionStatus: 'failed',
      items: ['completed', 'failed'],
    })

    at = await changedAt(f, created.id, () => f.setStatus(po.id, 'in_progress'), {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
    })

    at = f.tick()
    await f.completeJob(item1!.production_job!.id)
    at = await changedAt(f, created.id, () => f.setStatus(po.id, 'completed'), {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
    })

    at = await changedAt(f, created.id, () => f.setStatus(po.id, 'cancelled'), {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'completed'],
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
    const { created, ao, po } = await liveOrder(f)
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

describe('production changes that change nothing emit nothing', () => {
  const f = useProductionEvents()

  test('a status the production order already has: no event, no updated_at change', async () => {
    const { created, ao, po } = await liveOrder(f)
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

describe('partner, test and shop orders: their production events', () => {
  const f = useProductionEvents()

  test('partner orders: produced_by_partner true on order-level events, no order_item.completed, updated_at still moves', async () => {
    const body = orderBody()
    const { created, ao, po } = await liveOrder(f, body)
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
    const jobAt = await changedAt(f, created.id, () => f.completeJob(ao.items[0]!.production_job!.id), {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
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
    const { created: other, po: otherPo } = await liveOrder(f)
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

    let at = await changedAt(f, shop.id, () => f.setStatus(po.id, 'in_progress'), {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
    })
    at = f.tick()
    await f.completeJob(shop.items[0]!.production_job!.id)
    f.tick()
    await f.setStatus(po.id, 'failed')
    at = await changedAt(f, shop.id, () => f.setStatus(po.id, 'completed'), {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
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

describe('production changes and their events commit together', () => {
  const f = useProductionEvents()

  test('the change and its event commit together: a failing event write leaves the order unchanged', async () => {
    const { created, po } = await liveOrder(f)
    // Make the fan-out of one event type fail inside the transaction.
    await sql`
      create function refuse_failed_delivery() returns trigger language plpgsql as $$
      begin
        if new.event_type = 'order.production_failed' then
          raise exception 'refused by test';
        end if;
        return new;
      end $$`.execute(f.t.db)
    await sql`
      create trigger refuse_failed_delivery before insert on webhook_deliveries
      for each row execute function refuse_failed_delivery()`.execute(f.t.db)
    try {
      f.tick()
      const res = await f.t.admin('POST', `/admin/v1/production-orders/${po.id}/status`, { status: 'failed' })
      assert.equal(res.statusCode, 500, res.body)
      assert.equal(res.json().error.code, 'internal_error')
    } finally {
      await sql`drop trigger refuse_failed_delivery on webhook_deliveries`.execute(f.t.db)
      await sql`drop function refuse_failed_delivery()`.execute(f.t.db)
    }
    await f.assertOrderState(created.id, {
      status: 'pending',
      productionStatus: 'pending',
      items: ['pending', 'pending'],
      updated_at: created.updated_at,
    })
    assert.deepEqual(
      (await f.eventRows(created.id)).map((e) => e.type),
      ['order.received'],
    )

    await changedAt(f, created.id, () => f.setStatus(po.id, 'failed'), {
      status: 'failed',
      productionStatus: 'failed',
      items: ['failed', 'failed'],
    })
    await f.assertDelivered(created.id, [
      {
        type: 'order.received',
        data: { order_id: created.id, external_order_id: created.external_order_id },
      },
      {
        type: 'order.production_failed',
        data: {
          order_id: created.id,
          external_order_id: created.external_order_id,
          production_order_id: po.id,
          production_status: 'failed',
        },
      },
    ])
  })

  test('unknown production order, job or order ids: 404', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000'
    for (const [url, body] of [
      [`/admin/v1/production-orders/${unknown}/status`, { status: 'in_progress' }],
      [`/admin/v1/production-orders/not-a-uuid/status`, { status: 'in_progress' }],
      [`/admin/v1/production-orders/${unknown}/partner`, { produced_by_partner: true }],
      [`/admin/v1/production-jobs/${unknown}/complete`, undefined],
      [`/admin/v1/orders/${unknown}/cancel`, undefined],
    ] as const) {
      const res = await f.t.admin('POST', url, body)
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'not_found')
    }
  })
})

type OrderRef = { id: string; external_order_id: string }

const moved = (order: OrderRef, productionOrderId: string, status: 'in_progress' | 'completed') => ({
  type: status === 'in_progress' ? 'order.production_started' : 'order.production_completed',
  data: {
    order_id: order.id,
    external_order_id: order.external_order_id,
    production_order_id: productionOrderId,
    production_status: status,
  },
})

/**
 * POST /admin/v1/production-orders/{id}/status with `expected_status`: the
 * status the caller believes the order has, compared under the production
 * order's lock. A member's cancel and an operator's status change sent at the
 * same moment never both succeed, so receivers never get order.cancelled and
 * then another status, unless the operator said the order was cancelled.
 */
describe('the status change with expected_status', () => {
  const f = useProductionEvents()
  let member: Awaited<ReturnType<typeof memberOf>>
  const status = (id: string, body: Record<string, unknown>) =>
    f.t.admin('POST', `/admin/v1/production-orders/${id}/status`, body)

  async function livePendingOrder() {
    const { created: order, po } = await liveOrder(f)
    return { order, po: po.id }
  }

  async function liveOrderInProgress() {
    const { order, po } = await livePendingOrder()
    f.tick()
    await f.setStatus(po, 'in_progress')
    return { order, po }
  }

  test('after a member cancelled: another expected status is 409, changes nothing and sends nothing', async () => {
    member ??= await memberOf(f.t, f.tenant.orgId)
    const { order, po } = await liveOrderInProgress()
    const page = await f.adminOrder(order.id)
    const cancelledAt = f.tick()
    const cancel = await member.client.call('POST', `/orders/${order.id}/cancel`, {
      expected_updated_at: page.updated_at,
    })
    assert.equal(cancel.statusCode, 200, cancel.body)

    f.tick()
    const refused = assertError(
      await status(po, { status: 'completed', expected_status: 'in_progress' }),
      409,
      'production_conflict',
    )
    assert.match(refused.message, /its production status is now cancelled\. Nothing was done\./)
    await f.assertOrderState(order.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['cancelled', 'cancelled'],
      updated_at: cancelledAt,
    })
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
    ])
    const audit = await f.t.db
      .selectFrom('audit_log')
      .select('action')
      .where('subject', '=', po)
      .where('action', '=', 'production.status_set')
      .execute()
    assert.equal(audit.length, 1, 'only the start is audited')

    // Saying it is cancelled moves it: the operator means it, and the receivers learn it.
    const at = f.tick()
    const res = await status(po, { status: 'completed', expected_status: 'cancelled' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.production_order, {
      id: po,
      order_id: order.id,
      status: 'completed',
      produced_by_partner: false,
    })
    await f.assertOrderState(order.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
      moved(order, po, 'completed'),
    ])
  })

  test('without expected_status the reference holds: any status moves to any other', async () => {
    const { order, po } = await liveOrderInProgress()
    f.tick()
    await f.cancelOrder(order.id)
    f.tick()
    await f.setStatus(po, 'in_progress')
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
      expectedEvent.started(order, po),
    ])
  })

  test('the same status as expected: unchanged, 200, no event; a bad expected_status: 422', async () => {
    const { order, po } = await liveOrderInProgress()
    const before = await f.adminOrder(order.id)
    f.tick()
    const same = await status(po, { status: 'in_progress', expected_status: 'in_progress' })
    assert.equal(same.statusCode, 200, same.body)
    assertError(
      await status(po, { status: 'completed', expected_status: 'shipped' }),
      422,
      'validation_failed',
    )
    assertError(await status(po, { status: 'completed', expected_status: null }), 422, 'validation_failed')
    assert.equal((await f.adminOrder(order.id)).updated_at, before.updated_at)
    await f.assertDelivered(order.id, [expectedEvent.received(order), expectedEvent.started(order, po)])
  })

  test('GET /admin/v1/production-orders/{id}: the production order with its order; unknown: 404', async () => {
    const { order, po } = await liveOrderInProgress()
    const res = await f.t.admin('GET', `/admin/v1/production-orders/${po}`)
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.deepEqual(data.production_order, {
      id: po,
      order_id: order.id,
      status: 'in_progress',
      produced_by_partner: false,
    })
    assert.equal(data.order.id, order.id)
    assert.equal(data.order.source, 'api')
    assert.equal(data.organization.id, f.tenant.orgId)
    for (const id of ['01900000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      assertError(await f.t.admin('GET', `/admin/v1/production-orders/${id}`), 404, 'not_found')
    }
  })

  test('24 members cancel while an operator moves the same orders, expecting what it saw: one wins each time', async () => {
    member ??= await memberOf(f.t, f.tenant.orgId)
    const pairs: { order: OrderRef; po: string; seen: string; from: 'pending' | 'in_progress' }[] = []
    for (let n = 0; n < 24; n++) {
      const from = n % 2 === 0 ? 'pending' : 'in_progress'
      const { order, po } = from === 'pending' ? await livePendingOrder() : await liveOrderInProgress()
      pairs.push({ order, po, seen: (await f.adminOrder(order.id)).updated_at, from })
    }
    // Both sides act later than what they saw, at about the same moment; one
    // of them, chosen at random, starts up to 20 ms later, so either may lock first.
    f.tick()
    const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20))
    const answers: Awaited<ReturnType<typeof status>>[] = []
    for (const p of pairs) {
      const memberLater = Math.random() < 0.5
      const pair = await Promise.all([
        (memberLater ? later() : Promise.resolve()).then(() =>
          member.client.call('POST', `/orders/${p.order.id}/cancel`, { expected_updated_at: p.seen }),
        ),
        (memberLater ? Promise.resolve() : later()).then(() =>
          status(p.po, {
            status: p.from === 'pending' ? 'in_progress' : 'completed',
            expected_status: p.from,
          }),
        ),
      ])
      answers.push(...pair)
    }
    const winners = { cancel: 0, operator: 0 }
    for (const [n, p] of pairs.entries()) {
      const cancel = answers[2 * n]!
      const change = answers[2 * n + 1]!
      const codes = [cancel.statusCode, change.statusCode].sort()
      assert.deepEqual(codes, [200, 409], `${cancel.body} / ${change.body}`)
      const loser = cancel.statusCode === 409 ? cancel : change
      assert.equal(loser.json().error.code, 'production_conflict')
      const order = await f.adminOrder(p.order.id)
      const before = p.from === 'pending' ? [] : [expectedEvent.started(p.order, p.po)]
      if (cancel.statusCode === 200) {
        winners.cancel++
        assert.equal(order.production_order!.status, 'cancelled')
        await f.assertDelivered(p.order.id, [
          expectedEvent.received(p.order),
          ...before,
          expectedEvent.cancelled(p.order, p.po),
        ])
      } else {
        winners.operator++
        const to = p.from === 'pending' ? 'in_progress' : 'completed'
        assert.equal(order.production_order!.status, to)
        await f.assertDelivered(p.order.id, [
          expectedEvent.received(p.order),
          ...before,
          moved(p.order, p.po, to),
        ])
      }
    }
    assert.equal(winners.cancel + winners.operator, 24, JSON.stringify(winners))
  })
})

describe('the production order page and board counts', () => {
  const clock = manualClock(new Date('2026-11-29T08:00:00.000Z'))
  const t = useTestApp({ clock })

  type Counts = Record<string, { count: number; more: boolean }>

  async function productionOrderOf(orderId: string) {
    return t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow()
  }

  describe('the production order page (console API)', () => {
    let operator: Awaited<ReturnType<typeof operatorOf>>
    before(async () => {
      operator = await operatorOf(t)
    })

    test('shows every item with SKU, quantity, every personalization field and every file, the partner flag, the customer and the history', async () => {
      const org = await t.tenant('Page Prints')
      const [photo, logo, proof] = [
        await uploadFile(t, org.liveKey, png(), 'photo.png'),
        await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg'),
        await uploadFile(t, org.liveKey, PDF, 'proof.pdf'),
      ]
      const body = orderBody({
        customer: { name: 'Ada Print', email: 'ada@example.com', phone: '+49 30 1234' },
        items: [
          {
            sku: 'MUG-01',
            name: 'Mug',
            quantity: 3,
            personalization: { text: 'Happy birthday', color: 'navy', font_size: 14, gift_wrap: true },
            files: [{ upload_id: photo, role: 'front' }, { upload_id: logo }],
          },
          { name: 'Card', quantity: 1, files: [{ upload_id: proof, role: 'proof' }] },
        ],
      })
      const order = await createOrder(t, org.liveKey, body)
      const { id } = await productionOrderOf(order.id)
      const partner = await operator.client.call('POST', `/operator/production-orders/${id}/partner`, {
        produced_by_partner: true,
      })
      assert.equal(partner.statusCode, 200, partner.body)

      const res = await operator.client.call('GET', `/operator/production-orders/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      const data = res.json().data
      assert.deepEqual(data.production_order, {
        id,
        order_id: order.id,
        status: 'pending',
        produced_by_partner: true,
      })
      assert.deepEqual(data.organization, { id: org.orgId, name: 'Page Prints' })
      assert.equal(data.order.external_order_id, body.external_order_id)
      assert.deepEqual(data.order.customer, {
        name: 'Ada Print',
        email: 'ada@example.com',
        phone: '+49 30 1234',
      })
      assert.deepEqual(
        data.order.items.map((i: { sku: string | null; name: string; quantity: number }) => [
          i.sku,
          i.name,
          i.quantity,
        ]),
        [
          ['MUG-01', 'Mug', 3],
          [null, 'Card', 1],
        ],
      )
      assert.deepEqual(data.order.items[0].personalization, {
        text: 'Happy birthday',
        color: 'navy',
        font_size: 14,
        gift_wrap: true,
      })
      assert.deepEqual(
        data.order.items.flatMap(
          (i: { files: { name: string; role: string | null; content_type: string }[] }) =>
            i.files.map((f) => [f.name, f.role, f.content_type]),
        ),
        [
          ['photo.png', 'front', 'image/png'],
          ['logo.svg', null, 'image/svg+xml'],
          ['proof.pdf', 'proof', 'application/pdf'],
        ],
      )
      assert.deepEqual(
        data.timeline.map((e: { type: string }) => e.type),
        ['order.received'],
      )

      // Each file through the production order: PNG and PDF as uploaded, the SVG sanitized.
      const file = (uploadId: string) =>
        operator.client.call('GET', `/operator/production-orders/${id}/files/${uploadId}`)
      const png1 = await file(photo)
      assert.equal(png1.statusCode, 200)
      assert.equal(png1.headers['content-type'], 'image/png')
      assert.match(String(png1.headers['content-disposition']), /^attachment; filename="photo\.png"/)
      assert.deepEqual(png1.rawPayload, png())
      assert.deepEqual((await file(proof)).rawPayload, PDF)
      const svg = await file(logo)
      assert.equal(svg.headers['content-type'], 'image/svg+xml')
      assert.match(svg.body, /<rect/)
      assert.doesNotMatch(svg.body, /script|onload/)
    })

    test('an unknown production order, or a file of another order, is 404; members get 403', async () => {
      const org = await t.tenant()
      const mine = await uploadFile(t, org.liveKey, png(), 'mine.png')
      const other = await uploadFile(t, org.liveKey, png([0, 0, 200]), 'other.png')
      const order = await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ name: 'A', quantity: 1, files: [{ upload_id: mine }] }] }),
      )
      await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ name: 'B', quantity: 1, files: [{ upload_id: other }] }] }),
      )
      const { id } = await productionOrderOf(order.id)
      const call = (path: string) => operator.client.call('GET', path)
      assertError(
        await call('/operator/production-orders/00000000-0000-7000-8000-000000000000'),
        404,
        'not_found',
      )
      assertError(await call('/operator/production-orders/not-a-uuid'), 404, 'not_found')
      assertError(await call(`/operator/production-orders/${order.id}`), 404, 'not_found')
      assertError(await call(`/operator/production-orders/${id}/files/${other}`), 404, 'not_found')
      const member = await memberOf(t, org.orgId, 'owner')
      assertError(await member.client.call('GET', `/operator/production-orders/${id}`), 403, 'role_required')
      // The console's order page reads the same files through the order.
      const own = await call(`/operator/orders/${order.id}/files/${mine}`)
      assert.equal(own.statusCode, 200)
      assert.equal(own.headers['content-type'], 'image/png')
      assert.match(String(own.headers['content-disposition']), /^attachment; filename="mine\.png"/)
      assert.equal(own.headers['content-security-policy'], "default-src 'none'; sandbox")
      assert.deepEqual(own.rawPayload, png())
      assertError(await call(`/operator/orders/${order.id}/files/${other}`), 404, 'not_found')
      assertError(
        await member.client.call('GET', `/operator/orders/${order.id}/files/${mine}`),
        403,
        'role_required',
      )
    })
  })

  describe('the production board counts', () => {
    let operator: Awaited<ReturnType<typeof operatorOf>>
    before(async () => {
      operator = await operatorOf(t)
    })

    async function counts(query: string): Promise<Counts> {
      const res = await operator.client.call('GET', `/operator/production?${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().counts
    }
    const plain = (c: Counts) =>
      Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.more ? `>${v.count}` : v.count]))

    test('follow the filters: organization, partner and age; the pages after the first carry none', async () => {
      const [a, b] = [await t.tenant('Counts A'), await t.tenant('Counts B')]
      const aOld = await createOrder(t, a.liveKey, orderBody())
      clock.advance(2 * 60 * 60_000)
      const aStarted = await createOrder(t, a.liveKey, orderBody())
      await createOrder(t, a.liveKey, orderBody())
      await createOrder(t, a.testKey, orderBody())
      const bPartner = await createOrder(t, b.liveKey, orderBody())
      const start = await operator.client.call(
        'POST',
        `/operator/production-orders/${(await productionOrderOf(aStarted.id)).id}/status`,
        { status: 'in_progress' },
      )
      assert.equal(start.statusCode, 200, start.body)
      const partner = await operator.client.call(
        'POST',
        `/operator/production-orders/${(await productionOrderOf(bPartner.id)).id}/partner`,
        { produced_by_partner: true },
      )
      assert.equal(partner.statusCode, 200, partner.body)

      const none = { completed: 0, failed: 0, cancelled: 0, held: 0 }
      assert.deepEqual(plain(await counts(`organization_id=${a.orgId}`)), {
        pending: 2,
        in_progress: 1,
        ...none,
      })
      assert.deepEqual(plain(await counts(`organization_id=${b.orgId}`)), {
        pending: 1,
        in_progress: 0,
        ...none,
      })
      assert.deepEqual(plain(await counts(`organization_id=${b.orgId}&partner=false`)), {
        pending: 0,
        in_progress: 0,
        ...none,
      })
      assert.deepEqual(plain(await counts(`organization_id=${a.orgId}&older_than_minutes=60`)), {
        pending: 1,
        in_progress: 0,
        ...none,
      })
      // The status shown does not change the counts; a second page has none.
      assert.deepEqual(
        plain(await counts(`organization_id=${a.orgId}&status=in_progress`)),
        plain(await counts(`organization_id=${a.orgId}`)),
      )
      const first = await operator.client.call(
        'GET',
        `/operator/production?organization_id=${a.orgId}&limit=1`,
      )
      const next = first.json().next_cursor
      assert.ok(next)
      const second = await operator.client.call(
        'GET',
        `/operator/production?organization_id=${a.orgId}&limit=1&cursor=${next}`,
      )
      assert.equal(first.json().data[0].order.id, aOld.id)
      assert.equal(second.json().counts, null)
      assert.notEqual(second.json().data[0].order.id, aOld.id)
    })

    test('counting stops one past the cap, so a crowded status costs a bounded walk', async () => {
      const org = await t.tenant()
      for (let n = 0; n < 4; n++) await createOrder(t, org.liveKey, orderBody())
      const capped = await countBoard(t.db, { organizationId: org.orgId }, ['pending', 'failed'], 2)
      assert.deepEqual(capped, { pending: 3, failed: 0 })
    })
  })
})

describe('a member cancels an order from its page (production.dashboard.routes.ts)', () => {
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>

  before(async () => {
    t = await createTestApp()
    org = await t.tenant('Cancelling Prints')
    developer = await memberOf(t, org.orgId, 'developer')
    viewer = await memberOf(t, org.orgId, 'viewer')
  })
  after(() => t.close())

  type Order = {
    id: string
    updated_at: string
    status: string
    production_order: { id: string; status: string } | null
    items: { id: string; quantity: number }[]
  }

  async function pageOf(orderId: string): Promise<Order> {
    const res = await developer.client.call('GET', `/orders/${orderId}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order
  }

  const eventsOf = (orderId: string) =>
    t.db.selectFrom('events').select(['type', 'data']).where('order_id', '=', orderId).orderBy('id').execute()

  const historyOf = async (orderId: string) => {
    const res = await viewer.client.call('GET', `/orders/${orderId}/history`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as {
      action: string
      details: { before: { status?: string }; after: { status?: string } }
    }[]
  }

  test('a member cancels a live order: order.cancelled exactly as the operator\u2019s, once', async () => {
    const body = orderBody()
    const { id } = await createOrder(t, org.liveKey, body)
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: shown.updated_at,
    })
    assert.equal(res.statusCode, 200, res.body)
    const order = res.json().data.order as Order
    assert.equal(order.status, 'cancelled')
    assert.equal(order.production_order!.status, 'cancelled')
    assert.ok(order.updated_at > shown.updated_at)
    const events = await eventsOf(id)
    assert.deepEqual(events.at(-1), {
      type: 'order.cancelled',
      data: {
        order_id: id,
        external_order_id: body.external_order_id,
        production_order_id: shown.production_order!.id,
        sequence: 2,
      },
    })
    const [entry] = await historyOf(id)
    assert.equal(entry!.action, 'order.cancelled')
    assert.deepEqual(
      [entry!.details.before, entry!.details.after],
      [{ status: 'pending' }, { status: 'cancelled' }],
    )
    const again = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: order.updated_at,
    })
    assert.match(assertError(again, 409, 'production_conflict').message, /already cancelled/)
    assert.equal((await eventsOf(id)).length, 2)
  })

  test('test orders: changed without events, never cancelled; shop orders change without events', async () => {
    const { id } = await createOrder(t, org.testKey, orderBody())
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/changes`, {
      expected_updated_at: shown.updated_at,
      items: [{ id: shown.items[1]!.id, quantity: 4 }],
    })
    assert.equal(res.statusCode, 200, res.body)
    const cancel = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: res.json().data.order.updated_at,
    })
    assertError(cancel, 422, 'validation_failed')
    assert.equal((await pageOf(id)).status, 'pending')
    assert.deepEqual(await eventsOf(id), [])

    const shop = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/shop-orders`, orderBody())
    assert.equal(shop.statusCode, 201, shop.body)
    const shopOrder = await pageOf(shop.json().data.order.id)
    const changed = await developer.client.call('POST', `/orders/${shopOrder.id}/changes`, {
      expected_updated_at: shopOrder.updated_at,
      customer: { name: 'Shop customer' },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(await eventsOf(shopOrder.id), [])
  })

  test("another organization's member: 404 for its cancel and release, and nothing changes", async () => {
    const { id } = await createOrder(t, org.liveKey, orderBody())
    const shown = await pageOf(id)
    const other = await t.tenant('Other Prints')
    const stranger = await memberOf(t, other.orgId, 'owner')
    for (const action of ['cancel', 'release']) {
      const res = await stranger.client.call('POST', `/orders/${id}/${action}`, {
        expected_updated_at: shown.updated_at,
      })
      assertError(res, 404, 'not_found')
    }
    const after = await pageOf(id)
    assert.equal(after.updated_at, shown.updated_at)
    assert.equal(after.production_order!.status, 'pending')
    assert.equal((await eventsOf(id)).length, 1)
  })
})

describe('the production board and its actions, in the console (production.console.routes.ts)', () => {
  const clock = manualClock(new Date('2026-11-26T09:00:00.000Z'))
  const t = useTestApp({ clock, resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

  interface BoardEntry {
    production_order: { id: string; order_id: string; status: string; produced_by_partner: boolean }
    order: { id: string; external_order_id: string; status: string; source: string }
    organization: { id: string; name: string }
    created_at: string
    items: { id: string; sku: string | null; name: string; job: { id: string; status: string } | null }[]
  }
  interface ProducedEvent {
    id: string
    type: string
    data: Record<string, unknown>
  }

  async function board(
    client: DashboardClient,
    query: string,
  ): Promise<{ data: BoardEntry[]; next_cursor: string | null }> {
    const res = await client.call('GET', `/operator/production?${query}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  /** The order's events as stored in the outbox, oldest first. */
  async function storedEvents(orderId: string) {
    return t.db
      .selectFrom('events')
      .select(['id', 'type'])
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  }

  async function platformLog(client: DashboardClient) {
    const res = await client.call('GET', '/operator/audit-log?limit=100')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as {
      actor: string
      action: string
      subject: string
      organization_id: string | null
    }[]
  }

  let operator: Awaited<ReturnType<typeof operatorOf>>
  let orgId: string
  let liveKey: string
  before(async () => {
    operator = await operatorOf(t)
    orgId = (await t.createOrganization('Console Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
  })

  test('the board: live orders of one status, oldest first, with organization, partner and age filters and keyset pages', async () => {
    const org = await t.tenant('Board Org')
    const first = await createOrder(t, org.liveKey, orderBody())
    clock.advance(60 * 60_000)
    const second = await createOrder(t, org.liveKey, orderBody())
    clock.advance(60_000)
    const third = await createOrder(t, org.liveKey, orderBody())
    await createOrder(t, org.testKey, orderBody())

    const all = await board(operator.client, `organization_id=${org.orgId}`)
    assert.deepEqual(
      all.data.map((e) => e.order.id),
      [first.id, second.id, third.id],
    )
    assert.equal(all.data[0]!.organization.name, 'Board Org')
    assert.equal(all.data[0]!.items.length, 2)
    assert.equal(all.data[0]!.items[0]!.job!.status, 'pending')

    const page1 = await board(operator.client, `organization_id=${org.orgId}&limit=2`)
    assert.deepEqual(
      page1.data.map((e) => e.order.id),
      [first.id, second.id],
    )
    const page2 = await board(
      operator.client,
      `organization_id=${org.orgId}&limit=2&cursor=${page1.next_cursor}`,
    )
    assert.deepEqual(
      page2.data.map((e) => e.order.id),
      [third.id],
    )
    assert.equal(page2.next_cursor, null)

    const old = await board(operator.client, `organization_id=${org.orgId}&older_than_minutes=30`)
    assert.deepEqual(
      old.data.map((e) => e.order.id),
      [first.id],
    )

    const partner = await operator.client.call(
      'POST',
      `/operator/production-orders/${all.data[1]!.production_order.id}/partner`,
      { produced_by_partner: true, expected_status: 'pending' },
    )
    assert.equal(partner.statusCode, 200, partner.body)
    assert.deepEqual(partner.json().data.events, [])
    const partnered = await board(operator.client, `organization_id=${org.orgId}&partner=true`)
    assert.deepEqual(
      partnered.data.map((e) => e.order.id),
      [second.id],
    )
    const own = await board(operator.client, `organization_id=${org.orgId}&partner=false`)
    assert.deepEqual(
      own.data.map((e) => e.order.id),
      [first.id, third.id],
    )
    assert.deepEqual(
      (await board(operator.client, `organization_id=${org.orgId}&status=in_progress`)).data,
      [],
    )
    assertError(
      await operator.client.call('GET', '/operator/production?cursor=nonsense'),
      422,
      'validation_failed',
    )
  })

  test('each action answers the events it recorded; pending to completed item by item', async () => {
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id

    const started = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'in_progress',
      expected_status: 'pending',
    })
    assert.equal(started.statusCode, 200, started.body)
    assert.equal(started.json().data.production_order.status, 'in_progress')
    const startedEvents: ProducedEvent[] = started.json().data.events
    assert.deepEqual(
      startedEvents.map((e) => [e.type, e.data.production_status]),
      [['order.production_started', 'in_progress']],
    )

    const items: ProducedEvent[] = []
    for (const item of entry!.items) {
      const done = await operator.client.call('POST', `/operator/production-jobs/${item.job!.id}/complete`, {
        expected_status: 'in_progress',
      })
      assert.equal(done.statusCode, 200, done.body)
      items.push(...done.json().data.events)
    }
    assert.deepEqual(
      items.map((e) => [e.type, e.data.order_item_id]),
      entry!.items.map((i) => ['order_item.completed', i.id]),
    )

    const completed = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'completed',
      expected_status: 'in_progress',
    })
    assert.equal(completed.statusCode, 200, completed.body)
    const completedEvents: ProducedEvent[] = completed.json().data.events
    assert.deepEqual(
      completedEvents.map((e) => [e.type, e.data.production_status]),
      [['order.production_completed', 'completed']],
    )

    // The answers' events are the order's stored events, in the order of recording, each
    // numbered after order.received (what webhook endpoints receive: production.test.ts).
    const answered = [...startedEvents, ...items, ...completedEvents]
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.id).slice(1),
      answered.map((e) => e.id),
    )
    assert.deepEqual(
      answered.map((e) => e.data.sequence),
      [2, 3, 4, 5],
    )
    const log = await platformLog(operator.client)
    assert.ok(log.some((e) => e.action === 'production.status_set' && e.actor === operator.email))
    assert.ok(log.some((e) => e.action === 'production.job_completed' && e.actor === operator.email))
  })

  test('a stale page gets 409 production_conflict naming the current status, and nothing is recorded', async () => {
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id
    const before = await storedEvents(order.id)
    const stale = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'completed',
      expected_status: 'in_progress',
    })
    const error = assertError(stale, 409, 'production_conflict')
    assert.match(error.message, /now pending/)
    assertError(
      await operator.client.call('POST', `/operator/orders/${order.id}/cancel`, {
        expected_status: 'in_progress',
      }),
      409,
      'production_conflict',
    )
    assert.deepEqual(await storedEvents(order.id), before)

    const cancelled = await operator.client.call('POST', `/operator/orders/${order.id}/cancel`, {
      expected_status: 'pending',
    })
    assert.equal(cancelled.statusCode, 200, cancelled.body)
    assert.equal(cancelled.json().data.order.status, 'cancelled')
    assert.deepEqual(
      cancelled.json().data.events.map((e: ProducedEvent) => [e.type, 'production_status' in e.data]),
      [['order.cancelled', false]],
    )
  })

  test('two operators acting on the same order at once: one acts, the other gets 409, one event', async () => {
    const second = await operatorOf(t)
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id
    const body = { status: 'in_progress', expected_status: 'pending' }
    const answers = await Promise.all([
      operator.client.call('POST', `/operator/production-orders/${po}/status`, body),
      second.client.call('POST', `/operator/production-orders/${po}/status`, body),
    ])
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [200, 409],
      answers.map((a) => a.body).join('\n'),
    )
    assert.match(answers.find((a) => a.statusCode === 409)!.json().error.message, /now in_progress/)
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.type),
      ['order.received', 'order.production_started'],
    )

    // The same item's job completed by both at once: one order_item.completed.
    const job = entry!.items[0]!.job!.id
    const jobs = await Promise.all([
      operator.client.call('POST', `/operator/production-jobs/${job}/complete`, {
        expected_status: 'in_progress',
      }),
      second.client.call('POST', `/operator/production-jobs/${job}/complete`, {
        expected_status: 'in_progress',
      }),
    ])
    assert.deepEqual(jobs.map((a) => a.statusCode).sort(), [200, 409], jobs.map((a) => a.body).join('\n'))
    assert.match(jobs.find((a) => a.statusCode === 409)!.json().error.message, /already completed/)
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.type),
      ['order.received', 'order.production_started', 'order_item.completed'],
    )
  })
})
