import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import type { OperatorOrder, Order } from '../../../src/modules/orders/orders.schemas.ts'
import {
  manualClock,
  OPERATOR_TOKEN,
  orderBody,
  PUBLIC_BASE_URL,
  type TestApp,
  useTestApp,
} from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { count, createOrder, hex } from '../../helpers/operator.ts'

/**
 * The operator API (/admin/v1): each part with its own app and clock, as the
 * tests of one part assume they own them.
 */
describe('operator JSON bodies', () => {
  const t = useTestApp({ clock: manualClock(new Date()) })

  /** Operator call with an explicit content type and raw payload. */
  function adminRaw(url: string, contentType: string | undefined, payload: string) {
    return t.app.inject({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${OPERATOR_TOKEN}`,
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      },
      payload,
    })
  }

  let orgId: string
  const routes: [string, () => string, () => unknown][] = [
    ['POST /admin/v1/organizations', () => '/admin/v1/organizations', () => ({ name: 'X' })],
    [
      'POST api-keys',
      () => `/admin/v1/organizations/${orgId}/api-keys`,
      () => ({ environment: 'test', scopes: [] }),
    ],
    [
      'POST products',
      () => `/admin/v1/organizations/${orgId}/products`,
      () => ({ sku: `J-${hex()}`, name: 'X' }),
    ],
    ['POST shop-orders', () => `/admin/v1/organizations/${orgId}/shop-orders`, () => orderBody()],
  ]
  before(async () => {
    orgId = (await t.createOrganization('JSON Org')).id
  })

  test('a wrong or missing content type, or a body that is not JSON, is 400 invalid_json; nothing stored', async () => {
    const tables = ['organizations', 'api_keys', 'products', 'orders'] as const
    const before = await Promise.all(tables.map((table) => count(t, table)))
    for (const [name, url, body] of routes) {
      const json = JSON.stringify(body())
      for (const [contentType, payload] of [
        [undefined, json],
        ['text/plain', json],
        ['application/x-www-form-urlencoded', 'name=X'],
        ['application/jsonp', json],
        ['application/json', '{"name": '],
        ['application/json', 'not json'],
        ['application/json', ''],
      ] as const) {
        const res = await adminRaw(url(), contentType, payload)
        assertError(res, 400, 'invalid_json')
        assert.ok(res.statusCode === 400, `${name} with ${contentType} ${payload}`)
      }
    }
    assert.deepEqual(await Promise.all(tables.map((table) => count(t, table))), before)
  })

  test('application/json in any case and with parameters is accepted', async () => {
    for (const [name, url, body] of routes) {
      for (const contentType of ['application/json; charset=utf-8', 'Application/JSON']) {
        const res = await adminRaw(url(), contentType, JSON.stringify(body()))
        assert.equal(res.statusCode, 201, `${name} with ${contentType}: ${res.body}`)
      }
    }
  })
})

describe('the orders of organizations, one order, shop orders and stats', () => {
  const ORDER_STATUSES = ['pending', 'in_production', 'completed', 'failed', 'cancelled']

  const clock = manualClock(new Date())
  const t = useTestApp({ clock })
  const tick = (ms = 1000) => clock.advance(ms)

  describe('organization orders list', () => {
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    /** Creation order, oldest first. */
    const created: { id: string; env: 'test' | 'live' }[] = []

    before(async () => {
      tenant = await t.tenant('Listing Org')
      for (let n = 0; n < 7; n++) {
        const env = n % 2 === 0 ? 'live' : 'test'
        const { order } = await createOrder(t, env === 'live' ? tenant.liveKey : tenant.testKey)
        created.push({ id: order.id, env })
        tick()
      }
      // Noise in another organization.
      const other = await t.tenant('Listing Other Org')
      await createOrder(t, other.liveKey)
    })

    test('newest first, all environments by default, operator view entries', async () => {
      const res = await t.admin('GET', `/admin/v1/organizations/${tenant.orgId}/orders`)
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(
        body.data.map((o: { id: string }) => o.id),
        created.map((c) => c.id).reverse(),
      )
      assert.equal(body.next_cursor, null)
      for (const order of body.data) {
        assert.equal(order.organization_id, tenant.orgId)
        assert.equal(order.source, 'api')
        assert.ok('production_order' in order)
      }
    })

    test('the environment filter', async () => {
      for (const env of ['live', 'test'] as const) {
        const res = await t.admin('GET', `/admin/v1/organizations/${tenant.orgId}/orders?environment=${env}`)
        assert.equal(res.statusCode, 200, res.body)
        const data = res.json().data
        assert.deepEqual(
          data.map((o: { id: string }) => o.id),
          created
            .filter((c) => c.env === env)
            .map((c) => c.id)
            .reverse(),
        )
        for (const order of data) {
          assert.equal(order.is_test, env === 'test')
          assert.equal(order.production_order === null, env === 'test')
        }
      }
    })

    test('limit and cursor page through newest first without duplicates or gaps', async () => {
      for (const [limit, env] of [
        [2, undefined],
        [3, undefined],
        [1, 'live'],
      ] as const) {
        const seen: string[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const query = new URLSearchParams({ limit: String(limit) })
          if (env) query.set('environment', env)
          if (cursor) query.set('cursor', cursor)
          const res = await t.admin('GET', `/admin/v1/organizations/${tenant.orgId}/orders?${query}`)
          assert.equal(res.statusCode, 200, res.body)
          const body = res.json()
          assert.ok(body.data.length <= limit)
          assert.ok(body.data.length > 0, 'no empty page before the end')
          seen.push(...body.data.map((o: { id: string }) => o.id))
          cursor = body.next_cursor
          pages++
          assert.ok(pages < 20)
        } while (cursor)
        const expected = created
          .filter((c) => !env || c.env === env)
          .map((c) => c.id)
          .reverse()
        assert.equal(new Set(seen).size, seen.length, 'no duplicates across pages')
        assert.deepEqual(seen, expected, `limit ${limit} ${env ?? 'all'}`)
        assert.equal(pages, Math.ceil(expected.length / limit))
      }
    })

    test('bad query values are 422; an unknown organization is 404', async () => {
      for (const query of [
        'environment=prod',
        'limit=0',
        'limit=101',
        'limit=abc',
        'cursor=%25%25%25',
        'foo=1',
      ]) {
        const res = await t.admin('GET', `/admin/v1/organizations/${tenant.orgId}/orders?${query}`)
        assertError(res, 422, 'validation_failed')
      }
      assertError(await t.admin('GET', `/admin/v1/organizations/${randomUUID()}/orders`), 404, 'not_found')
    })
  })

  /** An upload referenced by an order, through the uploads module when it exists. */
  async function uploadFile(key: string): Promise<{ uploadId: string; bytes: Buffer } | undefined> {
    const slot = await t.api(key, 'POST', '/v1/uploads', { filename: 'art/logo.png' })
    if (slot.statusCode === 404) return undefined
    assert.equal(slot.statusCode, 201, slot.body)
    const { upload_id, upload_url } = slot.json().data
    // A 1x1 PNG.
    const bytes = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    )
    const put = await t.app.inject({
      method: 'PUT',
      url: upload_url.slice(PUBLIC_BASE_URL.length),
      headers: { 'content-type': 'image/png' },
      payload: bytes,
    })
    assert.ok(put.statusCode >= 200 && put.statusCode < 300, put.body)
    return { uploadId: upload_id, bytes }
  }

  describe('GET /admin/v1/orders/:id (operator view)', () => {
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    before(async () => {
      tenant = await t.tenant('View Org')
    })

    test('a live API order: public fields plus organization_id, source, production order and jobs', async () => {
      const { order } = await createOrder(t, tenant.liveKey)
      const res = await t.admin('GET', `/admin/v1/orders/${order.id}`)
      assert.equal(res.statusCode, 200, res.body)
      const view = res.json().data.order
      assert.equal(view.organization_id, tenant.orgId)
      assert.equal(view.source, 'api')

      const publicOrder = (await t.api(tenant.liveKey, 'GET', `/v1/orders/${order.id}`)).json().data.order
      for (const [field, value] of Object.entries(publicOrder)) {
        if (field !== 'items') assert.deepEqual(view[field], value, field)
      }

      const production = await t.db
        .selectFrom('production_orders')
        .selectAll()
        .where('order_id', '=', order.id)
        .executeTakeFirstOrThrow()
      assert.deepEqual(view.production_order, {
        id: production.id,
        status: 'pending',
        produced_by_partner: false,
      })
      const jobs = await t.db
        .selectFrom('production_jobs')
        .select(['id', 'order_item_id', 'status'])
        .where('production_order_id', '=', production.id)
        .execute()
      assert.equal(view.items.length, publicOrder.items.length)
      view.items.forEach((item: OperatorOrder['items'][number], n: number) => {
        const { production_job, files, ...rest } = item
        const { files: _publicFiles, ...publicRest } = publicOrder.items[n] as Order['items'][number]
        assert.deepEqual(rest, publicRest, `items[${n}] carries the public item fields`)
        const job = jobs.find((j) => j.order_item_id === item.id)
        assert.ok(job)
        assert.deepEqual(production_job, { id: job.id, status: 'pending' })
        assert.deepEqual(files, [])
      })
    })

    test('a test order has no production order and no production jobs', async () => {
      const { order } = await createOrder(t, tenant.testKey)
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      assert.equal(view.is_test, true)
      assert.equal(view.production_order, null)
      for (const item of view.items) {
        assert.equal(item.production_job, null)
        assert.equal(item.production_status, null)
      }
    })

    test('files carry {upload_id, name, role, content_type, size_bytes}', async () => {
      const upload = await uploadFile(tenant.liveKey)
      const uploadId = upload?.uploadId ?? randomUUID()
      const body = orderBody({
        items: [
          { sku: 'CARD', name: 'Card', quantity: 1, files: [{ upload_id: uploadId, role: 'front' }] },
          { sku: 'CARD', name: 'Card', quantity: 1 },
        ],
      })
      const { order } = await createOrder(t, tenant.liveKey, body)
      assert.deepEqual(
        order.items[0]!.files.map((f) => f.role),
        ['front'],
      )
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      assert.equal(view.items[0].files.length, 1)
      const file = view.items[0].files[0]
      assert.deepEqual(Object.keys(file).sort(), ['content_type', 'name', 'role', 'size_bytes', 'upload_id'])
      assert.equal(file.upload_id, uploadId)
      assert.equal(file.role, 'front')
      if (upload) {
        assert.equal(file.name, 'logo.png')
        assert.equal(file.content_type, 'image/png')
        assert.equal(file.size_bytes, upload.bytes.length)
      }
      assert.deepEqual(view.items[1].files, [])
    })

    test('unknown and malformed ids are 404 not_found', async () => {
      assertError(await t.admin('GET', `/admin/v1/orders/${randomUUID()}`), 404, 'not_found')
      assertError(await t.admin('GET', '/admin/v1/orders/not-a-uuid'), 404, 'not_found')
    })
  })

  describe('shop orders', () => {
    test('201, source shop, live, production order created, no event', async () => {
      const tenant = await t.tenant('Shop Org')
      const eventsBefore = await count(t, 'events')
      const body = orderBody()
      const res = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/shop-orders`, body)
      assert.equal(res.statusCode, 201, res.body)
      const { order, warnings } = res.json().data
      assert.equal(order.source, 'shop')
      assert.equal(order.is_test, false)
      assert.equal(order.organization_id, tenant.orgId)
      assert.equal(order.external_order_id, body.external_order_id)
      assert.equal(order.status, 'pending')
      assert.ok(Array.isArray(warnings))
      assert.ok(order.production_order, 'a production order is created')
      assert.equal(order.production_order.status, 'pending')
      for (const item of order.items) assert.equal(item.production_job?.status, 'pending')

      const stored = await t.db.selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirst()
      assert.equal(stored?.environment, 'live')
      assert.equal(stored?.source, 'shop')
      const production = await t.db
        .selectFrom('production_orders')
        .select('id')
        .where('order_id', '=', order.id)
        .execute()
      assert.deepEqual(
        production.map((p) => p.id),
        [order.production_order.id],
      )
      assert.equal(
        (await t.db.selectFrom('events').select('id').where('order_id', '=', order.id).execute()).length,
        0,
      )
      assert.equal(await count(t, 'events'), eventsBefore, 'no event of any kind')

      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      assert.deepEqual(view, order)

      const stats = (await t.admin('GET', `/admin/v1/organizations/${tenant.orgId}/stats`)).json().data
      assert.equal(stats.orders_total, 1)
      assert.equal(stats.orders_by_status.pending, 1)

      // Idempotent like POST /v1/orders.
      const repeat = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/shop-orders`, body)
      assert.equal(repeat.statusCode, 200, repeat.body)
      assert.equal(repeat.json().data.order.id, order.id)
      assert.deepEqual(repeat.json().data.warnings, [])
      assert.equal(await count(t, 'events'), eventsBefore)
    })

    test('invalid body is 422 and unknown organization 404; nothing stored', async () => {
      const tenant = await t.tenant('Shop Bad Org')
      const before = await count(t, 'orders')
      const res = await t.admin(
        'POST',
        `/admin/v1/organizations/${tenant.orgId}/shop-orders`,
        orderBody({ items: [] }),
      )
      assertError(res, 422, 'validation_failed')
      assertError(
        await t.admin('POST', `/admin/v1/organizations/${randomUUID()}/shop-orders`, orderBody()),
        404,
        'not_found',
      )
      assert.equal(await count(t, 'orders'), before)
    })
  })

  describe('stats', () => {
    test('live orders only, every status as a key, item lines and quantities', async () => {
      const tenant = await t.tenant('Stats Org')
      const url = `/admin/v1/organizations/${tenant.orgId}/stats`
      const empty = await t.admin('GET', url)
      assert.equal(empty.statusCode, 200, empty.body)
      assert.deepEqual(empty.json().data, {
        orders_total: 0,
        orders_by_status: Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])),
        items_total: 0,
        quantity_total: 0,
      })

      const items = (...quantities: number[]) =>
        quantities.map((quantity, n) => ({ sku: `S-${n}`, name: `Item ${n}`, quantity }))
      const liveA = await createOrder(t, tenant.liveKey, orderBody({ items: items(2, 1) }))
      await createOrder(t, tenant.liveKey, orderBody({ items: items(5) }))
      const shop = await t.admin(
        'POST',
        `/admin/v1/organizations/${tenant.orgId}/shop-orders`,
        orderBody({ items: items(3, 4, 1) }),
      )
      assert.equal(shop.statusCode, 201)
      const testOrder = await createOrder(t, tenant.testKey, orderBody({ items: items(100, 200) }))
      await createOrder(t, tenant.testKey, orderBody({ items: items(7) }))
      // Noise in another organization.
      await createOrder(t, (await t.tenant('Stats Other Org')).liveKey, orderBody({ items: items(9) }))

      const stats = (await t.admin('GET', url)).json().data
      assert.deepEqual(stats, {
        orders_total: 3,
        orders_by_status: { pending: 3, in_production: 0, completed: 0, failed: 0, cancelled: 0 },
        items_total: 6,
        quantity_total: 16,
      })

      // A status change moves the count (the statistics are kept by the status
      // change itself); a test order never counts whatever its status.
      const view = await t.admin('GET', `/admin/v1/orders/${liveA.order.id}`)
      const production = view.json().data.order.production_order.id
      const completed = await t.admin('POST', `/admin/v1/production-orders/${production}/status`, {
        status: 'completed',
      })
      assert.equal(completed.statusCode, 200, completed.body)
      await t.db
        .updateTable('orders')
        .set({ status: 'failed' })
        .where('id', '=', testOrder.order.id)
        .execute()
      const after = (await t.admin('GET', url)).json().data
      assert.equal(after.orders_total, 3)
      assert.deepEqual(after.orders_by_status, {
        pending: 2,
        in_production: 0,
        completed: 1,
        failed: 0,
        cancelled: 0,
      })
      assert.deepEqual(Object.keys(after.orders_by_status).sort(), [...ORDER_STATUSES].sort())
    })

    test('an unknown organization is 404', async () => {
      assertError(await t.admin('GET', `/admin/v1/organizations/${randomUUID()}/stats`), 404, 'not_found')
    })
  })
})
