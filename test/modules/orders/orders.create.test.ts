import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import { ERROR_CATALOG } from '../../../src/http/errors.ts'
import {
  createTestApp,
  createTestDatabase,
  orderBody,
  rowCounts,
  type TestApp,
  type TestDatabase,
  useTestApp,
} from '../../helpers/app.ts'
import { type Body, item, keys, x } from '../../helpers/order-bodies.ts'

describe('create', () => {
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
        const created = await t.api(
          tenant.testKey,
          'POST',
          '/v1/orders',
          orderBody({ ordered_at: orderedAt }),
        )
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
})

describe('boundaries', () => {
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
})

describe('lost answer', () => {
  /**
   * The order's statement commits on the server, and its answer never reaches
   * the service (the client-side query timeout fires after COMMIT, as during a
   * PostgreSQL stall): the client gets 503, yet the order is stored.
   */
  describe('POST /v1/orders answered 503 after its statement committed', () => {
    let t: TestApp
    let liveKey: string
    let testDb: TestDatabase
    let loseNextAnswer = false

    before(async () => {
      testDb = await createTestDatabase()
      // The order's insert is the statement answering key_valid, inserted and product_ids.
      const db = testDb.db.withPlugin({
        transformQuery: ({ node }) => node,
        async transformResult({ result }) {
          const row = result.rows[0] as Record<string, unknown> | undefined
          if (loseNextAnswer && row && 'key_valid' in row && 'product_ids' in row) {
            loseNextAnswer = false
            // node-postgres' query_timeout, after the statement has committed.
            throw new Error('Query read timeout')
          }
          return result
        },
      })
      t = await createTestApp({ testDb, db })
      liveKey = (await t.tenant()).liveKey
    })
    after(async () => {
      await t.close()
      await testDb.close()
    })

    test('the identical resend answers 200 with the same order, and there is one order.received event', async () => {
      const body = orderBody()
      loseNextAnswer = true
      const lost = await t.api(liveKey, 'POST', '/v1/orders', body)
      assert.equal(lost.statusCode, 503, lost.body)
      assert.equal(lost.json().error.code, 'service_unavailable')
      assert.equal(loseNextAnswer, false, 'the insert ran')

      const stored = await t.db
        .selectFrom('orders')
        .select('id')
        .where('external_order_id', '=', body.external_order_id)
        .execute()
      assert.equal(stored.length, 1, 'the order was stored despite the 503')

      const resent = await t.api(liveKey, 'POST', '/v1/orders', body)
      assert.equal(resent.statusCode, 200, resent.body)
      assert.equal(resent.json().data.order.id, stored[0]!.id)
      assert.deepEqual(resent.json().data.warnings, [])

      const again = await t.api(liveKey, 'POST', '/v1/orders', body)
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(again.json().data.order.id, stored[0]!.id)

      const events = await t.db
        .selectFrom('events')
        .select('type')
        .where('order_id', '=', stored[0]!.id)
        .execute()
      assert.deepEqual(
        events.map((e) => e.type),
        ['order.received'],
      )
    })

    test('the documentation says a 503 may have stored the order, and that resending is safe', async () => {
      const operations = await readFile(new URL('../../../docs/operations.md', import.meta.url), 'utf8')
      assert.doesNotMatch(operations, /503 is safe to resend: nothing was stored/)
      assert.match(operations, /A 503 does not say that nothing was stored/)
      const entry = ERROR_CATALOG.service_unavailable
      assert.match(String(entry.description), /may have been stored/)
      assert.match(String(entry.retry), /answered 200 with the same order and no second event/)
    })
  })
})
