import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder } from '../../helpers/order-files.ts'

const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

describe('the header search (GET /dashboard/api/search)', () => {
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let orderId: string
  let keyPrefix: string
  before(async () => {
    const orgId = (await t.createOrganization('Search Org')).id
    viewer = await memberOf(t, orgId, 'viewer')
    const live = await t.createKey(orgId, { environment: 'live' })
    keyPrefix = (
      await t.db
        .selectFrom('api_keys')
        .select('key_prefix')
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow()
    ).key_prefix
    orderId = (
      await createOrder(
        t,
        live.key,
        orderBody({
          external_order_id: 'FIND-ME-1',
          customer: { name: 'Grace Hopper', email: 'grace@navy.test' },
        }),
      )
    ).id
    await createOrder(
      t,
      live.key,
      orderBody({ external_order_id: 'OTHER-2', customer: { name: 'Alan', email: 'alan@x.test' } }),
    )
    const endpoint = await t.api(live.key, 'POST', '/v1/webhook-endpoints', {
      url: 'https://localhost/hooks/shop',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    // Another organization's order never shows.
    const other = (await t.createOrganization('Other Search Org')).id
    await createOrder(
      t,
      (await t.createKey(other, { environment: 'live' })).key,
      orderBody({ external_order_id: 'FIND-ME-2' }),
    )
  })

  const find = async (q: string) => {
    const res = await viewer.client.call('GET', `/search?q=${encodeURIComponent(q)}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  test('an order by external id, email, name or id; only the organization’s', async () => {
    for (const q of ['find-me', 'grace@', 'GRACE HOP', orderId]) {
      const found = await find(q)
      assert.deepEqual(
        found.orders.map((o: { external_order_id: string }) => o.external_order_id),
        ['FIND-ME-1'],
        q,
      )
    }
  })

  test('an endpoint by part of its URL, a key by its prefix', async () => {
    const byUrl = await find('hooks/sh')
    assert.deepEqual(
      byUrl.webhook_endpoints.map((e: { url: string }) => e.url),
      ['https://localhost/hooks/shop'],
    )
    const byPrefix = await find(keyPrefix.slice(0, 12))
    assert.deepEqual(
      byPrefix.api_keys.map((k: { key_prefix: string }) => k.key_prefix),
      [keyPrefix],
    )
    assert.deepEqual(await find('nothing-like-this'), { orders: [], webhook_endpoints: [], api_keys: [] })
  })

  test('a query shorter than two characters is 422', async () => {
    const res = await viewer.client.call('GET', '/search?q=a')
    assertError(res, 422, 'validation_failed')
    assert.equal(res.json().error.field, 'q')
  })
})
