import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, manualClock, orderBody, type TestApp } from '../../helpers/app.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const ENVELOPE_KEYS = ['api_version', 'created_at', 'data', 'id', 'type']

interface Envelope {
  id: string
  type: string
  created_at: string
  api_version: string
  data: Record<string, unknown>
}

interface AdminOrder {
  id: string
  external_order_id: string
  status: string
  updated_at: string
  source: string
  production_order: { id: string; status: string; produced_by_partner: boolean } | null
  items: {
    id: string
    sku: string | null
    name: string
    production_status: string | null
    production_job: { id: string; status: string } | null
  }[]
}

/**
 * The production side seen from a receiver: every event the reference lists,
 * driven through the operator API, delivered by a running worker to two live
 * endpoints of the organization (paths /a and /b of one HTTPS receiver).
 */
describe('production changes emit the reference events', () => {
  const clock = manualClock()
  let t: TestApp
  let receiver: Receiver
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  const endpointIds: string[] = []

  before(async () => {
    t = await createTestApp({
      clock,
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    })
    receiver = await startReceiver()
    tenant = await t.tenant()
    for (const path of ['/a', '/b']) {
      const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url: receiver.url(path) })
      assert.equal(res.statusCode, 201, res.body)
      endpointIds.push(res.json().data.endpoint.id)
    }
    await t.startDispatcher({ ca: receiver.ca })
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  /** Moves the manual clock on, so every change gets a timestamp of its own. */
  function tick(): string {
    clock.advance(1000)
    return clock.now().toISOString()
  }

  async function createLiveOrder(body = orderBody()) {
    tick()
    const res = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.order as { id: string; external_order_id: string; updated_at: string }
  }

  async function adminOrder(id: string): Promise<AdminOrder> {
    const res = await t.admin('GET', `/admin/v1/orders/${id}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order
  }

  async function setStatus(productionOrderId: string, status: string) {
    const res = await t.admin('POST', `/admin/v1/production-orders/${productionOrderId}/status`, { status })
    assert.equal(res.statusCode, 200, res.body)
    const po = res.json().data.production_order
    assert.equal(po.id, productionOrderId)
    assert.equal(po.status, status)
    return po
  }

  async function completeJob(jobId: string) {
    const res = await t.admin('POST', `/admin/v1/production-jobs/${jobId}/complete`)
    assert.equal(res.statusCode, 200, res.body)
    const job = res.json().data.production_job
    assert.equal(job.id, jobId)
    assert.equal(job.status, 'completed')
    return job
  }

  async function cancelOrder(orderId: string) {
    const res = await t.admin('POST', `/admin/v1/orders/${orderId}/cancel`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order as AdminOrder
  }

  /** Order status, item production statuses and updated_at, in the operator and the public view. */
  async function assertOrderState(
    orderId: string,
    expected: { status: string; items: string[]; updated_at: string; productionStatus: string },
  ) {
    const admin = await adminOrder(orderId)
    assert.equal(admin.status, expected.status)
    assert.equal(admin.updated_at, expected.updated_at)
    assert.equal(admin.production_order?.status, expected.productionStatus)
    assert.deepEqual(
      admin.items.map((i) => i.production_status),
      expected.items,
    )
    assert.deepEqual(
      admin.items.map((i) => i.production_job?.status),
      expected.items,
    )
    const pub = await t.api(tenant.liveKey, 'GET', `/v1/orders/${orderId}`)
    assert.equal(pub.statusCode, 200, pub.body)
    const order = pub.json().data.order
    assert.equal(order.status, expected.status)
    assert.equal(order.updated_at, expected.updated_at)
    assert.deepEqual(
      order.items.map((i: { production_status: string }) => i.production_status),
      expected.items,
    )
  }

  /** Waits until the worker has settled every delivery (none pending). */
  async function settle() {
    const deadline = Date.now() + 10_000
    for (;;) {
      const { n } = await t.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow()
      if (Number(n) === 0) return
      if (Date.now() > deadline) throw new Error(`${n} deliveries still pending`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  /** What the receiver got on one path for one order, in event order. */
  function receivedFor(orderId: string, path = '/a') {
    return receiver.received
      .filter((r) => r.url === path)
      .map((r) => ({ req: r, envelope: JSON.parse(r.body.toString('utf8')) as Envelope }))
      .filter((r) => r.envelope.data.order_id === orderId)
      .sort((x, y) => x.envelope.created_at.localeCompare(y.envelope.created_at))
  }

  async function eventRows(orderId: string) {
    return t.db
      .selectFrom('events')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .execute()
  }

  /**
   * Exactly these events, in this order: the stored rows, one succeeded delivery
   * per endpoint for each, and what both endpoints received (envelope, data,
   * headers). Returns the envelopes.
   */
  async function assertDelivered(
    orderId: string,
    expected: { type: string; data: Record<string, unknown> }[],
  ): Promise<Envelope[]> {
    await settle()
    const rows = await eventRows(orderId)
    assert.deepEqual(
      rows.map((r) => [r.type, r.data, r.organization_id, r.environment]),
      expected.map((e) => [e.type, e.data, tenant.orgId, 'live']),
    )
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where(
        'event_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
    assert.equal(deliveries.length, rows.length * endpointIds.length)
    for (const row of rows) {
      const mine = deliveries.filter((d) => d.event_id === row.id)
      assert.deepEqual(mine.map((d) => d.endpoint_id).sort(), [...endpointIds].sort())
      for (const d of mine) {
        assert.equal(d.event_type, row.type)
        assert.equal(d.status, 'succeeded')
        assert.equal(d.attempts, 1)
        assert.equal(d.organization_id, tenant.orgId)
        assert.equal(d.environment, 'live')
        // Fanned out in the event's transaction, at the event's time.
        assert.equal(d.created_at.toISOString(), row.created_at.toISOString())
      }
    }

    const onA = receivedFor(orderId, '/a')
    const onB = receivedFor(orderId, '/b')
    assert.equal(onA.length, expected.length, 'each event reaches /a exactly once')
    assert.equal(onB.length, expected.length, 'each event reaches /b exactly once')
    onA.forEach(({ req, envelope }, n) => {
      const row = rows[n]!
      assert.deepEqual(Object.keys(envelope).sort(), ENVELOPE_KEYS)
      assert.equal(envelope.id, row.id)
      assert.equal(envelope.type, expected[n]!.type)
      assert.match(envelope.created_at, ISO_MS)
      assert.equal(envelope.created_at, row.created_at.toISOString())
      assert.equal(envelope.api_version, 'v1')
      assert.deepEqual(envelope.data, expected[n]!.data)
      assert.equal(req.method, 'POST')
      assert.equal(req.headers['x-service-event-id'], envelope.id)
      assert.equal(req.headers['x-service-event-type'], envelope.type)
      assert.equal(req.headers['user-agent'], 'Service-Webhooks/1.0')
      assert.equal(String(req.headers['content-type']).split(';')[0]!.trim(), 'application/json')
      assert.match(String(req.headers['x-service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/)
      // The other endpoint got the same body for the same event.
      assert.equal(onB[n]!.req.body.toString('utf8'), req.body.toString('utf8'))
    })
    return onA.map((r) => r.envelope)
  }

  test('a live API order: every event type with the reference envelope and data; order and items follow', async () => {
    const body = orderBody()
    const created = await createLiveOrder(body)
    const ao = await adminOrder(created.id)
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

    let at = tick()
    await setStatus(po.id, 'in_progress')
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: at,
    })

    at = tick()
    await completeJob(item0!.production_job!.id)
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: at,
    })

    at = tick()
    await setStatus(po.id, 'failed')
    // The job already completed keeps 'completed'.
    await assertOrderState(created.id, {
      status: 'failed',
      productionStatus: 'failed',
      items: ['completed', 'failed'],
      updated_at: at,
    })

    at = tick()
    await setStatus(po.id, 'in_progress')
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: at,
    })

    at = tick()
    await completeJob(item1!.production_job!.id)
    at = tick()
    await setStatus(po.id, 'completed')
    await assertOrderState(created.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    at = tick()
    await setStatus(po.id, 'cancelled')
    await assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    const envelopes = await assertDelivered(created.id, [
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
    const created = await createLiveOrder(body)
    const ao = await adminOrder(created.id)
    const po = ao.production_order!
    tick()
    await setStatus(po.id, 'in_progress')
    tick()
    await completeJob(ao.items[0]!.production_job!.id)
    const at = tick()
    const cancelled = await cancelOrder(created.id)
    assert.equal(cancelled.id, created.id)
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.updated_at, at)
    assert.equal(cancelled.production_order?.status, 'cancelled')
    await assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'cancelled'],
      updated_at: at,
    })
    const envelopes = await assertDelivered(created.id, [
      { type: 'order.received', data: { order_id: created.id, external_order_id: body.external_order_id } },
      {
        type: 'order.production_started',
        data: {
          order_id: created.id,
          external_order_id: body.external_order_id,
          production_order_id: po.id,
          production_status: 'in_progress',
        },
      },
      {
        type: 'order_item.completed',
        data: {
          order_id: created.id,
          external_order_id: body.external_order_id,
          order_item_id: ao.items[0]!.id,
          production_job_id: ao.items[0]!.production_job!.id,
          sku: 'MUG-01',
          name: 'Mug',
        },
      },
      {
        type: 'order.cancelled',
        data: { order_id: created.id, external_order_id: body.external_order_id, production_order_id: po.id },
      },
    ])
    assert.equal('production_status' in envelopes.at(-1)!.data, false)
    assert.equal('produced_by_partner' in envelopes.at(-1)!.data, false)
  })

  test('a status the production order already has: no event, no updated_at change', async () => {
    const body = orderBody()
    const created = await createLiveOrder(body)
    const ao = await adminOrder(created.id)
    const po = ao.production_order!
    const storedPo = () =>
      t.db.selectFrom('production_orders').selectAll().where('id', '=', po.id).executeTakeFirstOrThrow()

    // pending -> pending on a fresh order.
    tick()
    await setStatus(po.id, 'pending')
    await assertOrderState(created.id, {
      status: 'pending',
      productionStatus: 'pending',
      items: ['pending', 'pending'],
      updated_at: created.updated_at,
    })

    const started = tick()
    await setStatus(po.id, 'in_progress')
    const before = await storedPo()
    tick()
    await setStatus(po.id, 'in_progress')
    assert.equal((await storedPo()).updated_at.toISOString(), before.updated_at.toISOString())
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: started,
    })

    // A job completed twice: one order_item.completed.
    const jobDone = tick()
    await completeJob(ao.items[0]!.production_job!.id)
    tick()
    await completeJob(ao.items[0]!.production_job!.id)
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: jobDone,
    })

    // Cancelled as a whole, then cancelled again either way: one order.cancelled.
    const cancelledAt = tick()
    await cancelOrder(created.id)
    tick()
    const again = await cancelOrder(created.id)
    assert.equal(again.updated_at, cancelledAt)
    tick()
    await setStatus(po.id, 'cancelled')
    await assertOrderState(created.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['completed', 'cancelled'],
      updated_at: cancelledAt,
    })

    const envelopes = await assertDelivered(created.id, [
      { type: 'order.received', data: { order_id: created.id, external_order_id: body.external_order_id } },
      {
        type: 'order.production_started',
        data: {
          order_id: created.id,
          external_order_id: body.external_order_id,
          production_order_id: po.id,
          production_status: 'in_progress',
        },
      },
      {
        type: 'order_item.completed',
        data: {
          order_id: created.id,
          external_order_id: body.external_order_id,
          order_item_id: ao.items[0]!.id,
          production_job_id: ao.items[0]!.production_job!.id,
          sku: 'MUG-01',
          name: 'Mug',
        },
      },
      {
        type: 'order.cancelled',
        data: { order_id: created.id, external_order_id: body.external_order_id, production_order_id: po.id },
      },
    ])
    assert.equal(envelopes.length, 4)
  })

  test('partner orders: produced_by_partner true on order-level events, no order_item.completed, updated_at still moves', async () => {
    const body = orderBody()
    const created = await createLiveOrder(body)
    const ao = await adminOrder(created.id)
    const po = ao.production_order!
    tick()
    const res = await t.admin('POST', `/admin/v1/production-orders/${po.id}/partner`, {
      produced_by_partner: true,
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().data.production_order.id, po.id)
    assert.equal(res.json().data.production_order.produced_by_partner, true)
    assert.equal((await adminOrder(created.id)).production_order?.produced_by_partner, true)

    tick()
    await setStatus(po.id, 'in_progress')

    // A job of a partner order completes: no event, but the order changed.
    const jobAt = tick()
    await completeJob(ao.items[0]!.production_job!.id)
    await assertOrderState(created.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['completed', 'in_progress'],
      updated_at: jobAt,
    })
    // A poller asking for changes since that moment sees the order with the completed item.
    const poll = await t.api(
      tenant.liveKey,
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

    tick()
    await setStatus(po.id, 'failed')
    tick()
    await completeJob(ao.items[1]!.production_job!.id)
    tick()
    await setStatus(po.id, 'completed')
    tick()
    await setStatus(po.id, 'cancelled')

    const base = { order_id: created.id, external_order_id: body.external_order_id }
    const partner = (status: string) => ({
      ...base,
      production_order_id: po.id,
      production_status: status,
      produced_by_partner: true,
    })
    await assertDelivered(created.id, [
      // Created before the partner flag was set: nothing to flag yet.
      { type: 'order.received', data: base },
      { type: 'order.production_started', data: partner('in_progress') },
      { type: 'order.production_failed', data: partner('failed') },
      { type: 'order.production_completed', data: partner('completed') },
      { type: 'order.cancelled', data: partner('cancelled') },
    ])

    // A whole-order cancel of a partner order: flag, no production_status.
    const other = await createLiveOrder()
    const otherPo = (await adminOrder(other.id)).production_order!
    const flagged = await t.admin('POST', `/admin/v1/production-orders/${otherPo.id}/partner`, {
      produced_by_partner: true,
    })
    assert.equal(flagged.statusCode, 200, flagged.body)
    tick()
    await cancelOrder(other.id)
    await assertDelivered(other.id, [
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
    const testEndpoint = await t.api(tenant.testKey, 'POST', '/v1/webhook-endpoints', {
      url: receiver.url('/test-env'),
    })
    assert.equal(testEndpoint.statusCode, 201, testEndpoint.body)
    const res = await t.api(tenant.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(res.statusCode, 201, res.body)
    const order = res.json().data.order
    const ao = await adminOrder(order.id)
    assert.equal(ao.production_order, null)
    assert.deepEqual(
      ao.items.map((i) => i.production_status),
      [null, null],
    )
    assert.equal(
      (await t.db.selectFrom('production_orders').select('id').where('order_id', '=', order.id).execute())
        .length,
      0,
    )

    tick()
    const cancel = await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)
    assert.equal(cancel.statusCode, 422, cancel.body)
    assert.equal(cancel.json().error.code, 'validation_failed')
    const after = await adminOrder(order.id)
    assert.equal(after.status, 'pending')
    assert.equal(after.updated_at, order.updated_at)

    const events = await t.db
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', tenant.orgId)
      .where('environment', '=', 'test')
      .execute()
    assert.deepEqual(events, [])
    assert.deepEqual(await eventRows(order.id), [])
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', testEndpoint.json().data.endpoint.id)
      .execute()
    assert.deepEqual(deliveries, [])
    await settle()
    assert.equal(receiver.received.filter((r) => r.url === '/test-env').length, 0)
    assert.equal(receivedFor(order.id).length, 0)

    // Deleted again so it does not count against other tests' expectations.
    const del = await t.api(
      tenant.testKey,
      'DELETE',
      `/v1/webhook-endpoints/${testEndpoint.json().data.endpoint.id}`,
    )
    assert.equal(del.statusCode, 200)
  })

  test('shop orders: live with production, status follows, never an event', async () => {
    tick()
    const res = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/shop-orders`, orderBody())
    assert.equal(res.statusCode, 201, res.body)
    const shop = res.json().data.order as AdminOrder & { is_test: boolean }
    assert.equal(shop.source, 'shop')
    assert.equal(shop.is_test, false)
    const po = shop.production_order!
    assert.equal(po.status, 'pending')

    let at = tick()
    await setStatus(po.id, 'in_progress')
    await assertOrderState(shop.id, {
      status: 'in_production',
      productionStatus: 'in_progress',
      items: ['in_progress', 'in_progress'],
      updated_at: at,
    })
    at = tick()
    await completeJob(shop.items[0]!.production_job!.id)
    tick()
    await setStatus(po.id, 'failed')
    at = tick()
    await setStatus(po.id, 'completed')
    await assertOrderState(shop.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })

    const second = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/shop-orders`, orderBody())
    assert.equal(second.statusCode, 201, second.body)
    const secondId = second.json().data.order.id
    at = tick()
    const cancelled = await cancelOrder(secondId)
    assert.equal(cancelled.status, 'cancelled')
    assert.equal(cancelled.updated_at, at)

    for (const id of [shop.id, secondId]) {
      assert.deepEqual(await eventRows(id), [])
    }
    const deliveries = await t.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select('d.id')
      .where('e.order_id', 'in', [shop.id, secondId])
      .execute()
    assert.deepEqual(deliveries, [])
    await settle()
    assert.equal(receivedFor(shop.id).length + receivedFor(secondId).length, 0)
  })

  test('a repeated identical POST /v1/orders produces no second order.received', async () => {
    const body = orderBody()
    const first = await createLiveOrder(body)
    tick()
    const repeat = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
    assert.equal(repeat.statusCode, 200, repeat.body)
    assert.equal(repeat.json().data.order.id, first.id)
    assert.equal(repeat.json().data.order.updated_at, first.updated_at)
    await assertDelivered(first.id, [
      { type: 'order.received', data: { order_id: first.id, external_order_id: body.external_order_id } },
    ])
  })

  test('the change and its event commit together: a failing event write leaves the order unchanged', async () => {
    const created = await createLiveOrder()
    const ao = await adminOrder(created.id)
    const po = ao.production_order!
    // Make the fan-out of one event type fail inside the transaction.
    await sql`
      create function refuse_failed_delivery() returns trigger language plpgsql as $$
      begin
        if new.event_type = 'order.production_failed' then
          raise exception 'refused by test';
        end if;
        return new;
      end $$`.execute(t.db)
    await sql`
      create trigger refuse_failed_delivery before insert on webhook_deliveries
      for each row execute function refuse_failed_delivery()`.execute(t.db)
    try {
      tick()
      const res = await t.admin('POST', `/admin/v1/production-orders/${po.id}/status`, { status: 'failed' })
      assert.equal(res.statusCode, 500, res.body)
      assert.equal(res.json().error.code, 'internal_error')
    } finally {
      await sql`drop trigger refuse_failed_delivery on webhook_deliveries`.execute(t.db)
      await sql`drop function refuse_failed_delivery()`.execute(t.db)
    }
    await assertOrderState(created.id, {
      status: 'pending',
      productionStatus: 'pending',
      items: ['pending', 'pending'],
      updated_at: created.updated_at,
    })
    assert.deepEqual(
      (await eventRows(created.id)).map((e) => e.type),
      ['order.received'],
    )

    const at = tick()
    await setStatus(po.id, 'failed')
    await assertOrderState(created.id, {
      status: 'failed',
      productionStatus: 'failed',
      items: ['failed', 'failed'],
      updated_at: at,
    })
    await assertDelivered(created.id, [
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
      const res = await t.admin('POST', url, body)
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'not_found')
    }
  })
})
