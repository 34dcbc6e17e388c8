import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import type { OperatorOrder, Order } from '../../../src/modules/orders/orders.schemas.ts'
import {
  ALL_SCOPES,
  manualClock,
  OPERATOR_TOKEN,
  orderBody,
  PUBLIC_BASE_URL,
  type TestApp,
  useTestApp,
} from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { count, createOrder, hex, ISO_MS, UUID } from '../../helpers/operator.ts'

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

describe('organizations and their API keys', () => {
  const API_KEY_FIELDS = [
    'created_at',
    'created_by',
    'environment',
    'expires_at',
    'id',
    'key_prefix',
    'last_used_at',
    'name',
    'organization_id',
    'revoked_at',
    'scopes',
  ].sort()

  // A moving clock: a second revocation must keep the first time.
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })
  const tick = (ms = 1000) => clock.advance(ms)

  describe('organizations', () => {
    test('POST creates {id, name, created_at}; GET lists it', async () => {
      const name = `Org ${hex()}`
      const res = await t.admin('POST', '/admin/v1/organizations', { name })
      assert.equal(res.statusCode, 201, res.body)
      const { organization } = res.json().data
      assert.deepEqual(Object.keys(organization).sort(), ['created_at', 'id', 'name'])
      assert.match(organization.id, UUID)
      assert.equal(organization.name, name)
      assert.match(organization.created_at, ISO_MS)
      const row = await t.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', organization.id)
        .execute()
      assert.deepEqual(
        row.map((r) => r.name),
        [name],
      )

      const list = await t.admin('GET', '/admin/v1/organizations')
      assert.equal(list.statusCode, 200)
      assert.ok(Array.isArray(list.json().data))
      assert.deepEqual(
        list.json().data.find((o: { id: string }) => o.id === organization.id),
        organization,
      )
    })

    test('invalid bodies get 422 and store nothing', async () => {
      const before = await count(t, 'organizations')
      for (const [body, code, field] of [
        [{}, 'required', 'name'],
        [{ name: '' }, 'too_short', 'name'],
        [{ name: 42 }, 'invalid_type', 'name'],
        [{ name: 'Acme', plan: 'pro' }, 'unknown_field', 'plan'],
      ] as const) {
        const res = await t.admin('POST', '/admin/v1/organizations', body)
        const error = assertError(res, 422, 'validation_failed')
        assert.deepEqual(
          error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
          [[code, field]],
          JSON.stringify(body),
        )
      }
      assert.equal(await count(t, 'organizations'), before)
    })
  })

  describe('API keys', () => {
    let orgId: string
    before(async () => {
      orgId = (await t.createOrganization('Key Org')).id
    })

    test('create returns the key once with its metadata; the list never shows the plaintext', async () => {
      const expiresAt = new Date(clock.now().getTime() + 86_400_000).toISOString()
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'live',
        scopes: ['orders:read', 'orders:write'],
        name: 'ERP',
        expires_at: expiresAt,
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.deepEqual(Object.keys(res.json().data).sort(), ['api_key', 'key'])
      assert.deepEqual(Object.keys(api_key).sort(), API_KEY_FIELDS)
      assert.match(api_key.id, UUID)
      assert.equal(api_key.organization_id, orgId)
      assert.equal(api_key.environment, 'live')
      assert.deepEqual([...api_key.scopes].sort(), ['orders:read', 'orders:write'])
      assert.equal(api_key.name, 'ERP')
      assert.equal(api_key.expires_at, expiresAt)
      assert.equal(api_key.created_by, 'operator token')
      assert.equal(api_key.last_used_at, null)
      assert.equal(api_key.revoked_at, null)
      assert.match(api_key.created_at, ISO_MS)
      assert.match(key, /^svc_live_[0-9A-Za-z]{32,}$/)
      assert.ok(key.startsWith(api_key.key_prefix))

      const ping = await t.api(key, 'GET', '/v1/ping')
      assert.equal(ping.statusCode, 200)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.statusCode, 200)
      const listed = list.json().data.find((k: { id: string }) => k.id === api_key.id)
      assert.deepEqual(listed, api_key)
      const secret = key.slice('svc_live_'.length)
      assert.ok(!list.body.includes(key), 'the list does not contain the plaintext key')
      assert.ok(!list.body.includes(secret), 'the list does not contain the secret part')
      for (const entry of list.json().data) assert.deepEqual(Object.keys(entry).sort(), API_KEY_FIELDS)
    })

    test('name and expires_at are optional; the list holds only the organization’s keys', async () => {
      const other = await t.createOrganization('Other Key Org')
      const otherKey = await t.createKey(other.id)
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: [],
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.equal(api_key.name, null)
      assert.equal(api_key.expires_at, null)
      assert.deepEqual(api_key.scopes, [])
      assert.match(key, /^svc_test_/)
      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      const ids = list.json().data.map((k: { id: string }) => k.id)
      assert.ok(ids.includes(api_key.id))
      assert.ok(!ids.includes(otherKey.id))
      assert.ok(list.json().data.every((k: { organization_id: string }) => k.organization_id === orgId))
    })

    test('scopes and environment are validated; nothing is stored', async () => {
      const before = await count(t, 'api_keys')
      const bodies = [
        { environment: 'test', scopes: ['orders:delete'] },
        { environment: 'test', scopes: ['orders:read', 'admin'] },
        { environment: 'test', scopes: 'orders:read' },
        { environment: 'test' },
        { environment: 'prod', scopes: ['orders:read'] },
        { environment: 'TEST', scopes: ['orders:read'] },
        { scopes: ['orders:read'] },
        { environment: 'test', scopes: [], expires_at: 'tomorrow' },
        { environment: 'test', scopes: [], key: 'svc_test_chosen_by_me_0000000000000000000' },
      ]
      for (const body of bodies) {
        const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, body)
        const error = assertError(res, 422, 'validation_failed')
        assert.ok(error.errors.length > 0, JSON.stringify(body))
      }
      const unknownScope = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: ['orders:read', 'orders:delete'],
      })
      assert.deepEqual(
        assertError(unknownScope, 422, 'validation_failed').errors.map((e: { field: string }) => e.field),
        ['scopes.1'],
      )
      const badEnvironment = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'prod',
        scopes: [],
      })
      assert.equal(assertError(badEnvironment, 422, 'validation_failed').field, 'environment')
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('an unknown organization is 404 not_found', async () => {
      const before = await count(t, 'api_keys')
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const created = await t.admin('POST', `/admin/v1/organizations/${id}/api-keys`, {
          environment: 'test',
          scopes: ALL_SCOPES,
        })
        assertError(created, 404, 'not_found')
        assertError(await t.admin('GET', `/admin/v1/organizations/${id}/api-keys`), 404, 'not_found')
      }
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('revoke answers {id, revoked_at}; the key gets 401 from then on; a second revoke keeps the first time', async () => {
      const { key, id } = await t.createKey(orgId, { environment: 'live' })
      assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)

      tick()
      const revokedAt = clock.now().toISOString()
      const res = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { id, revoked_at: revokedAt } })

      for (const [method, url] of [
        ['GET', '/v1/ping'],
        ['GET', '/v1/orders'],
        ['GET', `/v1/orders/${randomUUID()}`],
      ] as const) {
        assertError(await t.api(key, method, url), 401, 'invalid_api_key')
      }
      assertError(await t.api(key, 'POST', '/v1/orders', orderBody()), 401, 'invalid_api_key')

      tick(60_000)
      const again = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(again.statusCode, 200, again.body)
      assert.deepEqual(again.json(), { data: { id, revoked_at: revokedAt } })
      const row = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', id)
        .executeTakeFirst()
      assert.equal(row?.revoked_at?.toISOString(), revokedAt)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.json().data.find((k: { id: string }) => k.id === id).revoked_at, revokedAt)
      assertError(await t.api(key, 'GET', '/v1/ping'), 401, 'invalid_api_key')
    })

    test('revoking an unknown key is 404 not_found', async () => {
      assertError(await t.admin('DELETE', `/admin/v1/api-keys/${randomUUID()}`), 404, 'not_found')
      assertError(await t.admin('DELETE', '/admin/v1/api-keys/not-a-uuid'), 404, 'not_found')
    })
  })
})

describe('products', () => {
  // A moving clock: retroactive linking must bump updated_at to a later time.
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })
  const tick = (ms = 1000) => clock.advance(ms)

  test('a new product links existing items retroactively, bumps updated_at, and links future items', async () => {
    const tenant = await t.tenant('Product Org')
    const other = await t.tenant('Unrelated Org')
    const sku = `SKU-${hex()}`
    const withSku = (extra: Record<string, unknown> = {}) =>
      orderBody({
        items: [
          { sku, name: 'Poster', quantity: 1 },
          { sku: `OTHER-${hex()}`, name: 'Frame', quantity: 1 },
        ],
        ...extra,
      })

    const created = [
      await createOrder(t, tenant.liveKey, withSku()),
      await createOrder(t, tenant.testKey, withSku()),
    ]
    for (const { order, warnings } of created) {
      assert.deepEqual(
        order.items.map((i: { product_linked: boolean }) => i.product_linked),
        [false, false],
      )
      assert.deepEqual(
        warnings.map((w) => [w.code, w.field, w.value]),
        [
          ['item_product_unmatched', 'items[0].sku', sku],
          ['item_product_unmatched', 'items[1].sku', order.items[1]!.sku],
        ],
      )
    }
    const foreign = await createOrder(t, other.liveKey, withSku())

    tick(5000)
    const res = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/products`, {
      sku,
      name: 'Poster A2',
    })
    assert.equal(res.statusCode, 201, res.body)
    const { product } = res.json().data
    assert.match(product.id, UUID)
    assert.equal(product.sku, sku)
    assert.equal(product.name, 'Poster A2')
    const linkedAt = clock.now().toISOString()

    for (const [n, { order }] of created.entries()) {
      const key = n === 0 ? tenant.liveKey : tenant.testKey
      const fetched = await t.api(key, 'GET', `/v1/orders/${order.id}`)
      assert.equal(fetched.statusCode, 200, fetched.body)
      const now = fetched.json().data.order
      assert.deepEqual(
        now.items.map((i: { product_linked: boolean }) => i.product_linked),
        [true, false],
        'only the item with the product sku links',
      )
      assert.ok(now.updated_at > order.updated_at, `updated_at ${now.updated_at} > ${order.updated_at}`)
      assert.equal(now.updated_at, linkedAt)
      assert.equal(now.created_at, order.created_at)
      // Pollers see the change.
      const polled = await t.api(key, 'GET', `/v1/orders?updated_since=${encodeURIComponent(linkedAt)}`)
      assert.ok(polled.json().data.some((o: { id: string }) => o.id === order.id))
    }
    const operatorView = await t.admin('GET', `/admin/v1/orders/${created[0]!.order.id}`)
    assert.equal(operatorView.json().data.order.items[0].product_linked, true)

    // Another organization's item with the same sku is untouched.
    const untouched = (await t.api(other.liveKey, 'GET', `/v1/orders/${foreign.order.id}`)).json().data.order
    assert.equal(untouched.items[0].product_linked, false)
    assert.equal(untouched.updated_at, foreign.order.updated_at)

    // A later order links at creation and warns only about the unmatched sku.
    const later = await createOrder(t, tenant.liveKey, withSku())
    assert.deepEqual(
      later.order.items.map((i: { product_linked: boolean }) => i.product_linked),
      [true, false],
    )
    assert.deepEqual(
      later.warnings.map((w) => [w.code, w.field]),
      [['item_product_unmatched', 'items[1].sku']],
    )
    const stored = await t.db
      .selectFrom('order_items')
      .select(['product_id'])
      .where('order_id', '=', later.order.id)
      .orderBy('position')
      .execute()
    assert.deepEqual(
      stored.map((r) => r.product_id),
      [product.id, null],
    )
  })

  test('a duplicate sku is 409 product_already_exists; the same sku in another organization is fine', async () => {
    const org = await t.createOrganization('Dup Org')
    const other = await t.createOrganization('Dup Other Org')
    const sku = `DUP-${hex()}`
    const first = await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, { sku, name: 'A' })
    assert.equal(first.statusCode, 201, first.body)
    const dup = await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, { sku, name: 'B' })
    const error = assertError(dup, 409, 'product_already_exists')
    assert.equal(error.field, 'sku')
    const rows = await t.db.selectFrom('products').select('name').where('sku', '=', sku).execute()
    assert.deepEqual(
      rows.map((r) => r.name),
      ['A'],
    )
    const elsewhere = await t.admin('POST', `/admin/v1/organizations/${other.id}/products`, {
      sku,
      name: 'C',
    })
    assert.equal(elsewhere.statusCode, 201, elsewhere.body)
  })

  test('GET lists the organization’s products; unknown organization and bad bodies are refused', async () => {
    const org = await t.createOrganization('List Products Org')
    const created = []
    for (const sku of ['B-2', 'A-1']) {
      const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, { sku, name: sku })
      created.push(res.json().data.product)
    }
    const list = await t.admin('GET', `/admin/v1/organizations/${org.id}/products`)
    assert.equal(list.statusCode, 200)
    assert.deepEqual(
      list
        .json()
        .data.map((p: { sku: string }) => p.sku)
        .sort(),
      ['A-1', 'B-2'],
    )
    for (const product of created) {
      assert.deepEqual(
        list.json().data.find((p: { id: string }) => p.id === product.id),
        product,
      )
    }

    const before = await count(t, 'products')
    assertError(await t.admin('GET', `/admin/v1/organizations/${randomUUID()}/products`), 404, 'not_found')
    assertError(
      await t.admin('POST', `/admin/v1/organizations/${randomUUID()}/products`, { sku: 'X', name: 'X' }),
      404,
      'not_found',
    )
    for (const body of [
      { sku: 'X' },
      { name: 'X' },
      { sku: '', name: 'X' },
      { sku: 'X', name: 'X', price: 1 },
    ]) {
      const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, body)
      assertError(res, 422, 'validation_failed')
    }
    assert.equal(await count(t, 'products'), before)
  })
})
