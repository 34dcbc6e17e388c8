import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

const t = useTestApp()

const rowsOf = (body: string) =>
  body
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','))

describe('Orders as CSV (GET /dashboard/api/orders.csv)', () => {
  let viewer: Awaited<ReturnType<typeof memberOf>>
  before(async () => {
    const orgId = (await t.createOrganization('Orders CSV Org')).id
    viewer = await memberOf(t, orgId, 'viewer')
    const live = (await t.createKey(orgId, { environment: 'live' })).key
    const test = (await t.createKey(orgId, { environment: 'test' })).key
    await createOrder(
      t,
      live,
      orderBody({ external_order_id: 'CSV-1', customer: { name: 'Ada', email: 'ada@a.test' } }),
    )
    await createOrder(
      t,
      live,
      orderBody({ external_order_id: 'CSV-2', customer: { name: '=HYPERLINK("x")', email: 'bo@b.test' } }),
    )
    await createOrder(t, test, orderBody({ external_order_id: 'CSV-TEST' }))
  })

  test('every live order, newest first, formulas defused', async () => {
    const res = await viewer.client.call('GET', '/orders.csv')
    assert.equal(res.statusCode, 200, res.body)
    assert.match(String(res.headers['content-type']), /^text\/csv/)
    assert.match(String(res.headers['content-disposition']), /filename="orders-live.csv"/)
    const rows = rowsOf(res.body)
    assert.deepEqual(rows[0], [
      'id',
      'external_order_id',
      'status',
      'environment',
      'customer_name',
      'customer_email',
      'currency',
      'total_amount',
      'ordered_at',
      'created_at',
      'tags',
    ])
    assert.deepEqual(
      rows.slice(1).map((r) => r[1]),
      ['CSV-2', 'CSV-1'],
    )
    assert.ok(res.body.includes(`"'=HYPERLINK(""x"")"`), res.body)
    assert.deepEqual(rows[2]!.slice(2, 8), ['pending', 'live', 'Ada', 'ada@a.test', 'EUR', '59.9'])
  })

  test("the Orders page's filters: search, environment", async () => {
    const searched = rowsOf((await viewer.client.call('GET', '/orders.csv?q=ada')).body)
    assert.deepEqual(
      searched.slice(1).map((r) => r[1]),
      ['CSV-1'],
    )
    const tests = rowsOf((await viewer.client.call('GET', '/orders.csv?environment=test')).body)
    assert.deepEqual(
      tests.slice(1).map((r) => r[1]),
      ['CSV-TEST'],
    )
  })

  test('a bad filter is 422 naming it; paging parameters are not taken', async () => {
    const bad = await viewer.client.call('GET', '/orders.csv?status=lost')
    assertError(bad, 422, 'validation_failed')
    assert.equal(bad.json().error.field, 'status')
    assertError(await viewer.client.call('GET', '/orders.csv?cursor=x'), 422, 'validation_failed')
  })
})
