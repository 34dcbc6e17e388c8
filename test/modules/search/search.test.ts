import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
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
    assert.deepEqual(await find('nothing-like-this'), {
      orders: [],
      webhook_endpoints: [],
      api_keys: [],
      requests: [],
    })
  })

  test('a query shorter than two characters is 422', async () => {
    const res = await viewer.client.call('GET', '/search?q=a')
    assertError(res, 422, 'validation_failed')
    assert.equal(res.json().error.field, 'q')
  })
})

describe("the console's search (GET /dashboard/api/operator/search)", () => {
  let operator: Awaited<ReturnType<typeof operatorOf>>
  const ids = { acme: '', order: '', production: '', prefix: '' }
  before(async () => {
    operator = await operatorOf(t)
    ids.acme = (await t.createOrganization('Acme Console Prints')).id
    const live = await t.createKey(ids.acme, { environment: 'live' })
    ids.prefix = (
      await t.db
        .selectFrom('api_keys')
        .select('key_prefix')
        .where('id', '=', live.id)
        .executeTakeFirstOrThrow()
    ).key_prefix
    ids.order = (
      await createOrder(
        t,
        live.key,
        orderBody({
          external_order_id: 'CONSOLE-FIND-1',
          customer: { name: 'Ada Byron', email: 'ada@byron.test' },
        }),
      )
    ).id
    ids.production = (
      await t.admin('GET', `/admin/v1/orders/${ids.order}`)
    ).json().data.order.production_order.id
    const other = (await t.createOrganization('Zeta Console Prints')).id
    const otherKey = (await t.createKey(other, { environment: 'test' })).key
    await createOrder(t, otherKey, orderBody({ external_order_id: 'CONSOLE-FIND-2' }))
    const endpoint = await t.api(live.key, 'POST', '/v1/webhook-endpoints', {
      url: 'https://localhost/console/hooks',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
  })

  const find = async (q: string) => {
    const res = await operator.client.call('GET', `/operator/search?q=${encodeURIComponent(q)}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  test("orders of every organization and environment, newest first, with their organization's name", async () => {
    const found = await find('console-find')
    assert.deepEqual(
      found.orders.map((o: { external_order_id: string; organization_name: string; environment: string }) => [
        o.external_order_id,
        o.organization_name,
        o.environment,
      ]),
      [
        ['CONSOLE-FIND-2', 'Zeta Console Prints', 'test'],
        ['CONSOLE-FIND-1', 'Acme Console Prints', 'live'],
      ],
    )
    for (const q of ['ada@byron', 'ADA BY', ids.order]) {
      assert.deepEqual(
        (await find(q)).orders.map((o: { id: string; organization_id: string }) => [o.id, o.organization_id]),
        [[ids.order, ids.acme]],
        q,
      )
    }
  })

  test('an organization by part of its name, a production order by id, an endpoint by URL, a key by prefix', async () => {
    assert.deepEqual(
      (await find('console prints')).organizations.map((o: { name: string }) => o.name),
      ['Acme Console Prints', 'Zeta Console Prints'],
    )
    assert.deepEqual((await find(ids.production)).production_orders, [
      {
        id: ids.production,
        status: 'pending',
        external_order_id: 'CONSOLE-FIND-1',
        organization_name: 'Acme Console Prints',
      },
    ])
    const endpoints = (await find('console/hooks')).webhook_endpoints
    assert.deepEqual(
      endpoints.map((e: { url: string; organization_id: string }) => [e.url, e.organization_id]),
      [['https://localhost/console/hooks', ids.acme]],
    )
    const keys = (await find(ids.prefix)).api_keys
    assert.deepEqual(
      keys.map((k: { key_prefix: string; organization_name: string; revoked: boolean }) => [
        k.key_prefix,
        k.organization_name,
        k.revoked,
      ]),
      [[ids.prefix, 'Acme Console Prints', false]],
    )
  })

  test('members are refused; a query shorter than two characters is 422', async () => {
    const member = await memberOf(t, ids.acme, 'owner')
    const refused = await member.client.call('GET', '/operator/search?q=console')
    assert.equal(refused.statusCode, 403, refused.body)
    assertError(await operator.client.call('GET', '/operator/search?q=a'), 422, 'validation_failed')
  })
})
