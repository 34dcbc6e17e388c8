import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { pathOf } from '../../helpers/uploads.ts'

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
    assert.deepEqual(entry!.details.before.customer, { name: 'Jo Doe', email: 'jo@example.com', phone: null })
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
      (await t.db.selectFrom('orders').select('content_bytes').where('id', '=', id).executeTakeFirstOrThrow())
        .content_bytes
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
    const [entry] = await historyOf(id)
    assert.equal(entry!.actor, operator.email)
    assert.equal(entry!.by_operator, true)
    const console = await operator.client.call('GET', `/operator/orders/${id}/history`)
    assert.deepEqual(console.json().data, await historyOf(id))
  })
})

describe('cancelling', () => {
  test('a member cancels a live order: order.cancelled exactly as the operator\u2019s, once', async () => {
    const body = orderBody()
    const { id } = await createOrder(t, org.liveKey, body)
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: shown.updated_at,
    })
    assert.equal(res.statusCode, 200, res.body)
    const order = res.json().data.order as Order
    assert.equal(order.status, 'cancelled')
    assert.equal(order.production_order!.status, 'cancelled')
    assert.ok(order.updated_at > shown.updated_at)
    const events = await eventsOf(id)
    assert.deepEqual(events.at(-1), {
      type: 'order.cancelled',
      data: {
        order_id: id,
        external_order_id: body.external_order_id,
        production_order_id: shown.production_order!.id,
        sequence: 2,
      },
    })
    const [entry] = await historyOf(id)
    assert.equal(entry!.action, 'order.cancelled')
    assert.deepEqual(
      [entry!.details.before, entry!.details.after],
      [{ status: 'pending' }, { status: 'cancelled' }],
    )
    const again = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: order.updated_at,
    })
    assert.match(assertError(again, 409, 'production_conflict').message, /already cancelled/)
    assert.equal((await eventsOf(id)).length, 2)
  })

  test('test orders: changed without events, never cancelled; shop orders change without events', async () => {
    const { id } = await createOrder(t, org.testKey, orderBody())
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/changes`, {
      expected_updated_at: shown.updated_at,
      items: [{ id: shown.items[1]!.id, quantity: 4 }],
    })
    assert.equal(res.statusCode, 200, res.body)
    const cancel = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: res.json().data.order.updated_at,
    })
    assertError(cancel, 422, 'validation_failed')
    assert.equal((await pageOf(id)).status, 'pending')
    assert.deepEqual(await eventsOf(id), [])

    const shop = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/shop-orders`, orderBody())
    assert.equal(shop.statusCode, 201, shop.body)
    const shopOrder = await pageOf(shop.json().data.order.id)
    const changed = await developer.client.call('POST', `/orders/${shopOrder.id}/changes`, {
      expected_updated_at: shopOrder.updated_at,
      customer: { name: 'Shop customer' },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(await eventsOf(shopOrder.id), [])
  })
})
