import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

/** Batches (docs/production.md): who may join, and what starting, completing and failing one does to its orders. */
describe('batches', () => {
  const clock = manualClock(new Date('2026-12-04T10:00:00.000Z'))
  const t = useTestApp({ clock })
  let key: string
  let orgId: string
  let owner: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  const fold = async () => {
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
  }
  const poster = (quantity: number, text: string) => ({
    sku: 'POSTER-A2',
    name: 'Poster A2',
    quantity,
    personalization: { text },
  })
  const mug = { sku: 'MUG', name: 'Mug', quantity: 2 }

  /** A live order with these items: its id, production order id and jobs by SKU. */
  async function order(items: Record<string, unknown>[], orderedAt = '2026-12-04T09:00:00.000Z') {
    const { id } = await createOrder(t, key, orderBody({ items, ordered_at: orderedAt }))
    await fold()
    const po = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', id)
      .executeTakeFirstOrThrow()
    const jobs = await t.db
      .selectFrom('production_jobs as j')
      .innerJoin('order_items as i', 'i.id', 'j.order_item_id')
      .select(['j.id', 'i.sku'])
      .where('j.production_order_id', '=', po.id)
      .orderBy('i.position')
      .execute()
    return { id, po: po.id, jobs: jobs.map((j) => j.id) }
  }
  const call = (method: string, path: string, body?: unknown) =>
    operator.client.call(method, `/operator/batches${path}`, body)
  async function make(name: string, ids: string[]) {
    const res = await call('POST', '', { name, production_order_ids: ids })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as BatchDetail
  }
  const events = async (orderIds: string[]) =>
    (
      await t.db
        .selectFrom('events')
        .select(['type', 'order_id'])
        .where('order_id', 'in', orderIds)
        .where('type', '!=', 'order.received')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => `${e.type} ${orderIds.indexOf(e.order_id!)}`)

  const counts = async () =>
    Object.fromEntries(
      await Promise.all(
        (['batches', 'batch_orders', 'audit_log', 'events'] as const).map(async (table) => [
          table,
          Number(
            (
              await t.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ]),
      ),
    )

  before(async () => {
    const tenant = await t.tenant('Batch Prints')
    key = tenant.liveKey
    orgId = tenant.orgId
    owner = await memberOf(t, tenant.orgId, 'owner')
    operator = await operatorOf(t)
  })

  test('a batch groups its orders’ items by product with quantities summed, soonest due first', async () => {
    const late = await order([poster(2, 'Anna'), mug], '2026-11-30T09:00:00.000Z')
    const soon = await order([poster(1, 'Ben')])
    const batch = await make('A2 posters, Friday', [soon.po, late.po])
    assert.equal(batch.batch.name, 'A2 posters, Friday')
    assert.equal(batch.batch.status, 'open')
    assert.equal(batch.batch.orders, 2)
    assert.equal(batch.batch.created_by, operator.email)
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
    const res = await operator.client.call('POST', `/operator/production-orders/${started.po}/status`, {
      status: 'in_progress',
    })
    assert.equal(res.statusCode, 200, res.body)
    const rule = await owner.client.call('POST', '/automation/rules', {
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
      select: { sku: 'CARD-X', due_by: '2026-12-07', organization_id: orgId },
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
        select: { sku: 'CARD-X', due_by: '2026-12-07', organization_id: orgId },
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

  test('start, complete one item, complete: one event per order per move, none on a retry, none for partner items', async () => {
    const a = await order([poster(1, 'A'), mug])
    const b = await order([mug])
    const partner = await order([mug])
    const setPartner = await operator.client.call(
      'POST',
      `/operator/production-orders/${partner.po}/partner`,
      {
        produced_by_partner: true,
      },
    )
    assert.equal(setPartner.statusCode, 200, setPartner.body)
    const batch = await make('Mixed', [a.po, b.po, partner.po])
    const ids = [a.id, b.id, partner.id]

    const started = await call('POST', `/${batch.batch.id}/start`, {})
    assert.equal(started.statusCode, 200, started.body)
    const answer = started.json().data as BatchDetail & { results: Result[]; events: { type: string }[] }
    assert.equal(answer.batch.status, 'in_progress')
    assert.deepEqual(
      answer.results.map((r) => r.outcome),
      ['changed', 'changed', 'changed'],
    )
    assert.equal(answer.events.length, 3)
    const retried = (await call('POST', `/${batch.batch.id}/start`, {})).json().data
    assert.deepEqual(
      retried.results.map((r: Result) => r.outcome),
      ['unchanged', 'unchanged', 'unchanged'],
    )
    assert.deepEqual(retried.events, [])

    // Partial: one item of one order by itself.
    const item = await operator.client.call('POST', `/operator/production-jobs/${a.jobs[0]}/complete`, {})
    assert.equal(item.statusCode, 200, item.body)
    const partnerItem = await operator.client.call(
      'POST',
      `/operator/production-jobs/${partner.jobs[0]}/complete`,
      {},
    )
    assert.equal(partnerItem.statusCode, 200, partnerItem.body)

    const completed = await call('POST', `/${batch.batch.id}/complete`, {})
    assert.equal(completed.statusCode, 200, completed.body)
    assert.equal(completed.json().data.batch.status, 'completed')
    assert.equal((await call('POST', `/${batch.batch.id}/complete`, {})).json().data.events.length, 0)
    assertError(await call('POST', `/${batch.batch.id}/start`, {}), 409, 'production_conflict')
    assert.deepEqual(
      (await events(ids)).sort(),
      [
        'order.production_started 0',
        'order.production_started 1',
        'order.production_started 2',
        'order_item.completed 0',
        'order.production_completed 0',
        'order.production_completed 1',
        'order.production_completed 2',
      ].sort(),
    )
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', '=', 'production.status_set')
      .where('subject', '=', b.po)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    assert.deepEqual(
      audit.map((e) => [e.details.from, e.details.to, e.details.batch_name]),
      [
        ['pending', 'in_progress', 'Mixed'],
        ['in_progress', 'completed', 'Mixed'],
      ],
    )
    // A finished batch frees its orders for another one.
    const reopened = await operator.client.call('POST', `/operator/production-orders/${b.po}/status`, {
      status: 'pending',
    })
    assert.equal(reopened.statusCode, 200, reopened.body)
    assert.equal((await call('POST', '', { name: 'Redo', production_order_ids: [b.po] })).statusCode, 201)
  })

  test('failing a batch fails what is unfinished, with the reason in the audit log', async () => {
    const a = await order([mug])
    const b = await order([mug])
    const batch = await make('Sublimation 1', [a.po, b.po])
    assertError(await call('POST', `/${batch.batch.id}/fail`, {}), 409, 'production_conflict')
    await call('POST', `/${batch.batch.id}/start`, {})
    const done = await operator.client.call('POST', `/operator/production-orders/${a.po}/status`, {
      status: 'completed',
    })
    assert.equal(done.statusCode, 200, done.body)
    const failed = await call('POST', `/${batch.batch.id}/fail`, { reason: 'Press jammed' })
    assert.equal(failed.statusCode, 200, failed.body)
    assert.deepEqual(
      failed.json().data.results.map((r: Result) => [r.production_order_id, r.outcome, r.status, r.reason]),
      [a.po, b.po]
        .sort()
        .map((po) =>
          po === a.po
            ? [po, 'skipped', 'completed', 'completed: left as it is']
            : [po, 'changed', 'failed', null],
        ),
    )
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['details'])
      .where('action', '=', 'production.batch_failed')
      .where('subject', '=', batch.batch.id)
      .executeTakeFirstOrThrow()
    assert.deepEqual(audit.details, { name: 'Sublimation 1', orders: 1, reason: 'Press jammed' })
    assert.deepEqual(await events([a.id, b.id]), [
      'order.production_started 0',
      'order.production_started 1',
      'order.production_completed 0',
      'order.production_failed 1',
    ])
  })

  test('batch actions at once, and single starts beside them, record each order’s event once', async () => {
    const orders = await Promise.all(Array.from({ length: 6 }, () => order([mug])))
    const batch = await make(
      'Rush run',
      orders.map((o) => o.po),
    )
    const answers = await Promise.all([
      call('POST', `/${batch.batch.id}/start`, {}),
      call('POST', `/${batch.batch.id}/start`, {}),
      ...orders.slice(0, 3).map((o) =>
        operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
          status: 'in_progress',
        }),
      ),
    ])
    for (const res of answers) assert.equal(res.statusCode, 200, res.body)
    const started = await events(orders.map((o) => o.id))
    assert.deepEqual(started.sort(), orders.map((_, i) => `order.production_started ${i}`).sort())
    // Two batches reaching for the same order: one gets it.
    const free = await order([mug])
    const both = await Promise.all([
      call('POST', '', { name: 'Left', production_order_ids: [free.po] }),
      call('POST', '', { name: 'Right', production_order_ids: [free.po] }),
    ])
    assert.deepEqual(both.map((r) => r.statusCode).sort(), [201, 409])
  })
})

interface Result {
  production_order_id: string
  outcome: string
  status: string
  reason: string | null
}

interface BatchDetail {
  batch: { id: string; name: string; status: string; orders: number; created_by: string }
  orders: { production_order: { id: string }; due: { on: string } | null; items: number }[]
  products: {
    sku: string | null
    quantity: number
    lines: { production_order_id: string; quantity: number; personalization: Record<string, unknown> }[]
  }[]
}
