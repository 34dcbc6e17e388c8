import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'

describe('POST /v1/orders', () => {
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    t = await createTestApp()
    tenant = await t.tenant()
  })
  after(() => t.close())

  test('creates a live order with production order, jobs and an order.received event', async () => {
    const body = orderBody()
    const res = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
    assert.equal(res.statusCode, 201)
    const { order, warnings } = res.json().data
    assert.equal(order.external_order_id, body.external_order_id)
    assert.equal(order.order_number, body.external_order_id)
    assert.equal(order.status, 'pending')
    assert.equal(order.is_test, false)
    assert.equal(order.currency, 'EUR')
    assert.equal(order.total_amount, 59.9)
    assert.deepEqual(order.customer, { name: 'Jo Doe', email: 'jo@example.com', phone: null })
    assert.match(order.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal(order.ordered_at, order.created_at)
    assert.equal(order.items.length, 2)
    assert.deepEqual(
      order.items.map((i: Record<string, unknown>) => [
        i.sku,
        i.quantity,
        i.price,
        i.product_linked,
        i.production_status,
      ]),
      [
        ['MUG-01', 2, 12.5, false, 'pending'],
        [null, 1, null, false, 'pending'],
      ],
    )
    assert.deepEqual(order.items[0].personalization, { text: 'Hello', color: 'red' })
    assert.deepEqual(order.items[1].files, [])
    assert.deepEqual(
      warnings.map((w: Record<string, unknown>) => [w.code, w.field, w.value]),
      [
        ['item_product_unmatched', 'items[0].sku', 'MUG-01'],
        ['item_missing_sku', 'items[1].sku', undefined],
      ],
    )

    const production = await t.db
      .selectFrom('production_orders')
      .selectAll()
      .where('order_id', '=', order.id)
      .execute()
    assert.equal(production.length, 1)
    assert.equal(production[0]!.status, 'pending')
    const jobs = await t.db
      .selectFrom('production_jobs')
      .selectAll()
      .where('production_order_id', '=', production[0]!.id)
      .execute()
    assert.equal(jobs.length, 2)
    const events = await t.db.selectFrom('events').selectAll().where('order_id', '=', order.id).execute()
    assert.deepEqual(
      events.map((e) => [e.type, e.environment, e.data]),
      [
        [
          'order.received',
          'live',
          { order_id: order.id, external_order_id: body.external_order_id, sequence: 1 },
        ],
      ],
    )
  })

  test('a test order has no production order and no event', async () => {
    const res = await t.api(tenant.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(res.statusCode, 201)
    const { order } = res.json().data
    assert.equal(order.is_test, true)
    assert.equal(order.items[0].production_status, null)
    assert.equal(
      (await t.db.selectFrom('production_orders').selectAll().where('order_id', '=', order.id).execute())
        .length,
      0,
    )
    assert.equal(
      (await t.db.selectFrom('events').selectAll().where('order_id', '=', order.id).execute()).length,
      0,
    )
  })

  test('identical repeat returns the stored order with 200 and no warnings; different content is 409', async () => {
    const body = orderBody()
    const first = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
    assert.equal(first.statusCode, 201)
    // Same content, keys in another order.
    const reordered = Object.fromEntries(Object.entries(body).reverse())
    const second = await t.api(tenant.liveKey, 'POST', '/v1/orders', reordered)
    assert.equal(second.statusCode, 200)
    assert.deepEqual(second.json().data.warnings, [])
    assert.deepEqual(second.json().data.order, first.json().data.order)

    const changed = await t.api(tenant.liveKey, 'POST', '/v1/orders', { ...body, total_amount: 1 })
    assert.equal(changed.statusCode, 409)
    assert.equal(changed.json().error.code, 'order_already_exists_with_different_content')
    const stored = await t.db
      .selectFrom('orders')
      .select(['total_amount'])
      .where('external_order_id', '=', body.external_order_id)
      .execute()
    assert.deepEqual(
      stored.map((r) => Number(r.total_amount)),
      [59.9],
    )
    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('order_id', '=', first.json().data.order.id)
      .execute()
    assert.equal(events.length, 1)
  })

  test('20 simultaneous identical requests: one 201, nineteen 200, one order', async () => {
    const body = orderBody()
    const results = await Promise.all(
      Array.from({ length: 20 }, () => t.api(tenant.liveKey, 'POST', '/v1/orders', body)),
    )
    const codes = results.map((r) => r.statusCode).sort()
    assert.deepEqual(codes, [...Array(19).fill(200), 201])
    const ids = new Set(results.map((r) => r.json().data.order.id))
    assert.equal(ids.size, 1)
    const rows = await t.db
      .selectFrom('orders')
      .select('id')
      .where('external_order_id', '=', body.external_order_id)
      .execute()
    assert.equal(rows.length, 1)
    const events = await t.db.selectFrom('events').selectAll().where('order_id', '=', rows[0]!.id).execute()
    assert.equal(events.length, 1)
  })

  test('10 simultaneous different bodies with one external id: one 201, nine 409', async () => {
    const external = `RACE-${Date.now()}`
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        t.api(
          tenant.liveKey,
          'POST',
          '/v1/orders',
          orderBody({ external_order_id: external, total_amount: n }),
        ),
      ),
    )
    const codes = results.map((r) => r.statusCode).sort()
    assert.deepEqual(codes, [201, ...Array(9).fill(409)])
    const rows = await t.db
      .selectFrom('orders')
      .select('id')
      .where('external_order_id', '=', external)
      .execute()
    assert.equal(rows.length, 1)
  })

  test('ordered_at round-trips exactly, also for historic instants', async () => {
    for (const orderedAt of [
      '0001-01-01T00:00:00.000Z',
      '1850-06-01T12:00:00.000Z',
      '2026-11-22T10:15:30.123Z',
    ]) {
      const created = await t.api(tenant.testKey, 'POST', '/v1/orders', orderBody({ ordered_at: orderedAt }))
      assert.equal(created.statusCode, 201)
      const read = await t.api(tenant.testKey, 'GET', `/v1/orders/${created.json().data.order.id}`)
      assert.equal(read.json().data.order.ordered_at, orderedAt)
    }
  })

  test('test and live keep separate order spaces', async () => {
    const body = orderBody()
    assert.equal((await t.api(tenant.testKey, 'POST', '/v1/orders', body)).statusCode, 201)
    assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', body)).statusCode, 201)
  })
})
