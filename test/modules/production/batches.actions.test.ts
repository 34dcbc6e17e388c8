import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { type BatchDetail, mug, poster, type Result, useBatches } from '../../helpers/batches.ts'
import { assertError } from '../../helpers/errors.ts'

/** Starting, completing and failing a batch: each order's move and event once, whatever is retried at once. */
describe('batch actions', () => {
  const { t, who, order, call, make, events } = useBatches('Batch Action Prints')

  test('start, complete one item, complete: one event per order per move, none on a retry, none for partner items', async () => {
    const a = await order([poster(1, 'A'), mug])
    const b = await order([mug])
    const partner = await order([mug])
    const setPartner = await who.operator.client.call(
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
    const item = await who.operator.client.call('POST', `/operator/production-jobs/${a.jobs[0]}/complete`, {})
    assert.equal(item.statusCode, 200, item.body)
    const partnerItem = await who.operator.client.call(
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
    const reopened = await who.operator.client.call('POST', `/operator/production-orders/${b.po}/status`, {
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
    const done = await who.operator.client.call('POST', `/operator/production-orders/${a.po}/status`, {
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
        who.operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
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
