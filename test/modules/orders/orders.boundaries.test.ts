import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { orderBody, rowCounts, type TestApp, useTestApp } from '../../helpers/app.ts'
import { type Body, item, keys, x } from '../../helpers/order-bodies.ts'

/** POST /v1/orders: the limits of the reference and of DECISIONS §1 Orders themselves pass. */
describe('POST /v1/orders validation', () => {
  const t = useTestApp()
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    tenant = await t.tenant()
  })

  describe('boundaries that pass', () => {
    const PNG = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    )

    /**
     * upload_ids an order may reference. While the service has no upload
     * endpoint any UUID passes; once it has one, real uploads are made.
     */
    async function uploadIds(n: number): Promise<string[]> {
      const ids: string[] = []
      for (let i = 0; i < n; i++) {
        const slot = await t.api(tenant.testKey, 'POST', '/v1/uploads', { filename: `f${i}.png` })
        if (slot.statusCode === 404) return Array.from({ length: n }, () => randomUUID())
        assert.equal(slot.statusCode, 201, slot.body)
        const { upload_id, upload_url } = slot.json().data
        const url = new URL(upload_url)
        const put = await t.app.inject({ method: 'PUT', url: url.pathname + url.search, payload: PNG })
        assert.ok(put.statusCode >= 200 && put.statusCode < 300, put.body)
        ids.push(upload_id)
      }
      return ids
    }

    /** Creates the order, then reads it back so the stored form is checked too. */
    async function accepts(body: Body) {
      const res = await t.api(tenant.testKey, 'POST', '/v1/orders', body)
      assert.equal(res.statusCode, 201, res.body)
      const created = res.json().data
      const read = await t.api(tenant.testKey, 'GET', `/v1/orders/${created.order.id}`)
      assert.equal(read.statusCode, 200, read.body)
      const stored = read.json().data.order
      assert.deepEqual(stored, created.order, 'stored order equals the created one')
      return { order: stored, warnings: created.warnings }
    }

    test('quantity 1 and 10000', async () => {
      const { order } = await accepts(
        orderBody({ items: [item({ quantity: 1 }), item({ quantity: 10000 })] }),
      )
      assert.deepEqual(
        order.items.map((i: { quantity: number }) => i.quantity),
        [1, 10000],
      )
    })

    test('200 items, stored in order', async () => {
      const before = await rowCounts(t.db)
      const items = Array.from({ length: 200 }, (_, i) => item({ name: `Item ${i}` }))
      const { order } = await accepts(orderBody({ items }))
      assert.equal(order.items.length, 200)
      assert.deepEqual(
        order.items.map((i: { name: string }) => i.name),
        items.map((i) => i.name),
      )
      const afterCounts = await rowCounts(t.db)
      assert.equal(afterCounts.orders, before.orders! + 1)
      assert.equal(afterCounts.order_items, before.order_items! + 200)
    })

    test('50 personalization keys, a key of 100 and a value of 5000 characters', async () => {
      const fifty = keys(50)
      const longest = { [x(100, 'k')]: x(5000, 'v') }
      const { order } = await accepts(
        orderBody({ items: [item({ personalization: fifty }), item({ personalization: longest })] }),
      )
      assert.deepEqual(order.items[0].personalization, fifty)
      assert.deepEqual(order.items[1].personalization, longest)
    })

    test('10 files, role of 40 characters', async () => {
      const refs = (await uploadIds(10)).map((upload_id) => ({ upload_id, role: x(40, 'r') }))
      const { order } = await accepts(orderBody({ items: [item({ files: refs })] }))
      assert.equal(order.items[0].files.length, 10)
      for (const file of order.items[0].files) {
        assert.deepEqual(Object.keys(file).sort(), ['name', 'role'])
        assert.equal(file.role, x(40, 'r'))
      }
    })

    test('price 0 and total_amount 0', async () => {
      const { order } = await accepts(orderBody({ total_amount: 0, items: [item({ price: 0 })] }))
      assert.equal(order.items[0].price, 0)
      assert.equal(order.total_amount, 0)
    })

    test('strings at their maximum lengths, counted in characters', async () => {
      const body = orderBody({
        external_order_id: x(255, 'E'),
        customer: { name: x(255, 'n'), email: `${x(308)}@example.com`, phone: x(50, '1') },
        items: [item({ name: x(255, '😀'), sku: x(255, 's') })],
      })
      const { order } = await accepts(body)
      assert.equal(order.external_order_id, x(255, 'E'))
      assert.deepEqual(order.customer, body.customer)
      assert.equal(order.items[0].name, x(255, '😀'))
      assert.equal(order.items[0].sku, x(255, 's'))
    })

    test('ordered_at with an offset is returned in UTC with milliseconds', async () => {
      const { order } = await accepts(orderBody({ ordered_at: '2026-11-22T12:15:30+02:00' }))
      assert.equal(order.ordered_at, '2026-11-22T10:15:30.000Z')
      const frac = await accepts(orderBody({ ordered_at: '2026-11-22T10:15:30.5Z' }))
      assert.equal(frac.order.ordered_at, '2026-11-22T10:15:30.500Z')
    })

    test('currency, total_amount, email, phone, sku and price sent as null count as not sent', async () => {
      const { order, warnings } = await accepts(
        orderBody({
          currency: null,
          total_amount: null,
          ordered_at: null,
          customer: { name: 'Jo', email: null, phone: null },
          items: [item({ sku: null, price: null })],
        }),
      )
      assert.equal(order.currency, null)
      assert.equal(order.total_amount, null)
      assert.deepEqual(order.customer, { name: 'Jo', email: null, phone: null })
      assert.equal(order.items[0].sku, null)
      assert.equal(order.items[0].price, null)
      assert.equal(order.ordered_at, order.created_at)
      assert.deepEqual(
        warnings.map((w: { code: string; field: string }) => [w.code, w.field]),
        [['item_missing_sku', 'items[0].sku']],
      )
    })

    test('personalization values of every allowed type round-trip', async () => {
      const personalization = {
        text: 'Happy birthday',
        empty: '',
        unicode: 'Grüße 😀 \u00e9',
        integer: 42,
        negative: -3,
        fraction: 12.75,
        zero: 0,
        yes: true,
        no: false,
        nothing: null,
      }
      const { order } = await accepts(orderBody({ items: [item({ personalization })] }))
      assert.deepEqual(order.items[0].personalization, personalization)
      assert.deepEqual(Object.keys(order.items[0].personalization), Object.keys(personalization))
    })
  })
})
