import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { orderBody } from '../../helpers/app.ts'
import { type BatchDetail, mug, poster, useBatches } from '../../helpers/batches.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

/** Batches (docs/production.md): who may join, what a batch shows, and a selection of orders. */
describe('batches', () => {
  const { t, who, fold, order, call, make, counts } = useBatches('Batch Prints')

  test('a batch groups its orders’ items by product with quantities summed, soonest due first', async () => {
    const late = await order([poster(2, 'Anna'), mug], '2026-11-30T09:00:00.000Z')
    const soon = await order([poster(1, 'Ben')])
    const batch = await make('A2 posters, Friday', [soon.po, late.po])
    assert.equal(batch.batch.name, 'A2 posters, Friday')
    assert.equal(batch.batch.status, 'open')
    assert.equal(batch.batch.orders, 2)
    assert.equal(batch.batch.created_by, who.operator.email)
    assert.deepEqual(
      batch.orders.map((o) => [o.production_order.id, o.due?.on, o.items]),
      [
        [late.po, '2026-12-03', 2],
        [soon.po, '2026-12-09', 1],
      ],
    )
    assert.deepEqual(
      batch.products.map((p) => [
        p.sku,
        p.quantity,
        p.lines.map((l) => [l.production_order_id, l.quantity, l.personalization]),
      ]),
      [
        ['MUG', 2, [[late.po, 2, {}]]],
        [
          'POSTER-A2',
          3,
          [
            [late.po, 2, { text: 'Anna' }],
            [soon.po, 1, { text: 'Ben' }],
          ],
        ],
      ],
    )
    const listed = await call('GET', '?status=open')
    assert.equal(listed.statusCode, 200, listed.body)
    assert.ok(listed.json().data.some((b: { id: string }) => b.id === batch.batch.id))
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details', 'by_operator'])
      .where('subject', '=', batch.batch.id)
      .execute()
    assert.deepEqual(audit, [
      {
        action: 'production.batch_created',
        details: { name: 'A2 posters, Friday', orders: 2 },
        by_operator: true,
      },
    ])
  })

  test('only pending orders outside a batch join, none held; a refusal changes nothing', async () => {
    const free = await order([mug])
    const taken = await order([mug])
    const started = await order([mug])
    const first = await make('First', [taken.po])
    const res = await who.operator.client.call('POST', `/operator/production-orders/${started.po}/status`, {
      status: 'in_progress',
    })
    assert.equal(res.statusCode, 200, res.body)
    const rule = await who.owner.client.call('POST', '/automation/rules', {
      name: 'Hold big mugs',
      conditions: [{ field: 'item.quantity', operator: 'gt', value: 90 }],
      actions: [{ type: 'hold' }],
    })
    assert.equal(rule.statusCode, 201, rule.body)
    const held = await order([{ ...mug, quantity: 99 }])

    const before = await counts()
    for (const [po, message] of [
      [taken.po, /already in the batch ‘?'?First/],
      [started.po, /is in progress: only pending orders join a batch/],
      [held.po, /is held for review/],
    ] as const) {
      const refused = await call('POST', '', { name: 'Second', production_order_ids: [free.po, po] })
      assertError(refused, 409, 'production_conflict')
      assert.match(refused.json().error.message, message)
    }
    assertError(
      await call('POST', '', {
        name: 'Second',
        production_order_ids: ['0193a000-0000-7000-8000-00000000dead'],
      }),
      404,
      'not_found',
    )
    assertError(await call('POST', '', { name: 'Second' }), 422, 'validation_failed')
    assertError(
      await call('POST', '', { name: 'Second', production_order_ids: [free.po], select: { sku: 'MUG' } }),
      422,
      'validation_failed',
    )
    const nul = await call('POST', '', { name: 'Sec\u0000ond', production_order_ids: [free.po] })
    assertError(nul, 422, 'validation_failed')
    assert.equal(nul.json().error.field, 'name')
    assert.deepEqual(await counts(), before)

    // Until it starts, orders join and leave; after, neither.
    const added = await call('POST', `/${first.batch.id}/orders`, { production_order_ids: [free.po] })
    assert.equal(added.statusCode, 200, added.body)
    assert.equal(added.json().data.batch.orders, 2)
    const removed = await call('DELETE', `/${first.batch.id}/orders/${free.po}`)
    assert.equal(removed.statusCode, 200, removed.body)
    assert.deepEqual(
      removed.json().data.orders.map((o: { production_order: { id: string } }) => o.production_order.id),
      [taken.po],
    )
    assertError(await call('DELETE', `/${first.batch.id}/orders/${free.po}`), 404, 'not_found')
    assert.equal((await call('POST', `/${first.batch.id}/start`, {})).statusCode, 200)
    assertError(
      await call('POST', `/${first.batch.id}/orders`, { production_order_ids: [free.po] }),
      409,
      'production_conflict',
    )
    assertError(await call('DELETE', `/${first.batch.id}/orders/${taken.po}`), 409, 'production_conflict')
    assertError(await call('DELETE', `/${first.batch.id}`), 409, 'production_conflict')
  })

  test('a selection takes every joinable order of a SKU due by a day; deleting an open batch frees them', async () => {
    const other = await t.tenant('Other Prints')
    const wanted = await order([{ sku: 'CARD-X', name: 'Card', quantity: 1 }], '2026-12-01T09:00:00.000Z')
    await order([{ sku: 'CARD-X', name: 'Card', quantity: 1 }], '2026-12-04T09:00:00.000Z')
    await createOrder(t, other.liveKey, orderBody({ items: [{ sku: 'CARD-X', name: 'Card', quantity: 1 }] }))
    await fold()
    const res = await call('POST', '', {
      name: 'Cards due by Monday',
      select: { sku: 'CARD-X', due_by: '2026-12-07', organization_id: who.orgId },
    })
    assert.equal(res.statusCode, 201, res.body)
    const batch = res.json().data as BatchDetail
    assert.deepEqual(
      batch.orders.map((o) => o.production_order.id),
      [wanted.po],
    )
    assertError(
      await call('POST', '', {
        name: 'Again',
        select: { sku: 'CARD-X', due_by: '2026-12-07', organization_id: who.orgId },
      }),
      422,
      'validation_failed',
    )
    const deleted = await call('DELETE', `/${batch.batch.id}`)
    assert.equal(deleted.statusCode, 200, deleted.body)
    assert.equal(deleted.json().data.batch.orders, 1)
    assertError(await call('GET', `/${batch.batch.id}`), 404, 'not_found')
    const again = await call('POST', '', { name: 'Again', production_order_ids: [wanted.po] })
    assert.equal(again.statusCode, 201, again.body)
  })
})
