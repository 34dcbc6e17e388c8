import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, DIALECT, orderBody, type TestApp } from '../../helpers/app.ts'
import { operatorOf } from '../../helpers/dashboard.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import { waitUntil } from '../../helpers/wait.ts'

/** What a receiver gets when a batch moves: each order's reference events, once, as if it had moved alone. */
describe('batches as receivers see them', () => {
  let t: TestApp
  let receiver: Receiver
  let operator: Awaited<ReturnType<typeof operatorOf>>
  /** An operator of a second instance on the same PostgreSQL (the embedded database has one: the same app). */
  let elsewhere: Awaited<ReturnType<typeof operatorOf>>
  let second: TestApp | undefined
  let key: string

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    receiver = await startReceiver()
    key = (await t.tenant('Receiving Prints')).liveKey
    const endpoint = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: receiver.url('/batches') })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    await t.startDispatcher({ ca: receiver.ca, timeoutMs: 10_000 })
    operator = await operatorOf(t)
    if (DIALECT === 'postgres') {
      second = await createTestApp({ testDb: t.testDb, db: await t.testDb.openAnother() })
    }
    elsewhere = await operatorOf(second ?? t)
  })
  after(async () => {
    await second?.close()
    await t.close()
    await receiver.close()
  })

  /** What the receiver got, as `type n` (n: the order's index), in the order received. */
  const received = (orderIds: string[]) =>
    receiver.received
      .map((r) => JSON.parse(r.body.toString('utf8')) as { type: string; data: { order_id: string } })
      .map((e) => `${e.type} ${orderIds.indexOf(e.data.order_id)}`)

  test('start (on two instances at once, beside a single start, then again), an item each, complete: the reference events, none twice, none for the partner’s item', async () => {
    const orders = []
    for (let i = 0; i < 3; i++) {
      const res = await t.api(
        key,
        'POST',
        '/v1/orders',
        orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 1 }] }),
      )
      assert.equal(res.statusCode, 201, res.body)
      const id = res.json().data.order.id as string
      const p = await t.db
        .selectFrom('production_orders as p')
        .innerJoin('production_jobs as j', 'j.production_order_id', 'p.id')
        .select(['p.id', 'j.id as job'])
        .where('p.order_id', '=', id)
        .executeTakeFirstOrThrow()
      orders.push({ id, po: p.id, job: p.job })
    }
    const ids = orders.map((o) => o.id)
    const partner = await operator.client.call(
      'POST',
      `/operator/production-orders/${orders[2]!.po}/partner`,
      {
        produced_by_partner: true,
      },
    )
    assert.equal(partner.statusCode, 200, partner.body)
    const made = await operator.client.call('POST', '/operator/batches', {
      name: 'Mugs',
      production_order_ids: orders.map((o) => o.po),
    })
    assert.equal(made.statusCode, 201, made.body)
    const batch = made.json().data.batch.id
    const act = (action: string, who = operator) =>
      who.client.call('POST', `/operator/batches/${batch}/${action}`, {})
    // Two operators on two instances press Start at once, a third starts one order alone.
    const together = await Promise.all([
      act('start'),
      act('start', elsewhere),
      elsewhere.client.call('POST', `/operator/production-orders/${orders[1]!.po}/status`, {
        status: 'in_progress',
      }),
    ])
    for (const res of together) assert.equal(res.statusCode, 200, res.body)
    assert.equal((await act('start')).json().data.events.length, 0)
    for (const o of orders) {
      const done = await operator.client.call('POST', `/operator/production-jobs/${o.job}/complete`, {})
      assert.equal(done.statusCode, 200, done.body)
    }
    assert.equal((await act('complete')).statusCode, 200)
    assert.equal((await act('complete')).json().data.events.length, 0)

    const want = [0, 1, 2].flatMap((n) => [
      `order.received ${n}`,
      `order.production_started ${n}`,
      ...(n === 2 ? [] : [`order_item.completed ${n}`]),
      `order.production_completed ${n}`,
    ])
    await waitUntil(async () => receiver.received.length >= want.length, 'every delivery received', {
      timeoutMs: 20_000,
      details: () => received(ids).join(', '),
    })
    assert.deepEqual(received(ids).sort(), want.sort())
  })
})
