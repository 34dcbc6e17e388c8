import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { countBoard } from '../../../src/modules/production/production.repo.ts'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder, HOSTILE_SVG, PDF, png, uploadFile } from '../../helpers/order-files.ts'

const clock = manualClock(new Date('2026-11-29T08:00:00.000Z'))
const t = useTestApp({ clock })

type Counts = Record<string, { count: number; more: boolean }>

async function productionOrderOf(orderId: string) {
  return t.db
    .selectFrom('production_orders')
    .select('id')
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow()
}

describe('the production order page (console API)', () => {
  let operator: Awaited<ReturnType<typeof operatorOf>>
  before(async () => {
    operator = await operatorOf(t)
  })

  test('shows every item with SKU, quantity, every personalization field and every file, the partner flag, the customer and the history', async () => {
    const org = await t.tenant('Page Prints')
    const [photo, logo, proof] = [
      await uploadFile(t, org.liveKey, png(), 'photo.png'),
      await uploadFile(t, org.liveKey, HOSTILE_SVG, 'logo.svg'),
      await uploadFile(t, org.liveKey, PDF, 'proof.pdf'),
    ]
    const body = orderBody({
      customer: { name: 'Ada Print', email: 'ada@example.com', phone: '+49 30 1234' },
      items: [
        {
          sku: 'MUG-01',
          name: 'Mug',
          quantity: 3,
          personalization: { text: 'Happy birthday', color: 'navy', font_size: 14, gift_wrap: true },
          files: [{ upload_id: photo, role: 'front' }, { upload_id: logo }],
        },
        { name: 'Card', quantity: 1, files: [{ upload_id: proof, role: 'proof' }] },
      ],
    })
    const order = await createOrder(t, org.liveKey, body)
    const { id } = await productionOrderOf(order.id)
    const partner = await operator.client.call('POST', `/operator/production-orders/${id}/partner`, {
      produced_by_partner: true,
    })
    assert.equal(partner.statusCode, 200, partner.body)

    const res = await operator.client.call('GET', `/operator/production-orders/${id}`)
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.deepEqual(data.production_order, {
      id,
      order_id: order.id,
      status: 'pending',
      produced_by_partner: true,
    })
    assert.deepEqual(data.organization, { id: org.orgId, name: 'Page Prints' })
    assert.equal(data.order.external_order_id, body.external_order_id)
    assert.deepEqual(data.order.customer, {
      name: 'Ada Print',
      email: 'ada@example.com',
      phone: '+49 30 1234',
    })
    assert.deepEqual(
      data.order.items.map((i: { sku: string | null; name: string; quantity: number }) => [
        i.sku,
        i.name,
        i.quantity,
      ]),
      [
        ['MUG-01', 'Mug', 3],
        [null, 'Card', 1],
      ],
    )
    assert.deepEqual(data.order.items[0].personalization, {
      text: 'Happy birthday',
      color: 'navy',
      font_size: 14,
      gift_wrap: true,
    })
    assert.deepEqual(
      data.order.items.flatMap(
        (i: { files: { name: string; role: string | null; content_type: string }[] }) =>
          i.files.map((f) => [f.name, f.role, f.content_type]),
      ),
      [
        ['photo.png', 'front', 'image/png'],
        ['logo.svg', null, 'image/svg+xml'],
        ['proof.pdf', 'proof', 'application/pdf'],
      ],
    )
    assert.deepEqual(
      data.timeline.map((e: { type: string }) => e.type),
      ['order.received'],
    )

    // Each file through the production order: PNG and PDF as uploaded, the SVG sanitized.
    const file = (uploadId: string) =>
      operator.client.call('GET', `/operator/production-orders/${id}/files/${uploadId}`)
    const png1 = await file(photo)
    assert.equal(png1.statusCode, 200)
    assert.equal(png1.headers['content-type'], 'image/png')
    assert.match(String(png1.headers['content-disposition']), /^attachment; filename="photo\.png"/)
    assert.deepEqual(png1.rawPayload, png())
    assert.deepEqual((await file(proof)).rawPayload, PDF)
    const svg = await file(logo)
    assert.equal(svg.headers['content-type'], 'image/svg+xml')
    assert.match(svg.body, /<rect/)
    assert.doesNotMatch(svg.body, /script|onload/)
  })

  test('an unknown production order, or a file of another order, is 404; members get 403', async () => {
    const org = await t.tenant()
    const mine = await uploadFile(t, org.liveKey, png(), 'mine.png')
    const other = await uploadFile(t, org.liveKey, png([0, 0, 200]), 'other.png')
    const order = await createOrder(
      t,
      org.liveKey,
      orderBody({ items: [{ name: 'A', quantity: 1, files: [{ upload_id: mine }] }] }),
    )
    await createOrder(
      t,
      org.liveKey,
      orderBody({ items: [{ name: 'B', quantity: 1, files: [{ upload_id: other }] }] }),
    )
    const { id } = await productionOrderOf(order.id)
    const call = (path: string) => operator.client.call('GET', path)
    assertError(
      await call('/operator/production-orders/00000000-0000-7000-8000-000000000000'),
      404,
      'not_found',
    )
    assertError(await call('/operator/production-orders/not-a-uuid'), 404, 'not_found')
    assertError(await call(`/operator/production-orders/${order.id}`), 404, 'not_found')
    assertError(await call(`/operator/production-orders/${id}/files/${other}`), 404, 'not_found')
    const member = await memberOf(t, org.orgId, 'owner')
    assertError(await member.client.call('GET', `/operator/production-orders/${id}`), 403, 'role_required')
    // The console's order page reads the same files through the order.
    const own = await call(`/operator/orders/${order.id}/files/${mine}`)
    assert.equal(own.statusCode, 200)
    assert.equal(own.headers['content-type'], 'image/png')
    assert.match(String(own.headers['content-disposition']), /^attachment; filename="mine\.png"/)
    assert.equal(own.headers['content-security-policy'], "default-src 'none'; sandbox")
    assert.deepEqual(own.rawPayload, png())
    assertError(await call(`/operator/orders/${order.id}/files/${other}`), 404, 'not_found')
    assertError(
      await member.client.call('GET', `/operator/orders/${order.id}/files/${mine}`),
      403,
      'role_required',
    )
  })
})

describe('the production board counts', () => {
  let operator: Awaited<ReturnType<typeof operatorOf>>
  before(async () => {
    operator = await operatorOf(t)
  })

  async function counts(query: string): Promise<Counts> {
    const res = await operator.client.call('GET', `/operator/production?${query}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().counts
  }
  const plain = (c: Counts) =>
    Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v.more ? `>${v.count}` : v.count]))

  test('follow the filters: organization, partner and age; the pages after the first carry none', async () => {
    const [a, b] = [await t.tenant('Counts A'), await t.tenant('Counts B')]
    const aOld = await createOrder(t, a.liveKey, orderBody())
    clock.advance(2 * 60 * 60_000)
    const aStarted = await createOrder(t, a.liveKey, orderBody())
    await createOrder(t, a.liveKey, orderBody())
    await createOrder(t, a.testKey, orderBody())
    const bPartner = await createOrder(t, b.liveKey, orderBody())
    const start = await operator.client.call(
      'POST',
      `/operator/production-orders/${(await productionOrderOf(aStarted.id)).id}/status`,
      { status: 'in_progress' },
    )
    assert.equal(start.statusCode, 200, start.body)
    const partner = await operator.client.call(
      'POST',
      `/operator/production-orders/${(await productionOrderOf(bPartner.id)).id}/partner`,
      { produced_by_partner: true },
    )
    assert.equal(partner.statusCode, 200, partner.body)

    const none = { completed: 0, failed: 0, cancelled: 0, held: 0 }
    assert.deepEqual(plain(await counts(`organization_id=${a.orgId}`)), {
      pending: 2,
      in_progress: 1,
      ...none,
    })
    assert.deepEqual(plain(await counts(`organization_id=${b.orgId}`)), {
      pending: 1,
      in_progress: 0,
      ...none,
    })
    assert.deepEqual(plain(await counts(`organization_id=${b.orgId}&partner=false`)), {
      pending: 0,
      in_progress: 0,
      ...none,
    })
    assert.deepEqual(plain(await counts(`organization_id=${a.orgId}&older_than_minutes=60`)), {
      pending: 1,
      in_progress: 0,
      ...none,
    })
    // The status shown does not change the counts; a second page has none.
    assert.deepEqual(
      plain(await counts(`organization_id=${a.orgId}&status=in_progress`)),
      plain(await counts(`organization_id=${a.orgId}`)),
    )
    const first = await operator.client.call('GET', `/operator/production?organization_id=${a.orgId}&limit=1`)
    const next = first.json().next_cursor
    assert.ok(next)
    const second = await operator.client.call(
      'GET',
      `/operator/production?organization_id=${a.orgId}&limit=1&cursor=${next}`,
    )
    assert.equal(first.json().data[0].order.id, aOld.id)
    assert.equal(second.json().counts, null)
    assert.notEqual(second.json().data[0].order.id, aOld.id)
  })

  test('counting stops one past the cap, so a crowded status costs a bounded walk', async () => {
    const org = await t.tenant()
    for (let n = 0; n < 4; n++) await createOrder(t, org.liveKey, orderBody())
    const capped = await countBoard(t.db, { organizationId: org.orgId }, ['pending', 'failed'], 2)
    assert.deepEqual(capped, { pending: 3, failed: 0 })
  })
})
