import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { newId } from '../../../src/lib/ids.ts'
import { foldWebhookOutcomes } from '../../../src/modules/webhooks/deliveries/daily-outcomes.repo.ts'
import { createTestApp, manualClock, orderBody, type TestApp, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder as createApiOrder } from '../../helpers/operator.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { pathOf } from '../../helpers/uploads.ts'
import { createEndpoint, settleDelivery } from '../../helpers/webhook-endpoints.ts'

describe('Home and the orders list', async () => {
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
    ids[name] = (await createApiOrder(t, key(), body)).order.id
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
          print_check: null,
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
})

describe('changing and cancelling an order', () => {
  /**
   * Changing and cancelling an accepted order from the dashboard's order page
   * (owners and developers) and the console (operators): the rules of
   * POST /v1/orders, the page's precondition, the audit entry and history, the
   * order.updated event, and duplicate protection that keeps its promise.
   */
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let updatedOnly: string
  let receivedOnly: string

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    org = await t.tenant('Order Edit Prints')
    developer = await memberOf(t, org.orgId, 'developer')
    viewer = await memberOf(t, org.orgId, 'viewer')
    operator = await operatorOf(t)
    const endpoint = async (enabled_events: string[]) => {
      const res = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: `https://webhook.test/${enabled_events[0]}`,
        enabled_events,
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().data.endpoint.id as string
    }
    updatedOnly = await endpoint(['order.updated'])
    receivedOnly = await endpoint(['order.received'])
  })
  after(() => t.close())

  type Order = {
    id: string
    updated_at: string
    status: string
    customer: { name: string; email: string | null; phone: string | null }
    production_order: { id: string; status: string } | null
    items: {
      id: string
      quantity: number
      personalization: Record<string, unknown>
      files: { upload_id: string; name: string | null; content_type: string | null }[]
    }[]
  }

  async function pageOf(orderId: string, client = developer.client): Promise<Order> {
    const res = await client.call('GET', `/orders/${orderId}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order
  }

  const eventsOf = (orderId: string) =>
    t.db.selectFrom('events').select(['type', 'data']).where('order_id', '=', orderId).orderBy('id').execute()

  const historyOf = async (orderId: string) => {
    const res = await viewer.client.call('GET', `/orders/${orderId}/history`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as {
      action: string
      actor: string
      by_operator: boolean
      changed: string[]
      details: {
        before: { customer?: unknown; items?: { quantity: number }[]; status?: string }
        after: { customer?: unknown; items?: { quantity: number }[]; status?: string }
      }
    }[]
  }

  /** A file uploaded as the order page does: the dashboard's slot, then the signed PUT. */
  async function uploadThroughPage(orderId: string, bytes: Buffer, filename: string) {
    const slot = await developer.client.call('POST', `/orders/${orderId}/uploads`, { filename })
    assert.equal(slot.statusCode, 201, slot.body)
    const { upload_url, upload_id } = slot.json().data
    const put = await t.app.inject({ method: 'PUT', url: pathOf(upload_url), payload: bytes })
    assert.equal(put.statusCode, 200, put.body)
    return upload_id as string
  }

  describe('a member changes a live API order before production starts', () => {
    test('customer, quantity, personalization and files: one change, audited, on the history, order.updated, resend still 200', async () => {
      const png1 = await uploadFile(t, org.liveKey, png([1, 2, 3]), 'front.png')
      const pdf = await uploadFile(t, org.liveKey, PDF, 'proof.pdf')
      const body = orderBody({
        items: [
          {
            sku: 'MUG-01',
            name: 'Mug',
            quantity: 2,
            personalization: { text: 'Hello' },
            files: [{ upload_id: png1, role: 'front' }, { upload_id: pdf }],
          },
          { name: 'Card', quantity: 1 },
        ],
      })
      const { id } = await createOrder(t, org.liveKey, body)
      const shown = await pageOf(id)
      const added = await uploadThroughPage(id, png([9, 9, 9]), 'back.png')

      const res = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        customer: { name: 'Jo Doe', email: 'jo.new@example.com', phone: '+49 30 1234' },
        items: [
          {
            id: shown.items[0]!.id,
            quantity: 5,
            personalization: { text: 'Hello Jo', size: 12 },
            remove_files: [pdf],
            add_files: [{ upload_id: added, role: 'back' }],
          },
        ],
      })
      assert.equal(res.statusCode, 200, res.body)
      const changed = [
        'customer.email',
        'customer.phone',
        'items[0].quantity',
        'items[0].personalization',
        'items[0].files',
      ]
      assert.deepEqual(res.json().data.changed, changed)
      const now = await pageOf(id)
      assert.deepEqual(res.json().data.order, now)
      assert.ok(now.updated_at > shown.updated_at, 'updated_at moved')
      assert.deepEqual(now.customer, { name: 'Jo Doe', email: 'jo.new@example.com', phone: '+49 30 1234' })
      assert.equal(now.items[0]!.quantity, 5)
      assert.deepEqual(now.items[0]!.personalization, { text: 'Hello Jo', size: 12 })
      assert.deepEqual(
        now.items[0]!.files.map((f) => [f.upload_id, f.name, f.content_type]),
        [
          [png1, 'front.png', 'image/png'],
          [added, 'back.png', 'image/png'],
        ],
      )
      const download = await viewer.client.call('GET', `/orders/${id}/files/${added}`)
      assert.equal(download.statusCode, 200)

      // The event, filtered by enabled_events like every other.
      const events = await eventsOf(id)
      assert.deepEqual(
        events.map((e) => e.type),
        ['order.received', 'order.updated'],
      )
      assert.deepEqual(events[1]!.data, {
        order_id: id,
        external_order_id: body.external_order_id,
        changed,
        sequence: 2,
      })
      const deliveries = await t.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select(['d.endpoint_id', 'e.type'])
        .where('e.order_id', '=', id)
        .execute()
      assert.deepEqual(
        deliveries.filter((d) => d.type === 'order.updated').map((d) => d.endpoint_id),
        [updatedOnly],
      )
      assert.equal(deliveries.filter((d) => d.endpoint_id === receivedOnly).length, 1)

      // The audit entry has before and after; the history shows it to every member.
      const [entry] = await historyOf(id)
      assert.equal(entry!.action, 'order.changed')
      assert.equal(entry!.actor, developer.email)
      assert.equal(entry!.by_operator, false)
      assert.deepEqual(entry!.changed, changed)
      assert.deepEqual(entry!.details.before.customer, {
        name: 'Jo Doe',
        email: 'jo@example.com',
        phone: null,
      })
      assert.equal(entry!.details.before.items![0]!.quantity, 2)
      assert.equal(entry!.details.after.items![0]!.quantity, 5)

      // Duplicate protection compares with what the client sent, not with what changed since.
      const resend = await t.api(org.liveKey, 'POST', '/v1/orders', body)
      assert.equal(resend.statusCode, 200, resend.body)
      assert.equal(resend.json().data.order.items[0].quantity, 5)
      assert.equal(resend.json().data.order.customer.email, 'jo.new@example.com')
      assert.equal(resend.json().data.order.updated_at, now.updated_at)
      const different = await t.api(org.liveKey, 'POST', '/v1/orders', { ...body, total_amount: 1 })
      assertError(different, 409, 'order_already_exists_with_different_content')
      assert.equal((await eventsOf(id)).length, 2, 'a resend records nothing')
    })

    test('a change the API would refuse is refused with its messages, and changes nothing', async () => {
      const body = orderBody()
      const { id } = await createOrder(t, org.liveKey, body)
      const shown = await pageOf(id)
      const refused = await t.api(org.liveKey, 'POST', '/v1/orders', {
        ...orderBody(),
        customer: { name: '' },
        items: [{ name: 'Mug', quantity: 0, personalization: { ['k'.repeat(101)]: 1 } }],
      })
      const res = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        customer: { name: '' },
        items: [{ id: shown.items[0]!.id, quantity: 0, personalization: { ['k'.repeat(101)]: 1 } }],
      })
      const expected = assertValidation(refused, [
        ['too_short', 'customer.name'],
        ['too_small', 'items.0.quantity'],
        ['too_long', 'items.0.personalization'],
      ])
      const error = assertValidation(res, [
        ['too_short', 'customer.name'],
        ['too_small', 'items.0.quantity'],
        ['too_long', 'items.0.personalization'],
      ])
      assert.deepEqual(error.errors, expected.errors, 'the same messages as POST /v1/orders')

      // Files: the same content checks, in the API's bracket notation.
      const text = await uploadThroughPage(id, png().subarray(0, 3), 'cut.png')
      const files = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        items: [{ id: shown.items[1]!.id, add_files: [{ upload_id: text }] }],
      })
      assertValidation(files, [['file_not_found', 'items[1].files[0].upload_id']])

      // One item named twice: which of its changes was meant is not for the service to guess.
      const twice = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        items: [
          { id: shown.items[0]!.id, quantity: 4 },
          { id: shown.items[1]!.id, quantity: 3 },
          { id: shown.items[0]!.id, quantity: 6 },
        ],
      })
      const duplicate = assertValidation(twice, [['invalid_format', 'items[2].id']])
      assert.match(duplicate.errors[0]!.message, /same item as items\[0\]/)
      assert.deepEqual(await pageOf(id), shown, 'nothing changed')
      assert.deepEqual(await historyOf(id), [])
    })

    test('a stale page gets a 409 in words; viewers get 403; nothing is written', async () => {
      const { id } = await createOrder(t, org.liveKey, orderBody())
      const shown = await pageOf(id)
      const first = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        customer: { name: 'First' },
      })
      assert.equal(first.statusCode, 200, first.body)
      const second = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        customer: { name: 'Second' },
      })
      const error = assertError(second, 409, 'production_conflict')
      assert.match(error.message, /was changed at .*after this page showed it\. Nothing was done/)
      const staleCancel = await developer.client.call('POST', `/orders/${id}/cancel`, {
        expected_updated_at: shown.updated_at,
      })
      assertError(staleCancel, 409, 'production_conflict')
      // Two changes from the same page at once: one is made, the other refused.
      const page = await pageOf(id)
      const both = await Promise.all(
        ['Third', 'Fourth'].map((name) =>
          developer.client.call('POST', `/orders/${id}/changes`, {
            expected_updated_at: page.updated_at,
            customer: { name },
          }),
        ),
      )
      assert.deepEqual(both.map((r) => r.statusCode).sort(), [200, 409])
      const now = await pageOf(id)
      assert.equal(now.customer.name, both[0]!.statusCode === 200 ? 'Third' : 'Fourth')
      assert.equal((await historyOf(id)).length, 2)
      assert.equal(now.status, 'pending')

      // List pages budget by the order's bytes: a longer personalization counts.
      const bytes = async () =>
        (
          await t.db
            .selectFrom('orders')
            .select('content_bytes')
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).content_bytes
      const before = await bytes()
      const longer = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: now.updated_at,
        items: [
          {
            id: now.items[0]!.id,
            personalization: { ...now.items[0]!.personalization, note: 'x'.repeat(1000) },
          },
        ],
      })
      assert.equal(longer.statusCode, 200, longer.body)
      assert.equal((await bytes()) - before, ',"note":""'.length + 1000)
      const latest = await pageOf(id)

      for (const [path, payload] of [
        [`/orders/${id}/changes`, { expected_updated_at: latest.updated_at, customer: { name: 'Viewer' } }],
        [`/orders/${id}/cancel`, { expected_updated_at: latest.updated_at }],
        [`/orders/${id}/uploads`, { filename: 'x.png' }],
      ] as const) {
        assertError(await viewer.client.call('POST', path, payload), 403, 'role_required')
      }
      assert.deepEqual(await pageOf(id), latest)
    })
  })

  describe('once production started', () => {
    test('members are told why; the operator still changes it, audited as the operator', async () => {
      const body = orderBody()
      const { id } = await createOrder(t, org.liveKey, body)
      const before = await pageOf(id)
      const started = await t.admin(
        'POST',
        `/admin/v1/production-orders/${before.production_order!.id}/status`,
        {
          status: 'in_progress',
        },
      )
      assert.equal(started.statusCode, 200, started.body)
      const shown = await pageOf(id)
      const member = await developer.client.call('POST', `/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        items: [{ id: shown.items[0]!.id, quantity: 3 }],
      })
      const error = assertError(member, 409, 'production_conflict')
      assert.match(error.message, /Production of this order has started .*in_progress.*Ask the operator/)

      const res = await operator.client.call('POST', `/operator/orders/${id}/changes`, {
        expected_updated_at: shown.updated_at,
        items: [{ id: shown.items[0]!.id, quantity: 3 }],
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.changed, ['items[0].quantity'])
      assert.equal(res.json().data.order.organization_id, org.orgId)
      const events = await eventsOf(id)
      assert.deepEqual(events.at(-1)!.data, {
        order_id: id,
        external_order_id: body.external_order_id,
        changed: ['items[0].quantity'],
        sequence: 3,
      })
      // The history lists production's start (by the operator token) before the change.
      const history = await historyOf(id)
      assert.deepEqual(
        history.map((e) => [e.action, e.actor]),
        [
          ['production.status_set', 'operator token'],
          ['order.changed', operator.email],
        ],
      )
      const entry = history[1]
      assert.equal(entry!.actor, operator.email)
      assert.equal(entry!.by_operator, true)
      const console = await operator.client.call('GET', `/operator/orders/${id}/history`)
      assert.deepEqual(console.json().data, await historyOf(id))
    })
  })
})

describe('the order page and products', () => {
  /**
   * The order page's API (an order, its files, its timeline) and the Products
   * API, as members of the order's organization and of another one see them.
   */
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let other: Awaited<ReturnType<TestApp['tenant']>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let stranger: Awaited<ReturnType<typeof memberOf>>
  const IMAGE = png([10, 120, 200])
  let live: { id: string; files: Record<'png' | 'pdf' | 'svg', string> }
  let testOrder: string
  let theirOrder: { id: string; file: string }

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    org = await t.tenant('Order Page Prints')
    other = await t.tenant('Other Prints')
    developer = await memberOf(t, org.orgId, 'developer')
    viewer = await memberOf(t, org.orgId, 'viewer')
    stranger = await memberOf(t, other.orgId, 'owner')
    await createEndpoint(t, org.liveKey, 'https://webhook.test/order-page')

    const files = {
      png: await uploadFile(t, org.liveKey, IMAGE, 'front.png'),
      pdf: await uploadFile(t, org.liveKey, PDF, 'proof.pdf'),
      svg: await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg'),
    }
    const created = await createOrder(
      t,
      org.liveKey,
      orderBody({
        items: [
          {
            sku: 'MUG-WHITE',
            name: 'Mug',
            quantity: 2,
            personalization: { text: MARKUP, size: 11 },
            files: [
              { upload_id: files.png, role: 'front' },
              { upload_id: files.pdf, role: 'proof' },
              { upload_id: files.svg },
            ],
          },
          { sku: 'CARD-A6', name: 'Card', quantity: 1 },
        ],
      }),
    )
    live = { id: created.id, files }
    testOrder = (
      await createOrder(
        t,
        org.testKey,
        orderBody({
          items: [
            { sku: 'MUG-WHITE', name: 'Test mug', quantity: 3 },
            { name: 'No sku', quantity: 1 },
          ],
        }),
      )
    ).id
    const theirFile = await uploadFile(t, other.liveKey, IMAGE, 'theirs.png')
    theirOrder = {
      id: (
        await createOrder(
          t,
          other.liveKey,
          orderBody({
            items: [{ sku: 'MUG-WHITE', name: 'Their mug', quantity: 1, files: [{ upload_id: theirFile }] }],
          }),
        )
      ).id,
      file: theirFile,
    }
  })
  after(() => t.close())

  describe('the order page API', () => {
    test('GET /orders/{id}: items, personalization, production status and files of a live order', async () => {
      const res = await viewer.client.call('GET', `/orders/${live.id}`)
      assert.equal(res.statusCode, 200, res.body)
      const order = res.json().data.order
      assert.equal(order.id, live.id)
      assert.equal(order.is_test, false)
      assert.equal(order.organization_id, undefined)
      assert.equal(order.production_order.status, 'pending')
      const [mug, card] = order.items
      assert.deepEqual(mug.personalization, { text: MARKUP, size: 11 })
      assert.equal(mug.production_status, 'pending')
      assert.equal(mug.product_linked, false)
      assert.deepEqual(
        mug.files.map((f: { upload_id: string; name: string; role: string | null; content_type: string }) => [
          f.upload_id,
          f.name,
          f.role,
          f.content_type,
        ]),
        [
          [live.files.png, 'front.png', 'front', 'image/png'],
          [live.files.pdf, 'proof.pdf', 'proof', 'application/pdf'],
          [live.files.svg, 'logo.svg', null, 'image/svg+xml'],
        ],
      )
      assert.equal(card.sku, 'CARD-A6')
    })

    test('a test order opens the same way (ids are unique across environments)', async () => {
      const res = await viewer.client.call('GET', `/orders/${testOrder}`)
      assert.equal(res.statusCode, 200, res.body)
      const order = res.json().data.order
      assert.equal(order.is_test, true)
      assert.equal(order.production_order, null)
      assert.equal(order.items[0].production_status, null)
      const timeline = await viewer.client.call('GET', `/orders/${testOrder}/timeline`)
      assert.deepEqual(timeline.json(), { data: [] })
    })

    test("another organization's order, file or timeline is 404 not_found", async () => {
      for (const path of [
        `/orders/${theirOrder.id}`,
        `/orders/${theirOrder.id}/files/${theirOrder.file}`,
        `/orders/${theirOrder.id}/timeline`,
        `/orders/${live.id}/files/${theirOrder.file}`,
        `/orders/${theirOrder.id}/files/${live.files.png}`,
        '/orders/not-a-uuid',
      ]) {
        assertError(await viewer.client.call('GET', path), 404, 'not_found', path)
      }
      for (const path of [
        `/orders/${live.id}`,
        `/orders/${live.id}/files/${live.files.png}`,
        `/orders/${live.id}/timeline`,
      ]) {
        const res = await stranger.client.call('GET', path)
        assertError(res, 404, 'not_found', path)
        assert.ok(!res.body.includes('front.png'), path)
      }
    })

    test('a file downloads through the session: its type, an attachment, nosniff', async () => {
      const image = await viewer.client.call('GET', `/orders/${live.id}/files/${live.files.png}`)
      assert.equal(image.statusCode, 200)
      assert.equal(image.headers['content-type'], 'image/png')
      assert.equal(image.headers['content-disposition'], 'attachment; filename="front.png"')
      assert.equal(image.headers['x-content-type-options'], 'nosniff')
      assert.equal(image.headers['content-length'], String(IMAGE.length))
      assert.deepEqual(image.rawPayload, IMAGE)

      const pdf = await viewer.client.call('GET', `/orders/${live.id}/files/${live.files.pdf}`)
      assert.equal(pdf.headers['content-type'], 'application/pdf')
      assert.equal(pdf.headers['content-disposition'], 'attachment; filename="proof.pdf"')

      const svg = await viewer.client.call('GET', `/orders/${live.id}/files/${live.files.svg}`)
      assert.equal(svg.headers['content-type'], 'image/svg+xml')
      assert.equal(svg.headers['content-disposition'], 'attachment; filename="logo.svg"')
      assert.equal(svg.headers['x-content-type-options'], 'nosniff')
      assert.match(svg.headers['content-security-policy'] as string, /sandbox/)
      assert.ok(svg.body.includes('<rect'), svg.body)
      assert.ok(!/script|onload|alert/i.test(svg.body), `sanitized: ${svg.body}`)

      const anonymous = await t.app.inject({
        method: 'GET',
        url: `/dashboard/api/orders/${live.id}/files/${live.files.png}`,
      })
      assertError(anonymous, 401, 'session_required')
    })

    test('the timeline: the order.received event with its delivery (status, attempts)', async () => {
      await t.admin('POST', `/admin/v1/orders/${live.id}/cancel`)
      const res = await viewer.client.call('GET', `/orders/${live.id}/timeline`)
      assert.equal(res.statusCode, 200, res.body)
      const events = res.json().data as {
        type: string
        deliveries: { status: string; attempts: number; endpoint_url: string }[]
      }[]
      assert.deepEqual(
        events.map((e) => e.type),
        ['order.received', 'order.cancelled'],
      )
      for (const event of events) {
        assert.deepEqual(
          event.deliveries.map((d) => [d.endpoint_url, d.status, d.attempts]),
          [['https://webhook.test/order-page', 'pending', 0]],
        )
      }
    })
  })

  describe('the Products API', () => {
    const unmatched = async () =>
      (await viewer.client.call('GET', '/products/unmatched-skus')).json().data as {
        sku: string
        items: number
        orders: number
        last_seen_at: string
      }[]

    test('unmatched skus: grouped with counts, both environments, items without a sku left out', async () => {
      const skus = await unmatched()
      assert.deepEqual(skus.map((s) => [s.sku, s.items, s.orders]).sort(), [
        ['CARD-A6', 1, 1],
        ['MUG-WHITE', 2, 2],
      ])
      // Last seen: when the newest order with such an item was received.
      const createdAt = async (id: string) =>
        (await viewer.client.call('GET', `/orders/${id}`)).json().data.order.created_at
      const seen = Object.fromEntries(skus.map((s) => [s.sku, s.last_seen_at]))
      assert.deepEqual(seen, { 'CARD-A6': await createdAt(live.id), 'MUG-WHITE': await createdAt(testOrder) })
      assert.ok(skus[0]!.last_seen_at >= skus[1]!.last_seen_at)
      assert.ok(!JSON.stringify(skus).includes('Their mug'))
    })

    test('a developer adds a product: it links the existing items, says how many, and the sku leaves the list', async () => {
      const before = (await viewer.client.call('GET', `/orders/${live.id}`)).json().data.order
      const res = await developer.client.call('POST', '/products', {
        sku: 'MUG-WHITE',
        name: 'White mug 330 ml',
      })
      assert.equal(res.statusCode, 201, res.body)
      const { product, linked_items } = res.json().data
      assert.equal(linked_items, 2)
      assert.equal(product.sku, 'MUG-WHITE')
      assert.equal(product.name, 'White mug 330 ml')
      assert.equal(product.organization_id, undefined)

      const after = (await viewer.client.call('GET', `/orders/${live.id}`)).json().data.order
      assert.equal(after.items[0].product_linked, true)
      assert.equal(after.items[1].product_linked, false)
      assert.ok(after.updated_at > before.updated_at, 'pollers see the change')
      const test = (await viewer.client.call('GET', `/orders/${testOrder}`)).json().data.order
      assert.equal(test.items[0].product_linked, true)
      // The other organization's item with the same sku stays as it was.
      const theirs = (await stranger.client.call('GET', `/orders/${theirOrder.id}`)).json().data.order
      assert.equal(theirs.items[0].product_linked, false)

      assert.deepEqual(
        (await unmatched()).map((s) => s.sku),
        ['CARD-A6'],
      )
      const list = (await viewer.client.call('GET', '/products')).json().data
      assert.deepEqual(
        list.map((p: { sku: string; name: string }) => [p.sku, p.name]),
        [['MUG-WHITE', 'White mug 330 ml']],
      )
      assert.deepEqual((await stranger.client.call('GET', '/products')).json().data, [])

      const audit = (await viewer.client.call('GET', '/audit-log')).json().data as {
        actor: string
        action: string
        subject: string
        details: Record<string, unknown>
      }[]
      const entry = audit.find((e) => e.action === 'product.created')
      assert.deepEqual(entry && [entry.actor, entry.subject, entry.details], [
        developer.email,
        'MUG-WHITE',
        { name: 'White mug 330 ml', linked_items: 2 },
      ])
    })

    test('a later order links at once; a second product with the sku is 409; a viewer cannot add one', async () => {
      const later = await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ sku: 'MUG-WHITE', name: 'Mug', quantity: 1 }] }),
      )
      assert.deepEqual(later.warnings, [])
      assertError(
        await developer.client.call('POST', '/products', { sku: 'MUG-WHITE', name: 'Again' }),
        409,
        'product_already_exists',
      )
      assertError(
        await viewer.client.call('POST', '/products', { sku: 'NEW-1', name: 'New' }),
        403,
        'role_required',
      )
      const none = await developer.client.call('POST', '/products', { sku: 'NOT-SEEN', name: 'Not seen yet' })
      assert.equal(none.statusCode, 201, none.body)
      assert.equal(none.json().data.linked_items, 0)
      const rows = await t.db
        .selectFrom('audit_log')
        .select('subject')
        .where('action', '=', 'product.created')
        .execute()
      assert.deepEqual(rows.map((r) => r.subject).sort(), ['MUG-WHITE', 'NOT-SEEN'])
    })
  })
})

describe('orders as CSV', () => {
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
})
