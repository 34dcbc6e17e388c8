import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { newId } from '../../../src/lib/ids.ts'
import { foldWebhookOutcomes } from '../../../src/modules/webhooks/daily-outcomes.repo.ts'
import { createTestApp, manualClock, orderBody } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/operator.ts'
import { settleDelivery } from '../../helpers/webhook-endpoints.ts'

/**
 * Home (live statistics from the daily aggregates, webhook health) and the
 * Orders list (filters, keyset paging) of the dashboard API.
 */
const clock = manualClock(new Date('2026-10-01T12:00:00.000Z'))
const t = await createTestApp({ clock })
after(() => t.close())

let org: { orgId: string; testKey: string; liveKey: string }
let other: { orgId: string; testKey: string; liveKey: string }
let viewer: Awaited<ReturnType<typeof memberOf>>
const ids: Record<string, string> = {}

// Each default order body has 2 item lines of quantity 2 and 1.
const at = async (iso: string, name: string, key: () => string, body = orderBody()) => {
  clock.set(new Date(iso))
  ids[name] = (await createOrder(t, key(), body)).order.id
}

{
  org = await t.tenant('Home Prints')
  other = await t.tenant('Other Prints')
  await at('2026-10-01T12:00:00.000Z', 'old', () => org.liveKey)
  await at('2026-11-05T08:00:00.000Z', 'month', () => org.liveKey)
  await at('2026-11-18T23:59:00.000Z', 'week', () => org.liveKey)
  await at('2026-11-22T00:30:00.000Z', 'today', () => org.liveKey, {
    ...orderBody({ external_order_id: 'WEB-1001' }),
    customer: { name: 'Ada Lovelace', email: 'Ada@Example.com' },
  })
  await at(
    '2026-11-22T00:31:00.000Z',
    'test',
    () => org.testKey,
    orderBody({ external_order_id: 'WEB-1001' }),
  )
  await at('2026-11-22T00:32:00.000Z', 'foreign', () => other.liveKey)
  clock.set(new Date('2026-11-22T01:00:00.000Z'))
  const shop = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/shop-orders`, orderBody())
  assert.equal(shop.statusCode, 201, shop.body)
  ids.shop = shop.json().data.order.id
  clock.set(new Date('2026-11-22T10:00:00.000Z'))
  viewer = await memberOf(t, org.orgId, 'viewer')
}

const home = async () => {
  const res = await viewer.client.call('GET', '/home')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

const setStatus = async (orderId: string, status: string) => {
  const order = await t.admin('GET', `/admin/v1/orders/${orderId}`)
  const production = order.json().data.order.production_order.id
  const res = await t.admin('POST', `/admin/v1/production-orders/${production}/status`, { status })
  assert.equal(res.statusCode, 200, res.body)
}

describe('Home', () => {
  test('counts live orders per UTC day window, never test orders or another organization', async () => {
    const data = await home()
    assert.equal(data.today, '2026-11-22')
    const { today, last_7_days, last_30_days, all_time } = data.live_orders
    // today: the API order of 00:30 and the shop order (live); not the test order.
    assert.deepEqual(today, {
      orders_total: 2,
      orders_by_status: { pending: 2, in_production: 0, completed: 0, failed: 0, cancelled: 0 },
      items_total: 4,
      quantity_total: 6,
    })
    assert.equal(last_7_days.orders_total, 3)
    assert.equal(last_30_days.orders_total, 4)
    assert.equal(all_time.orders_total, 5)
    assert.equal(all_time.items_total, 10)
    assert.equal(all_time.quantity_total, 15)
    assert.equal(data.in_production, 0)
    // The operator's statistics read the same aggregates.
    const stats = await t.admin('GET', `/admin/v1/organizations/${org.orgId}/stats`)
    assert.deepEqual(stats.json().data, all_time)
  })

  test('moves when an order is created and when its status changes', async () => {
    await at('2026-11-22T10:05:00.000Z', 'later', () => org.liveKey)
    await at('2026-11-22T10:06:00.000Z', 'test2', () => org.testKey)
    await setStatus(ids.today!, 'in_progress')
    await setStatus(ids.week!, 'in_progress')
    await setStatus(ids.week!, 'completed')
    const cancel = await t.admin('POST', `/admin/v1/orders/${ids.old}/cancel`)
    assert.equal(cancel.statusCode, 200, cancel.body)
    const data = await home()
    assert.deepEqual(data.live_orders.today.orders_by_status, {
      pending: 2,
      in_production: 1,
      completed: 0,
      failed: 0,
      cancelled: 0,
    })
    assert.equal(data.live_orders.today.items_total, 6)
    assert.deepEqual(data.live_orders.last_7_days.orders_by_status, {
      pending: 2,
      in_production: 1,
      completed: 1,
      failed: 0,
      cancelled: 0,
    })
    assert.deepEqual(data.live_orders.all_time.orders_by_status, {
      pending: 3,
      in_production: 1,
      completed: 1,
      failed: 0,
      cancelled: 1,
    })
    assert.equal(data.live_orders.all_time.quantity_total, 18)
    assert.equal(data.in_production, 1)
  })

  test('webhook health: active, failing and disabled endpoints; deliveries settled per day, a retrying one not among the failed', async () => {
    const endpoint = (active: boolean) => ({
      id: newId(),
      organization_id: org.orgId,
      environment: 'live' as const,
      url: 'https://hooks.example.com/in',
      description: '',
      secret_encrypted: 'sealed',
      pinned_addresses: [],
      is_active: active,
      disabled_reason: active ? null : 'too_many_failures',
      last_success_at: null,
      last_failure_at: null,
      created_at: clock.now(),
      disabled_at: active ? null : clock.now(),
    })
    const active = endpoint(true)
    await t.db
      .insertInto('webhook_endpoints')
      .values([active, endpoint(false)])
      .execute()
    const { deliveries_per_day: none, ...health } = (await home()).webhooks
    assert.deepEqual(health, { active_endpoints: 1, failing_endpoints: 0, disabled_endpoints: 1 })
    assert.equal(none.length, 30)
    assert.ok(none.every((d: { succeeded: number; failed: number }) => d.succeeded + d.failed === 0))
    // Three live orders make three deliveries to the active endpoint.
    for (const n of [1, 2, 3]) await at(`2026-11-22T11:0${n}:00.000Z`, `hooked${n}`, () => org.liveKey)
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', active.id)
      .orderBy('id')
      .execute()
    assert.equal(deliveries.length, 3)
    const [recent, old, succeeded] = deliveries.map((d) => d.id)
    await settleDelivery(t, recent!, 'failed', new Date('2026-11-22T09:00:00.000Z'))
    await settleDelivery(t, old!, 'failed', new Date('2026-11-20T09:00:00.000Z'))
    await settleDelivery(t, succeeded!, 'succeeded', new Date('2026-11-22T09:30:00.000Z'))
    const webhooks = (await home()).webhooks
    // Its last attempt succeeded: not failing.
    assert.equal(webhooks.failing_endpoints, 0)
    // Per day of settling: one failed on 20 November, one failed and one delivered on the 22nd.
    const settled = (days: { day: string; succeeded: number; failed: number }[]) =>
      days.filter((d) => d.succeeded + d.failed > 0)
    assert.equal(webhooks.deliveries_per_day.length, 30)
    assert.equal(webhooks.deliveries_per_day[0].day, '2026-10-24')
    const expected = [
      { day: '2026-11-20', succeeded: 0, failed: 1 },
      { day: '2026-11-22', succeeded: 1, failed: 1 },
    ]
    assert.deepEqual(settled(webhooks.deliveries_per_day), expected)
    // The same once the background fold has moved the settlements into the daily aggregate.
    assert.equal(await t.db.transaction().execute((trx) => foldWebhookOutcomes(trx, 100)), 3)
    assert.deepEqual(await t.db.selectFrom('webhook_outcome_changes').selectAll().execute(), [])
    assert.deepEqual(settled((await home()).webhooks.deliveries_per_day), expected)
    // A failed attempt with a retry to come: the endpoint is failing, and the delivery, still pending,
    // is not among the failed (what Home's figure and its success rate count: settled deliveries).
    await at('2026-11-22T11:05:00.000Z', 'hooked4', () => org.liveKey)
    const [waiting] = await t.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', active.id)
      .where('status', '=', 'pending')
      .execute()
    await settleDelivery(t, waiting!.id, 'pending', new Date('2026-11-22T11:06:00.000Z'))
    const retrying = (await home()).webhooks
    assert.equal(retrying.failing_endpoints, 1)
    assert.deepEqual(settled(retrying.deliveries_per_day), expected)
    // Deleting the endpoint gives up its waiting delivery: one more failed today.
    const removed = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${active.id}`)
    assert.equal(removed.statusCode, 200, removed.body)
    assert.deepEqual(settled((await home()).webhooks.deliveries_per_day), [
      expected[0],
      { day: '2026-11-22', succeeded: 1, failed: 2 },
    ])
    assert.equal((await home()).webhooks.failing_endpoints, 0)
    // Another organization's settlements never count.
    const stranger = await memberOf(t, other.orgId, 'viewer')
    const theirs = await stranger.client.call('GET', '/home')
    assert.deepEqual(settled(theirs.json().data.webhooks.deliveries_per_day), [])
  })

  test('live orders per day for 30 days by current status, from the aggregates', async () => {
    const days = (await home()).live_orders_per_day as {
      day: string
      orders_total: number
      orders_by_status: Record<string, number>
    }[]
    assert.equal(days.length, 30)
    assert.equal(days[0]!.day, '2026-10-24')
    assert.equal(days[29]!.day, '2026-11-22')
    const zero = { pending: 0, in_production: 0, completed: 0, failed: 0, cancelled: 0 }
    // The order of 1 October is older than 30 days; test orders and the other organization's never count.
    assert.deepEqual(
      days.filter((d) => d.orders_total > 0),
      [
        { day: '2026-11-05', orders_total: 1, orders_by_status: { ...zero, pending: 1 } },
        { day: '2026-11-18', orders_total: 1, orders_by_status: { ...zero, completed: 1 } },
        { day: '2026-11-22', orders_total: 7, orders_by_status: { ...zero, pending: 6, in_production: 1 } },
      ],
    )
    assert.equal(
      days.reduce((sum, d) => sum + d.orders_total, 0),
      (await home()).live_orders.last_30_days.orders_total,
    )
  })
})

const list = async (query: string, client = viewer.client) => {
  const res = await client.call('GET', `/orders${query}`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as {
    data: { id: string; external_order_id: string; [k: string]: unknown }[]
    next_cursor: string | null
  }
}

describe('Orders', () => {
  test('live orders newest first, as summaries; test orders only with environment=test', async () => {
    const page = await list('')
    assert.ok(page.data.length >= 6)
    const created = page.data.map((o) => o.created_at as string)
    assert.deepEqual(created, [...created].sort().reverse())
    assert.ok(page.data.every((o) => o.is_test === false))
    assert.ok(!page.data.some((o) => o.id === ids.foreign))
    const first = page.data.find((o) => o.id === ids.today)!
    assert.deepEqual(
      { ...first, status: undefined },
      {
        id: ids.today,
        external_order_id: 'WEB-1001',
        status: undefined,
        is_test: false,
        customer_name: 'Ada Lovelace',
        customer_email: 'Ada@Example.com',
        items: 2,
        quantity: 3,
        currency: 'EUR',
        total_amount: 59.9,
        ordered_at: '2026-11-22T00:30:00.000Z',
        created_at: '2026-11-22T00:30:00.000Z',
        held: false,
        priority: 'normal',
        produced_by_partner: false,
        tags: [],
      },
    )
    const tests = await list('?environment=test')
    assert.deepEqual(
      tests.data.map((o) => o.id),
      [ids.test2, ids.test],
    )
  })

  test('filters: status, UTC days, a search on external id, email or name in any case', async () => {
    const cancelled = await list('?status=cancelled')
    assert.deepEqual(
      cancelled.data.map((o) => o.id),
      [ids.old],
    )
    const november18 = await list('?from=2026-11-18&to=2026-11-18')
    assert.deepEqual(
      november18.data.map((o) => o.id),
      [ids.week],
    )
    const since = await list('?from=2026-11-05&to=2026-11-19')
    assert.deepEqual(
      since.data.map((o) => o.id),
      [ids.week, ids.month],
    )
    for (const q of ['web-10', 'ada@example', 'ADA LOVE', 'Ada']) {
      const found = await list(`?q=${encodeURIComponent(q)}`)
      assert.deepEqual(
        found.data.map((o) => o.id),
        [ids.today],
        q,
      )
    }
    assert.deepEqual((await list('?q=Lovelace')).data, [], 'a prefix, not a substring')
    assert.deepEqual((await list('?q=%25')).data, [], '% is a character, not a wildcard')
    assert.deepEqual((await list('?q=_EB')).data, [], '_ is a character, not a wildcard')
    const testWeb = await list('?environment=test&q=WEB-1001')
    assert.deepEqual(
      testWeb.data.map((o) => o.id),
      [ids.test],
    )
  })

  test('keyset paging walks every order once, also while new orders arrive', async () => {
    const all = (await list('?limit=100')).data.map((o) => o.id)
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      seen.push(...page.data.map((o) => o.id))
      cursor = page.next_cursor
      if (pages++ === 0) await at('2026-11-22T12:00:00.000Z', 'meanwhile', () => org.liveKey)
    } while (cursor)
    assert.deepEqual(seen, all)
    assert.equal((await list('?limit=1')).data[0]!.id, ids.meanwhile)
  })

  test("another organization's orders never appear; a bad cursor or filter is a validation error", async () => {
    const foreign = await memberOf(t, other.orgId, 'viewer')
    assert.deepEqual(
      (await list('', foreign.client)).data.map((o) => o.id),
      [ids.foreign],
    )
    assert.deepEqual((await list('?q=WEB-1001', foreign.client)).data, [])
    const bad = await viewer.client.call('GET', '/orders?cursor=nope')
    assertError(bad, 422, 'validation_failed')
    const status = await viewer.client.call('GET', '/orders?status=shipped')
    assertError(status, 422, 'validation_failed')
    const day = await viewer.client.call('GET', '/orders?from=22.11.2026')
    assertError(day, 422, 'validation_failed')
  })
})
