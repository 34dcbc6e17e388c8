import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'

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
