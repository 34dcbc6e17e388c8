import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

/** The board and batches: each entry names its open batch; the board filters by batch. */
describe('batches on the board', () => {
  const t = useTestApp({ clock: manualClock(new Date('2026-12-04T10:00:00.000Z')) })
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let orgId: string
  const pos: string[] = []

  before(async () => {
    const tenant = await t.tenant('Board Batches')
    orgId = tenant.orgId
    operator = await operatorOf(t)
    for (let i = 0; i < 3; i++) {
      const { id } = await createOrder(
        t,
        tenant.liveKey,
        orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 1 }] }),
      )
      const po = await t.db
        .selectFrom('production_orders')
        .select('id')
        .where('order_id', '=', id)
        .executeTakeFirstOrThrow()
      pos.push(po.id)
    }
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
  })

  const board = async (query: string) => {
    const res = await operator.client.call('GET', `/operator/production?organization_id=${orgId}&${query}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as {
      data: { production_order: { id: string }; batch: { id: string; name: string; status: string } | null }[]
      counts: Record<string, { count: number }> | null
    }
  }

  test('entries carry their open batch; batch=none, any and an id filter, counts included', async () => {
    const made = await operator.client.call('POST', '/operator/batches', {
      name: 'Mugs 1',
      production_order_ids: [pos[0], pos[1]],
    })
    assert.equal(made.statusCode, 201, made.body)
    const batch = made.json().data.batch
    const all = await board('')
    const byId = new Map(all.data.map((e) => [e.production_order.id, e.batch]))
    assert.deepEqual(byId.get(pos[0]!), { id: batch.id, name: 'Mugs 1', status: 'open' })
    assert.equal(byId.get(pos[2]!), null)
    const none = await board('batch=none')
    assert.deepEqual(
      none.data.map((e) => e.production_order.id),
      [pos[2]],
    )
    assert.equal(none.counts?.pending?.count, 1)
    const any = await board('batch=any')
    assert.deepEqual(any.data.map((e) => e.production_order.id).sort(), [pos[0], pos[1]].sort())
    const one = await board(`batch=${batch.id}`)
    assert.equal(one.data.length, 2)
    assert.deepEqual(
      [one.counts?.pending?.count, one.counts?.in_progress?.count, any.counts?.pending?.count],
      [2, 0, 2],
    )
    // Started, the batch's orders are in progress; the filter still finds them there.
    assert.equal(
      (await operator.client.call('POST', `/operator/batches/${batch.id}/start`, {})).statusCode,
      200,
    )
    const started = await board(`status=in_progress&batch=${batch.id}`)
    assert.deepEqual(
      started.data.map((e) => e.batch?.status),
      ['in_progress', 'in_progress'],
    )
    assertError(
      await operator.client.call('GET', '/operator/production?batch=some'),
      422,
      'validation_failed',
    )
  })
})
