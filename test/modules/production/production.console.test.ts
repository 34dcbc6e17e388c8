import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder } from '../../helpers/order-files.ts'

describe('the production board and its actions, in the console (production.console.routes.ts)', () => {
  const clock = manualClock(new Date('2026-11-26T09:00:00.000Z'))
  const t = useTestApp({ clock, resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

  interface BoardEntry {
    production_order: { id: string; order_id: string; status: string; produced_by_partner: boolean }
    order: { id: string; external_order_id: string; status: string; source: string }
    organization: { id: string; name: string }
    created_at: string
    items: { id: string; sku: string | null; name: string; job: { id: string; status: string } | null }[]
  }
  interface ProducedEvent {
    id: string
    type: string
    data: Record<string, unknown>
  }

  async function board(
    client: DashboardClient,
    query: string,
  ): Promise<{ data: BoardEntry[]; next_cursor: string | null }> {
    const res = await client.call('GET', `/operator/production?${query}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }

  /** The order's events as stored in the outbox, oldest first. */
  async function storedEvents(orderId: string) {
    return t.db
      .selectFrom('events')
      .select(['id', 'type'])
      .where('order_id', '=', orderId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  }

  async function platformLog(client: DashboardClient) {
    const res = await client.call('GET', '/operator/audit-log?limit=100')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as {
      actor: string
      action: string
      subject: string
      organization_id: string | null
    }[]
  }

  let operator: Awaited<ReturnType<typeof operatorOf>>
  let orgId: string
  let liveKey: string
  before(async () => {
    operator = await operatorOf(t)
    orgId = (await t.createOrganization('Console Prints')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
  })

  test('the board: live orders of one status, oldest first, with organization, partner and age filters and keyset pages', async () => {
    const org = await t.tenant('Board Org')
    const first = await createOrder(t, org.liveKey, orderBody())
    clock.advance(60 * 60_000)
    const second = await createOrder(t, org.liveKey, orderBody())
    clock.advance(60_000)
    const third = await createOrder(t, org.liveKey, orderBody())
    await createOrder(t, org.testKey, orderBody())

    const all = await board(operator.client, `organization_id=${org.orgId}`)
    assert.deepEqual(
      all.data.map((e) => e.order.id),
      [first.id, second.id, third.id],
    )
    assert.equal(all.data[0]!.organization.name, 'Board Org')
    assert.equal(all.data[0]!.items.length, 2)
    assert.equal(all.data[0]!.items[0]!.job!.status, 'pending')

    const page1 = await board(operator.client, `organization_id=${org.orgId}&limit=2`)
    assert.deepEqual(
      page1.data.map((e) => e.order.id),
      [first.id, second.id],
    )
    const page2 = await board(
      operator.client,
      `organization_id=${org.orgId}&limit=2&cursor=${page1.next_cursor}`,
    )
    assert.deepEqual(
      page2.data.map((e) => e.order.id),
      [third.id],
    )
    assert.equal(page2.next_cursor, null)

    const old = await board(operator.client, `organization_id=${org.orgId}&older_than_minutes=30`)
    assert.deepEqual(
      old.data.map((e) => e.order.id),
      [first.id],
    )

    const partner = await operator.client.call(
      'POST',
      `/operator/production-orders/${all.data[1]!.production_order.id}/partner`,
      { produced_by_partner: true, expected_status: 'pending' },
    )
    assert.equal(partner.statusCode, 200, partner.body)
    assert.deepEqual(partner.json().data.events, [])
    const partnered = await board(operator.client, `organization_id=${org.orgId}&partner=true`)
    assert.deepEqual(
      partnered.data.map((e) => e.order.id),
      [second.id],
    )
    const own = await board(operator.client, `organization_id=${org.orgId}&partner=false`)
    assert.deepEqual(
      own.data.map((e) => e.order.id),
      [first.id, third.id],
    )
    assert.deepEqual(
      (await board(operator.client, `organization_id=${org.orgId}&status=in_progress`)).data,
      [],
    )
    assertError(
      await operator.client.call('GET', '/operator/production?cursor=nonsense'),
      422,
      'validation_failed',
    )
  })

  test('each action answers the events it recorded; pending to completed item by item', async () => {
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id

    const started = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'in_progress',
      expected_status: 'pending',
    })
    assert.equal(started.statusCode, 200, started.body)
    assert.equal(started.json().data.production_order.status, 'in_progress')
    const startedEvents: ProducedEvent[] = started.json().data.events
    assert.deepEqual(
      startedEvents.map((e) => [e.type, e.data.production_status]),
      [['order.production_started', 'in_progress']],
    )

    const items: ProducedEvent[] = []
    for (const item of entry!.items) {
      const done = await operator.client.call('POST', `/operator/production-jobs/${item.job!.id}/complete`, {
        expected_status: 'in_progress',
      })
      assert.equal(done.statusCode, 200, done.body)
      items.push(...done.json().data.events)
    }
    assert.deepEqual(
      items.map((e) => [e.type, e.data.order_item_id]),
      entry!.items.map((i) => ['order_item.completed', i.id]),
    )

    const completed = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'completed',
      expected_status: 'in_progress',
    })
    assert.equal(completed.statusCode, 200, completed.body)
    const completedEvents: ProducedEvent[] = completed.json().data.events
    assert.deepEqual(
      completedEvents.map((e) => [e.type, e.data.production_status]),
      [['order.production_completed', 'completed']],
    )

    // The answers' events are the order's stored events, in the order of recording, each
    // numbered after order.received (what webhook endpoints receive: production.test.ts).
    const answered = [...startedEvents, ...items, ...completedEvents]
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.id).slice(1),
      answered.map((e) => e.id),
    )
    assert.deepEqual(
      answered.map((e) => e.data.sequence),
      [2, 3, 4, 5],
    )
    const log = await platformLog(operator.client)
    assert.ok(log.some((e) => e.action === 'production.status_set' && e.actor === operator.email))
    assert.ok(log.some((e) => e.action === 'production.job_completed' && e.actor === operator.email))
  })

  test('a stale page gets 409 production_conflict naming the current status, and nothing is recorded', async () => {
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id
    const before = await storedEvents(order.id)
    const stale = await operator.client.call('POST', `/operator/production-orders/${po}/status`, {
      status: 'completed',
      expected_status: 'in_progress',
    })
    const error = assertError(stale, 409, 'production_conflict')
    assert.match(error.message, /now pending/)
    assertError(
      await operator.client.call('POST', `/operator/orders/${order.id}/cancel`, {
        expected_status: 'in_progress',
      }),
      409,
      'production_conflict',
    )
    assert.deepEqual(await storedEvents(order.id), before)

    const cancelled = await operator.client.call('POST', `/operator/orders/${order.id}/cancel`, {
      expected_status: 'pending',
    })
    assert.equal(cancelled.statusCode, 200, cancelled.body)
    assert.equal(cancelled.json().data.order.status, 'cancelled')
    assert.deepEqual(
      cancelled.json().data.events.map((e: ProducedEvent) => [e.type, 'production_status' in e.data]),
      [['order.cancelled', false]],
    )
  })

  test('two operators acting on the same order at once: one acts, the other gets 409, one event', async () => {
    const second = await operatorOf(t)
    const order = await createOrder(t, liveKey, orderBody())
    const [entry] = (await board(operator.client, `organization_id=${orgId}`)).data.filter(
      (e) => e.order.id === order.id,
    )
    const po = entry!.production_order.id
    const body = { status: 'in_progress', expected_status: 'pending' }
    const answers = await Promise.all([
      operator.client.call('POST', `/operator/production-orders/${po}/status`, body),
      second.client.call('POST', `/operator/production-orders/${po}/status`, body),
    ])
    assert.deepEqual(
      answers.map((a) => a.statusCode).sort(),
      [200, 409],
      answers.map((a) => a.body).join('\n'),
    )
    assert.match(answers.find((a) => a.statusCode === 409)!.json().error.message, /now in_progress/)
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.type),
      ['order.received', 'order.production_started'],
    )

    // The same item's job completed by both at once: one order_item.completed.
    const job = entry!.items[0]!.job!.id
    const jobs = await Promise.all([
      operator.client.call('POST', `/operator/production-jobs/${job}/complete`, {
        expected_status: 'in_progress',
      }),
      second.client.call('POST', `/operator/production-jobs/${job}/complete`, {
        expected_status: 'in_progress',
      }),
    ])
    assert.deepEqual(jobs.map((a) => a.statusCode).sort(), [200, 409], jobs.map((a) => a.body).join('\n'))
    assert.match(jobs.find((a) => a.statusCode === 409)!.json().error.message, /already completed/)
    assert.deepEqual(
      (await storedEvents(order.id)).map((e) => e.type),
      ['order.received', 'order.production_started', 'order_item.completed'],
    )
  })
})
