import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createTestApp, manualClock, orderBody, type TestApp, useTestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { count, createOrder, hex, UUID } from '../../helpers/operator.ts'

/**
 * The unmatched skus the Products page lists are counted as orders arrive and
 * products are added (migration 0022), exactly, also when many orders with
 * the same skus arrive at once.
 */
let t: TestApp
before(async () => {
  t = await createTestApp()
})
after(() => t.close())

const item = (sku: string | undefined, quantity = 1) => ({
  ...(sku ? { sku } : {}),
  name: sku ?? 'No sku',
  quantity,
})

test('simultaneous orders with the same skus in opposite orders: exact counts, no deadlock; a product takes its sku off', async () => {
  const org = await t.tenant('Busy Skus')
  const viewer = await memberOf(t, org.orgId, 'viewer')
  const unmatched = async () =>
    (
      (await viewer.client.call('GET', '/products/unmatched-skus')).json().data as {
        sku: string
        items: number
        orders: number
      }[]
    )
      .map((s) => [s.sku, s.items, s.orders])
      .sort()

  const answers = await Promise.all(
    Array.from({ length: 24 }, (_, n) =>
      t.api(
        n % 3 === 0 ? org.testKey : org.liveKey,
        'POST',
        '/v1/orders',
        orderBody({
          items:
            n % 2 === 0
              ? [item('SKU-A'), item('SKU-B'), item('SKU-A'), item(undefined)]
              : [item('SKU-B'), item('SKU-A'), item('SKU-C', 3)],
        }),
      ),
    ),
  )
  assert.deepEqual(
    answers.map((a) => a.statusCode),
    Array(24).fill(201),
  )
  // 12 orders with A twice and B once, 12 with B, A and C: item lines and orders per sku.
  assert.deepEqual(await unmatched(), [
    ['SKU-A', 36, 24],
    ['SKU-B', 24, 24],
    ['SKU-C', 12, 12],
  ])

  const created = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
    sku: 'SKU-A',
    name: 'A',
  })
  assert.equal(created.statusCode, 201, created.body)
  assert.deepEqual(await unmatched(), [
    ['SKU-B', 24, 24],
    ['SKU-C', 12, 12],
  ])
  // A later order's SKU-A item links at once; its SKU-B item counts.
  await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ items: [item('SKU-A'), item('SKU-B')] }))
  assert.deepEqual(await unmatched(), [
    ['SKU-B', 25, 25],
    ['SKU-C', 12, 12],
  ])
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
