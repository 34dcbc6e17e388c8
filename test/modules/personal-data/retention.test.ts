import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { createPersonalDataService } from '../../../src/modules/personal-data/index.ts'
import { createTestApp, DIALECT, manualClock, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { customer, customerOrder, dumpDatabase, occurrences, textsOf } from '../../helpers/personal-data.ts'
import { settleDelivery } from '../../helpers/webhook-endpoints.ts'

const DAY = 86_400_000

/**
 * Each organization's retention, set by owners and applied by the
 * background prune in batches: request bodies, receivers' answers, and the
 * personal data of finished orders; idempotent, on two instances at once.
 */
describe('retention', () => {
  const clock = manualClock(new Date('2026-12-01T09:00:00.000Z'))
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  let owner: Awaited<ReturnType<typeof memberOf>>

  before(async () => {
    t = await createTestApp({ clock, resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    tenant = await t.tenant('Keeping Prints')
    owner = await memberOf(t, tenant.orgId, 'owner')
    const endpoint = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://webhook.test/erp',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
  })
  after(() => t.close())

  /** A live order of the customer whose deliveries were answered with their name; its id. */
  async function answeredOrder(c: ReturnType<typeof customer>, key = tenant.liveKey): Promise<string> {
    const res = await t.api(key, 'POST', '/v1/orders', customerOrder(c))
    assert.equal(res.statusCode, 201, res.body)
    const id = res.json().data.order.id as string
    const queued = await t.db
      .selectFrom('webhook_queue')
      .innerJoin('events', 'events.id', 'webhook_queue.event_id')
      .select('webhook_queue.delivery_id')
      .where('events.order_id', '=', id)
      .execute()
    for (const q of queued)
      await settleDelivery(t, q.delivery_id, 'succeeded', clock.now(), `thanks, ${c.name}`)
    return id
  }

  async function complete(orderId: string) {
    const view = await t.admin('GET', `/admin/v1/orders/${orderId}`)
    const id = view.json().data.order.production_order.id
    for (const status of ['in_progress', 'completed']) {
      const res = await t.admin('POST', `/admin/v1/production-orders/${id}/status`, { status })
      assert.equal(res.statusCode, 200, res.body)
    }
  }

  test('owners see and set it; developers cannot; out of range is refused and changes nothing', async () => {
    const shown = await owner.client.call('GET', '/retention')
    assert.equal(shown.statusCode, 200, shown.body)
    assert.deepEqual(shown.json().data, {
      request_body_retention_days: 30,
      webhook_answer_retention_days: 90,
      personal_data_retention_days: null,
    })
    const developer = await memberOf(t, tenant.orgId, 'developer')
    assert.equal((await developer.client.call('GET', '/retention')).statusCode, 403)
    const next = {
      request_body_retention_days: 7,
      webhook_answer_retention_days: 30,
      personal_data_retention_days: 10,
    }
    assert.equal((await developer.client.call('PUT', '/retention', next)).statusCode, 403)
    for (const wrong of [
      { ...next, request_body_retention_days: 31 },
      { ...next, webhook_answer_retention_days: -1 },
      { ...next, personal_data_retention_days: 0 },
      { ...next, personal_data_retention_days: 3651 },
      { request_body_retention_days: 7 },
    ]) {
      const refused = await owner.client.call('PUT', '/retention', wrong)
      assert.equal(refused.statusCode, 422, `${JSON.stringify(wrong)}: ${refused.body}`)
    }
    assert.deepEqual((await owner.client.call('GET', '/retention')).json().data, shown.json().data)
    const set = await owner.client.call('PUT', '/retention', next)
    assert.equal(set.statusCode, 200, set.body)
    assert.deepEqual(set.json().data, next)
    const audit = await owner.client.call('GET', '/audit-log?action=organization.retention_set')
    assert.match(
      audit.json().data[0].summary,
      /set how long data is kept: request bodies 30 days → 7 days, webhook answers 90 days → 30 days, personal data of finished orders never → 10 days/,
    )
  })

  test('the prune: bodies after 7 days, finished orders’ customers after 10, answers after 30; open orders keep theirs', async () => {
    const dora = customer('Dora')
    const emil = customer('Emil')
    const finished = await answeredOrder(dora)
    const testOrder = await t.api(tenant.testKey, 'POST', '/v1/orders', customerOrder(dora))
    assert.equal(testOrder.statusCode, 201)
    await complete(finished)
    const open = await answeredOrder(emil)
    await t.services.requests.recorder.flush()
    const prune = () => t.services.personalData.prune()

    clock.advance(8 * DAY)
    const first = await prune()
    assert.ok(first.request_bodies >= 3, `${first.request_bodies} bodies`)
    assert.equal(first.orders, 0)
    let dump = await dumpDatabase(t.db)
    assert.deepEqual(
      occurrences(dump, [dora.email, emil.email]).filter((l) => l.startsWith('api_requests:')),
      [],
    )
    assert.ok(occurrences(dump, [dora.email]).some((l) => l.startsWith('orders:')))

    clock.advance(3 * DAY)
    const second = await prune()
    assert.equal(second.orders, 2, 'the completed order and the test order')
    dump = await dumpDatabase(t.db)
    assert.deepEqual(occurrences(dump, textsOf(dora)), [])
    // The open order keeps its customer and (until 30 days) its answers.
    assert.ok(occurrences(dump, [emil.email]).some((l) => l.startsWith('orders:')))
    assert.ok(occurrences(dump, [emil.name]).some((l) => l.startsWith('webhook_deliveries:')))
    const row = await t.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', finished)
      .executeTakeFirstOrThrow()
    assert.equal(row.customer_name, 'erased')
    assert.ok(row.personalization_erased_at)

    clock.advance(20 * DAY)
    const third = await prune()
    assert.ok(third.webhook_answers >= 1)
    dump = await dumpDatabase(t.db)
    assert.deepEqual(
      occurrences(dump, [emil.name]).filter((l) => l.startsWith('webhook_')),
      [],
    )
    assert.ok(occurrences(dump, [emil.email]).some((l) => l.startsWith('orders:')))
    const open_ = await t.db
      .selectFrom('orders')
      .select('erased_at')
      .where('id', '=', open)
      .executeTakeFirstOrThrow()
    assert.equal(open_.erased_at, null)

    // Again: nothing left to do.
    assert.deepEqual(await prune(), { request_bodies: 0, webhook_answers: 0, orders: 0 })
  })

  test('two instances prune at once under new orders: the same result as one, nothing twice', async () => {
    const second =
      DIALECT === 'postgres'
        ? await createTestApp({
            clock,
            testDb: t.testDb,
            db: await t.testDb.openAnother(),
            resolver: loopbackResolver,
          })
        : t
    try {
      const people = Array.from({ length: 6 }, (_, i) => customer(`Finn${i}`))
      const ids: string[] = []
      for (const c of people) {
        ids.push(await answeredOrder(c))
        await complete(ids.at(-1)!)
      }
      await t.services.requests.recorder.flush()
      clock.advance(11 * DAY)
      const intake = Array.from({ length: 10 }, () =>
        t.api(tenant.liveKey, 'POST', '/v1/orders', customerOrder(customer('Gina'))),
      )
      const [a, b, ...created] = await Promise.all([
        t.services.personalData.prune(),
        second.services.personalData.prune(),
        ...intake,
      ])
      for (const res of created) assert.equal(res.statusCode, 201, res.body)
      assert.equal(a.orders + b.orders, 6, `${a.orders} + ${b.orders}`)
      const dump = await dumpDatabase(t.db)
      for (const c of people) assert.deepEqual(occurrences(dump, textsOf(c)), [], c.name)
      const erased = await t.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('id', 'in', ids)
        .where('customer_name', '=', 'erased')
        .executeTakeFirstOrThrow()
      assert.equal(Number(erased.n), 6)
    } finally {
      if (second !== t) await second.close()
    }
  })

  test('an erasure interrupted half-way (a batch fails) finishes when run again, with the result of one run', async () => {
    const hugo = customer('Hugo')
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await t.api(tenant.liveKey, 'POST', '/v1/orders', customerOrder(hugo))
      assert.equal(res.statusCode, 201, res.body)
      ids.push(res.json().data.order.id)
    }
    const service = createPersonalDataService({
      db: t.db,
      clock,
      orderViews: async (rows) => rows,
      flushRequestLog: () => t.services.requests.recorder.flush(),
      batch: 2,
    })
    // The third batch (the last order) fails as a killed process's transaction would: nothing of it stays.
    await sql`
      create function refuse_erasure() returns trigger language plpgsql as $$
      begin raise exception 'interrupted'; end $$`.execute(t.db)
    await sql`
      create trigger refuse_erasure before update on orders for each row
      when (new.id = ${sql.lit(ids[4]!)}::uuid and new.customer_name = 'erased')
      execute function refuse_erasure()`.execute(t.db)
    const actor = { accountId: null, label: 'operator token', address: null, operator: true }
    await assert.rejects(
      service.erase(tenant.orgId, { email: hugo.email }, { personalization: 'all' }, actor),
      /interrupted/,
    )
    const done = await t.db
      .selectFrom('orders')
      .select(['id', 'customer_name'])
      .where('id', 'in', ids)
      .execute()
    assert.equal(done.filter((o) => o.customer_name === 'erased').length, 4)
    await sql`drop trigger refuse_erasure on orders`.execute(t.db)
    await sql`drop function refuse_erasure()`.execute(t.db)
    const again = await service.erase(tenant.orgId, { email: hugo.email }, { personalization: 'all' }, actor)
    assert.equal(again.orders, 1)
    assert.deepEqual(occurrences(await dumpDatabase(t.db), textsOf(hugo)), [])
    const third = await service.erase(tenant.orgId, { orderIds: ids }, { personalization: 'all' }, actor)
    assert.equal(third.orders, 0)
  })
})
