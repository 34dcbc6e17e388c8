import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, HOSTILE_SVG, MARKUP, PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { createEndpoint } from '../../helpers/webhook-endpoints.ts'

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
