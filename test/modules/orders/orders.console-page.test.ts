import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver, startReceiver } from '../../helpers/https-receiver.ts'
import { createOrder } from '../../helpers/order-files.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { createEndpoint } from '../../helpers/webhook-endpoints.ts'

/**
 * The console's order page as the API serves it: the organization by name,
 * the order's events with their webhook deliveries (the member's timeline,
 * for operators only, on the order page and the production order page, once
 * a delivery was attempted too), and the changes of the order in the audit
 * log's sentences on both pages.
 */
describe('the console order page and the order history in sentences', () => {
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let owner: Awaited<ReturnType<typeof memberOf>>
  let stranger: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let orderId: string
  const body = orderBody({
    total_amount: 29.75,
    items: [{ sku: 'MUG-01', name: 'Mug', quantity: 2, price: 12.5, personalization: { text: 'Hello' } }],
  })

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    org = await t.tenant('Console Page Prints')
    const other = await t.tenant('Other Prints')
    await createEndpoint(t, org.liveKey, 'https://webhook.test/console-page')
    orderId = (await createOrder(t, org.liveKey, body)).id
    owner = await memberOf(t, org.orgId, 'owner')
    stranger = await memberOf(t, other.orgId, 'owner')
    operator = await operatorOf(t)
  })
  after(() => t?.close())

  const pageOf = async () => {
    const res = await operator.client.call('GET', `/operator/orders/${orderId}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  test('the console order names its organization, with the id', async () => {
    const data = await pageOf()
    assert.deepEqual(data.organization, { id: org.orgId, name: 'Console Page Prints' })
    assert.equal(data.order.organization_id, org.orgId)
  })

  test("an operator reads the order's deliveries as its organization does; a member of another organization does not", async () => {
    const res = await operator.client.call('GET', `/operator/orders/${orderId}/timeline`)
    assert.equal(res.statusCode, 200, res.body)
    const events = res.json().data as { type: string; deliveries: { endpoint_url: string }[] }[]
    assert.deepEqual(
      events.map((e) => [e.type, e.deliveries.map((d) => d.endpoint_url)]),
      [['order.received', ['https://webhook.test/console-page']]],
    )
    const member = await owner.client.call('GET', `/orders/${orderId}/timeline`)
    assert.deepEqual(res.json().data, member.json().data)

    assertError(
      await stranger.client.call('GET', `/operator/orders/${orderId}/timeline`),
      403,
      'role_required',
    )
    assertError(await owner.client.call('GET', `/operator/orders/${orderId}/timeline`), 403, 'role_required')
    assertError(await stranger.client.call('GET', `/orders/${orderId}/timeline`), 404, 'not_found')
    assertError(
      await operator.client.call('GET', '/operator/orders/00000000-0000-4000-8000-000000000000/timeline'),
      404,
      'not_found',
    )
  })

  test("after an attempt, the console's timelines list the event's delivery as the member's does, payload left out", async (ctx) => {
    // A receiver that fails: the attempt made, the next one a minute ahead.
    const receiver = await startReceiver(() => ({ status: 503 }))
    const tenant = await t.tenant('Delivered Prints')
    const { endpoint } = await createEndpoint(t, tenant.liveKey, receiver.url('/delivered'))
    const dispatcher = await t.startDispatcher({ ca: receiver.ca, retryDelaysMs: [60_000, 60_000] })
    ctx.after(async () => {
      await dispatcher.stop(100)
      await receiver.close()
    })
    const { id } = await createOrder(t, tenant.liveKey, orderBody())
    await waitUntil(
      () =>
        t.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .where('attempts', '=', 1)
          .where('next_attempt_at', 'is not', null)
          .executeTakeFirst(),
      'the first attempt recorded',
    )

    const member = await memberOf(t, tenant.orgId, 'viewer')
    const own = await member.client.call('GET', `/orders/${id}/timeline`)
    assert.equal(own.statusCode, 200, own.body)
    const [received] = own.json().data
    assert.equal(received.type, 'order.received')
    const [delivery] = received.deliveries
    assert.equal(received.deliveries.length, 1)
    assert.deepEqual(
      [delivery.endpoint_url, delivery.status, delivery.attempts, delivery.response_status],
      [receiver.url('/delivered'), 'pending', 1, 503],
    )
    assert.ok(Date.parse(delivery.next_attempt_at) > Date.now() + 30_000, delivery.next_attempt_at)
    // What a timeline's delivery carries: no payload, body, headers or signature.
    assert.deepEqual(Object.keys(delivery).sort(), [
      'attempts',
      'created_at',
      'endpoint_id',
      'endpoint_next_probe_at',
      'endpoint_url',
      'error_message',
      'id',
      'last_attempt_at',
      'next_attempt_at',
      'redelivery_of',
      'response_status',
      'status',
    ])

    const timeline = await operator.client.call('GET', `/operator/orders/${id}/timeline`)
    assert.equal(timeline.statusCode, 200, timeline.body)
    assert.deepEqual(timeline.json().data, own.json().data)
    const production = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', id)
      .executeTakeFirstOrThrow()
    const sheet = await operator.client.call('GET', `/operator/production-orders/${production.id}`)
    assert.equal(sheet.statusCode, 200, sheet.body)
    assert.deepEqual(sheet.json().data.timeline, own.json().data)
  })

  test("both pages' histories say each change in the audit log's sentence", async () => {
    const shown = (await pageOf()).order
    const changed = await owner.client.call('POST', `/orders/${orderId}/changes`, {
      expected_updated_at: shown.updated_at,
      items: [{ id: shown.items[0].id, quantity: 5, personalization: { text: 'Hello there' } }],
    })
    assert.equal(changed.statusCode, 200, changed.body)
    const again = changed.json().data.order
    const byOperator = await operator.client.call('POST', `/operator/orders/${orderId}/changes`, {
      expected_updated_at: again.updated_at,
      customer: { name: 'Jo Doe', email: 'jo.doe@example.com' },
    })
    assert.equal(byOperator.statusCode, 200, byOperator.body)

    const ref = body.external_order_id
    const expected = [
      `${owner.email} changed order ${ref}: quantity of item 1 2 \u2192 5; personalization of item 1`,
      `The operator ${operator.email} changed order ${ref}: customer email jo@example.com \u2192 jo.doe@example.com`,
    ]
    const member = await owner.client.call('GET', `/orders/${orderId}/history`)
    assert.deepEqual(
      member.json().data.map((e: { summary: string }) => e.summary),
      expected,
    )
    const console = await operator.client.call('GET', `/operator/orders/${orderId}/history`)
    assert.deepEqual(console.json().data, member.json().data)
    // The audit log says the member's change in the same words.
    const log = await owner.client.call('GET', '/audit-log?action=order.changed')
    assert.equal(log.statusCode, 200, log.body)
    const summaries = log.json().data.map((e: { summary: string }) => e.summary)
    assert.ok(summaries.includes(expected[0]), summaries.join('\n'))
  })
})
