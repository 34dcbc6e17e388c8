import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, ISO_MS, manualClock, orderBody, type TestApp } from './app.ts'
import { loopbackResolver, type Receiver, startReceiver } from './https-receiver.ts'
import { waitUntil } from './wait.ts'

export { ISO_MS }
export const ENVELOPE_KEYS = ['api_version', 'created_at', 'data', 'id', 'type']

export interface Envelope {
  id: string
  type: string
  created_at: string
  api_version: string
  data: Record<string, unknown>
}

export interface AdminOrder {
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

type OrderRef = { id: string; external_order_id: string }
const ref = (order: OrderRef) => ({ order_id: order.id, external_order_id: order.external_order_id })

/** The events the production tests expect, as assertDelivered takes them. */
export const expectedEvent = {
  received: (order: OrderRef) => ({ type: 'order.received', data: ref(order) }),
  started: (order: OrderRef, productionOrderId: string) => ({
    type: 'order.production_started',
    data: { ...ref(order), production_order_id: productionOrderId, production_status: 'in_progress' },
  }),
  itemCompleted: (
    order: OrderRef,
    item: { id: string; production_job: { id: string } | null },
    written: { sku: string | null; name: string },
  ) => ({
    type: 'order_item.completed',
    data: { ...ref(order), order_item_id: item.id, production_job_id: item.production_job!.id, ...written },
  }),
  cancelled: (order: OrderRef, productionOrderId: string) => ({
    type: 'order.cancelled',
    data: { ...ref(order), production_order_id: productionOrderId },
  }),
}

/**
 * The production side seen from a receiver: an app with a running worker
 * delivering to two live endpoints of one organization (paths /a and /b of one
 * HTTPS receiver), and the steps and checks the production tests share. Call
 * inside a describe: its hooks set the app up and take it down.
 */
export function useProductionEvents() {
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
    // A retry would wait for the manual clock: the first attempt gets time even on a busy machine.
    await t.startDispatcher({ ca: receiver.ca, timeoutMs: 10_000 })
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
    await waitUntil(async () => {
      const { n } = await t.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow()
      return Number(n) === 0
    }, 'every delivery to settle')
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
   * Exactly these events of the order, in this order: the stored rows, one
   * succeeded delivery per endpoint for each, and what both endpoints received
   * (envelope, data, headers). Each event's data also carries its per-order
   * sequence, 1 to n in this order, in the same bytes in the stored data and
   * in the delivered body. Returns the envelopes.
   */
  async function assertDelivered(
    orderId: string,
    expected: { type: string; data: Record<string, unknown> }[],
  ): Promise<Envelope[]> {
    await settle()
    expected = expected.map((e, n) => ({ type: e.type, data: { ...e.data, sequence: n + 1 } }))
    const rows = await eventRows(orderId)
    assert.deepEqual(
      rows.map((r) => [r.type, r.data, r.organization_id, r.environment]),
      expected.map((e) => [e.type, e.data, tenant.orgId, 'live']),
    )
    const texts = await t.db
      .selectFrom('events')
      .select(['id', 'body', sql<string>`data::text`.as('data')])
      .where('order_id', '=', orderId)
      .execute()
    for (const row of texts) {
      assert.ok(
        row.body.endsWith(`"data":${row.data}}`),
        `the body carries the stored data as is: ${row.body}`,
      )
    }
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
      assert.equal(
        req.body.toString('utf8'),
        texts.find((x) => x.id === row.id)!.body,
        'the stored body, as is',
      )
      // The other endpoint got the same body for the same event.
      assert.equal(onB[n]!.req.body.toString('utf8'), req.body.toString('utf8'))
    })
    return onA.map((r) => r.envelope)
  }

  return {
    get t() {
      return t
    },
    get tenant() {
      return tenant
    },
    get receiver() {
      return receiver
    },
    tick,
    createLiveOrder,
    adminOrder,
    setStatus,
    completeJob,
    cancelOrder,
    assertOrderState,
    settle,
    receivedFor,
    eventRows,
    assertDelivered,
  }
}
