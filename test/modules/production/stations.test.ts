import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

/** Stations (docs/production.md): named places on the floor, what a scan there does, and where it is recorded. */
describe('stations', () => {
  const t = useTestApp({
    clock: manualClock(new Date('2026-12-04T10:00:00.000Z')),
    logger: { level: 'error' },
  })
  let key: string
  let owner: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let press: { id: string; name: string }
  const mug = { sku: 'MUG', name: 'Mug', quantity: 1 }

  async function order(items: Record<string, unknown>[] = [mug, { ...mug, sku: 'CAP', name: 'Cap' }]) {
    const { id } = await createOrder(t, key, orderBody({ items }))
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
    const po = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', id)
      .executeTakeFirstOrThrow()
    const jobs = await t.db
      .selectFrom('production_jobs as j')
      .innerJoin('order_items as i', 'i.id', 'j.order_item_id')
      .select('j.id')
      .where('j.production_order_id', '=', po.id)
      .orderBy('i.position')
      .execute()
    return { id, po: po.id, jobs: jobs.map((j) => j.id) }
  }
  const scan = (code: string, station = press.id) =>
    operator.client.call('POST', `/operator/stations/${station}/scan`, { code })
  const counts = async () => ({
    events: Number(
      (
        await t.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    audit: Number(
      (
        await t.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  })

  before(async () => {
    const tenant = await t.tenant('Station Prints')
    key = tenant.liveKey
    owner = await memberOf(t, tenant.orgId, 'owner')
    operator = await operatorOf(t)
    const res = await operator.client.call('POST', '/operator/stations', { name: 'Press 2' })
    assert.equal(res.statusCode, 201, res.body)
    press = res.json().data.station
  })

  test('stations are named once (any case), renamed and removed', async () => {
    assertError(
      await operator.client.call('POST', '/operator/stations', { name: 'press 2' }),
      409,
      'production_conflict',
    )
    const nul = await operator.client.call('POST', '/operator/stations', { name: 'Pack\u0000ing' })
    assertError(nul, 422, 'validation_failed')
    const packing = (await operator.client.call('POST', '/operator/stations', { name: 'Packing' })).json()
      .data.station
    const renamed = await operator.client.call('PATCH', `/operator/stations/${packing.id}`, {
      name: 'Packing table',
    })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.equal(renamed.json().data.station.name, 'Packing table')
    assertError(
      await operator.client.call('PATCH', `/operator/stations/${packing.id}`, { name: 'PRESS 2' }),
      409,
      'production_conflict',
    )
    const list = await operator.client.call('GET', '/operator/stations')
    assert.deepEqual(
      list.json().data.map((s: { name: string }) => s.name),
      ['Packing table', 'Press 2'],
    )
    assert.equal((await operator.client.call('DELETE', `/operator/stations/${packing.id}`)).statusCode, 200)
    assertError(await operator.client.call('GET', `/operator/stations/${packing.id}`), 404, 'not_found')
    assertError(await scan('po:0193a000-0000-7000-8000-000000000001', packing.id), 404, 'not_found')
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('subject', '=', packing.id)
      .orderBy('id')
      .execute()
    assert.deepEqual(
      audit.map((a) => a.action),
      ['production.station_created', 'production.station_renamed', 'production.station_archived'],
    )
  })

  test('a sheet’s code opens its production order or batch and changes nothing; a line’s completes its item', async () => {
    const o = await order()
    const before = await counts()
    for (const code of [`po:${o.po}`, ` PO:${o.po.toUpperCase()} `, o.po]) {
      const opened = await scan(code)
      assert.equal(opened.statusCode, 200, opened.body)
      assert.equal(opened.json().data.kind, 'production_order')
      assert.equal(opened.json().data.production_order.production_order.id, o.po)
    }
    const batch = (
      await operator.client.call('POST', '/operator/batches', {
        name: 'Scan run',
        production_order_ids: [o.po],
      })
    ).json().data.batch
    const atBatch = await scan(`batch:${batch.id}`)
    assert.equal(atBatch.statusCode, 200, atBatch.body)
    assert.deepEqual([atBatch.json().data.kind, atBatch.json().data.batch.batch.id], ['batch', batch.id])
    assert.deepEqual(await counts(), { ...before, audit: before.audit + 1 })

    const done = await scan(`job:${o.jobs[0]}`)
    assert.equal(done.statusCode, 200, done.body)
    const answer = done.json().data
    assert.equal(answer.kind, 'job')
    assert.equal(answer.production_job.status, 'completed')
    assert.deepEqual(
      answer.events.map((e: { type: string }) => e.type),
      ['order_item.completed'],
    )
    assert.equal(answer.production_order.order.items[0].production_job.status, 'completed')
    assertError(await scan(`job:${o.jobs[0]}`), 409, 'production_conflict')
  })

  test('codes from elsewhere are 422 on code, codes naming nothing 404; neither changes anything', async () => {
    const before = await counts()
    for (const code of [
      'https://shop.example/p/1',
      'po:not-an-id',
      'ticket:0193a000-0000-7000-8000-000000000001',
      'po:\u0000',
    ]) {
      const res = await scan(code)
      assertError(res, 422, 'validation_failed')
      assert.equal(res.json().error.field, 'code')
    }
    for (const kind of ['po', 'batch', 'job']) {
      assertError(await scan(`${kind}:0193a000-0000-7000-8000-000000000001`), 404, 'not_found')
    }
    assertError(
      await scan('po:0193a000-0000-7000-8000-000000000001', '0193a000-0000-7000-8000-000000000002'),
      404,
      'not_found',
    )
    assert.deepEqual(await counts(), before)
  })

  test('what is done at a station names it and the operator, in the audit log and on the order’s history', async () => {
    const o = await order()
    const started = await operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
      status: 'in_progress',
      station_id: press.id,
    })
    assert.equal(started.statusCode, 200, started.body)
    assert.equal((await scan(`job:${o.jobs[1]}`)).statusCode, 200)
    assertError(
      await operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
        status: 'completed',
        station_id: '0193a000-0000-7000-8000-000000000003',
      }),
      404,
      'not_found',
    )
    const history = await owner.client.call('GET', `/orders/${o.id}/history`)
    assert.equal(history.statusCode, 200, history.body)
    const summaries = history.json().data.map((e: { summary: string }) => e.summary)
    assert.deepEqual(summaries, [
      `The operator ${operator.email} set the production status of order ${orderName(history)} from pending to in production at the station ‘Press 2’`,
      `The operator ${operator.email} completed the CAP job of order ${orderName(history)} at the station ‘Press 2’`,
    ])
    const consoleHistory = await operator.client.call('GET', `/operator/orders/${o.id}/history`)
    assert.deepEqual(
      consoleHistory.json().data.map((e: { details: { station?: string } }) => e.details.station),
      ['Press 2', 'Press 2'],
    )

    // Failing at a station says why: the reason is in the entry and its sentence; a NUL in it is refused.
    const nul = await operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
      status: 'failed',
      reason: 'Ink \u0000 smear',
    })
    assertError(nul, 422, 'validation_failed')
    const failed = await operator.client.call('POST', `/operator/production-orders/${o.po}/status`, {
      status: 'failed',
      reason: 'Ink smear on the print',
      station_id: press.id,
    })
    assert.equal(failed.statusCode, 200, failed.body)
    const last = (await owner.client.call('GET', `/orders/${o.id}/history`)).json().data.at(-1)
    assert.equal(last.details.reason, 'Ink smear on the print')
    assert.match(
      last.summary,
      /from in production to failed \(Ink smear on the print\) at the station ‘Press 2’$/,
    )

    const b = await order([mug])
    const batch = (
      await operator.client.call('POST', '/operator/batches', {
        name: 'Press run',
        production_order_ids: [b.po],
      })
    ).json().data.batch
    const atPress = await operator.client.call('POST', `/operator/batches/${batch.id}/start`, {
      station_id: press.id,
    })
    assert.equal(atPress.statusCode, 200, atPress.body)
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('subject', 'in', [batch.id, b.po])
      .where('action', 'in', ['production.batch_started', 'production.status_set'])
      .orderBy('id')
      .execute()
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor, e.details.station, e.details.station_id]),
      [
        ['production.status_set', operator.email, 'Press 2', press.id],
        ['production.batch_started', operator.email, 'Press 2', press.id],
      ],
    )
  })
})

/** "EXT-…" as the history's sentences name the order. */
function orderName(history: { json: () => { data: { details: { external_order_id: string } }[] } }) {
  return history.json().data[0]!.details.external_order_id
}
