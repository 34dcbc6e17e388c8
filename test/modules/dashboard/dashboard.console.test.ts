import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { newId } from '../../../src/lib/ids.ts'
import { countBoard } from '../../../src/modules/production/production.repo.ts'
import { manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import {
  type DashboardClient,
  dashboardClient,
  memberOf,
  operatorOf,
  PASSWORD,
  tokenOf,
  uniqueEmail,
} from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, HOSTILE_SVG, PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { settleDelivery } from '../../helpers/webhook-endpoints.ts'

describe('the operator console', () => {
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

  describe('the operator console API', () => {
    let operator: Awaited<ReturnType<typeof operatorOf>>
    let orgId: string
    let liveKey: string
    before(async () => {
      operator = await operatorOf(t)
      orgId = (await t.createOrganization('Console Prints')).id
      liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    })

    test('an operator creates an organization and invites its first owner; both are in the platform-wide log by the operator', async () => {
      const created = await operator.client.call('POST', '/operator/organizations', { name: 'Fresh Org' })
      assert.equal(created.statusCode, 201, created.body)
      const organization = created.json().data.organization
      assert.equal(organization.name, 'Fresh Org')

      const email = uniqueEmail('first-owner')
      const invited = await operator.client.call(
        'POST',
        `/operator/organizations/${organization.id}/invitations`,
        {
          email,
        },
      )
      assert.equal(invited.statusCode, 201, invited.body)
      assert.equal(invited.json().data.invitation.role, 'owner')
      const member = await operator.client.call('POST', '/invitations/lookup', {
        token: tokenOf(invited.json().data.url),
      })
      assert.equal(member.json().data.organization.name, 'Fresh Org')
      assertError(
        await operator.client.call(
          'POST',
          '/operator/organizations/00000000-0000-7000-8000-000000000000/invitations',
          {
            email: uniqueEmail(),
          },
        ),
        404,
        'not_found',
      )

      const log = await platformLog(operator.client)
      const mine = log.filter((e) => e.organization_id === organization.id)
      assert.deepEqual(
        mine.map((e) => [e.action, e.actor]),
        [
          ['member.invited', operator.email],
          ['organization.created', operator.email],
        ],
      )
    })

    test('organizations list live order counts from the aggregates (test orders never) and live webhook health', async () => {
      const org = await t.tenant('Counted Org')
      await createOrder(t, org.liveKey, orderBody())
      await createOrder(t, org.liveKey, orderBody())
      await createOrder(t, org.testKey, orderBody())
      const res = await operator.client.call('GET', '/operator/organizations')
      assert.equal(res.statusCode, 200, res.body)
      const row = res.json().data.find((o: { id: string }) => o.id === org.orgId)
      assert.equal(row.name, 'Counted Org')
      assert.equal(row.live_orders.all_time.orders_total, 2)
      assert.equal(row.live_orders.all_time.orders_by_status.pending, 2)
      assert.equal(row.live_orders.today.items_total, 4)
      assert.deepEqual(row.webhooks.live, {
        active_endpoints: 0,
        disabled_endpoints: 0,
        failing_endpoints: 0,
        failed_deliveries_24h: 0,
      })
      const one = await operator.client.call('GET', `/operator/organizations/${org.orgId}`)
      assert.equal(one.json().data.organization.live_orders.all_time.orders_total, 2)
    })

    test("each organization's own live webhook health: the test environment and other organizations never count", async () => {
      const [busy, quiet] = [await t.tenant('Busy Org'), await t.tenant('Quiet Org')]
      const deliveriesToday = async () =>
        (await operator.client.call('GET', '/operator/statistics')).json().data.live_deliveries_per_day.at(-1)
      const before = await deliveriesToday()
      const endpoint = (organizationId: string, environment: 'live' | 'test', active: boolean) => ({
        id: newId(),
        organization_id: organizationId,
        environment,
        url: 'https://hooks.example.com/in',
        description: '',
        secret_encrypted: 'sealed',
        pinned_addresses: [],
        is_active: active,
        disabled_reason: active ? null : 'too_many_failures',
        last_success_at: null,
        last_failure_at: null,
        created_at: clock.now(),
        disabled_at: active ? null : clock.now(),
      })
      const hooked = endpoint(busy.orgId, 'live', true)
      await t.db
        .insertInto('webhook_endpoints')
        .values([
          hooked,
          endpoint(busy.orgId, 'live', true),
          endpoint(busy.orgId, 'live', false),
          endpoint(busy.orgId, 'test', false),
          endpoint(quiet.orgId, 'live', false),
        ])
        .execute()
      await createOrder(t, busy.liveKey, orderBody())
      const delivery = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', hooked.id)
        .executeTakeFirstOrThrow()
      await settleDelivery(t, delivery.id, 'failed', new Date(clock.now().getTime() - 3600_000))

      const res = await operator.client.call('GET', '/operator/organizations')
      assert.equal(res.statusCode, 200, res.body)
      const health = (id: string) => res.json().data.find((o: { id: string }) => o.id === id).webhooks.live
      // The endpoint whose last attempt failed is failing until one succeeds.
      assert.deepEqual(health(busy.orgId), {
        active_endpoints: 2,
        disabled_endpoints: 1,
        failing_endpoints: 1,
        failed_deliveries_24h: 1,
      })
      assert.deepEqual(health(quiet.orgId), {
        active_endpoints: 0,
        disabled_endpoints: 1,
        failing_endpoints: 0,
        failed_deliveries_24h: 0,
      })
      // The statistics' deliveries per day: of the live order's two deliveries, one given up today; the other still waits.
      const after = await deliveriesToday()
      assert.deepEqual(
        {
          day: after.day,
          succeeded: after.succeeded - before.succeeded,
          failed: after.failed - before.failed,
        },
        { day: clock.now().toISOString().slice(0, 10), succeeded: 0, failed: 1 },
      )
      const one = await operator.client.call('GET', `/operator/organizations/${quiet.orgId}`)
      assert.deepEqual(one.json().data.organization.webhooks.live, {
        active_endpoints: 0,
        disabled_endpoints: 1,
        failing_endpoints: 0,
        failed_deliveries_24h: 0,
      })
    })

    test("an organization's keys (revoked by the operator), members, endpoints and deliveries (redelivered)", async () => {
      const owner = await memberOf(t, orgId, 'owner')
      const endpoint = await owner.client.call('POST', '/webhook-endpoints?environment=live', {
        url: 'https://webhook.test/console',
      })
      assert.equal(endpoint.statusCode, 201, endpoint.body)
      await createOrder(t, liveKey, orderBody())

      const keyId = (await t.createKey(orgId, { environment: 'test' })).id
      const keys = await operator.client.call('GET', `/operator/organizations/${orgId}/api-keys`)
      assert.equal(keys.statusCode, 200, keys.body)
      assert.ok(
        keys
          .json()
          .data.some((k: { id: string; revoked_at: string | null }) => k.id === keyId && !k.revoked_at),
      )
      const other = (await t.createOrganization('Other Org')).id
      assertError(
        await operator.client.call('DELETE', `/operator/organizations/${other}/api-keys/${keyId}`),
        404,
        'not_found',
      )
      const revoked = await operator.client.call(
        'DELETE',
        `/operator/organizations/${orgId}/api-keys/${keyId}`,
      )
      assert.equal(revoked.statusCode, 200, revoked.body)
      assert.ok(revoked.json().data.api_key.revoked_at)

      const members = await operator.client.call('GET', `/operator/organizations/${orgId}/members`)
      assert.deepEqual(
        members.json().data.map((m: { email: string }) => m.email),
        [owner.email],
      )
      const endpoints = await operator.client.call(
        'GET',
        `/operator/organizations/${orgId}/webhook-endpoints`,
      )
      assert.deepEqual(
        endpoints.json().data.map((e: { url: string }) => e.url),
        ['https://webhook.test/console'],
      )
      const testEndpoints = await operator.client.call(
        'GET',
        `/operator/organizations/${orgId}/webhook-endpoints?environment=test`,
      )
      assert.deepEqual(testEndpoints.json().data, [])

      const deliveries = await operator.client.call(
        'GET',
        `/operator/organizations/${orgId}/webhook-deliveries`,
      )
      assert.equal(deliveries.statusCode, 200, deliveries.body)
      const [delivery] = deliveries.json().data
      assert.equal(delivery.event_type, 'order.received')
      assert.equal(delivery.environment, 'live')
      const again = await operator.client.call(
        'POST',
        `/operator/webhook-deliveries/${delivery.id}/redeliver`,
      )
      assert.equal(again.statusCode, 202, again.body)
      assert.equal(again.json().data.delivery.redelivery_of, delivery.id)

      // The organization's own log names the operator too.
      const orgLog = (await owner.client.call('GET', '/audit-log?limit=100')).json().data as {
        actor: string
        action: string
      }[]
      assert.ok(orgLog.some((e) => e.action === 'api_key.revoked' && e.actor === operator.email))
      assert.ok(orgLog.some((e) => e.action === 'webhook_delivery.redelivered' && e.actor === operator.email))
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
        const done = await operator.client.call(
          'POST',
          `/operator/production-jobs/${item.job!.id}/complete`,
          {
            expected_status: 'in_progress',
          },
        )
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

    test('a shop order is created live, says it produced no events, and records none', async () => {
      const body = orderBody()
      const res = await operator.client.call('POST', `/operator/organizations/${orgId}/shop-orders`, body)
      assert.equal(res.statusCode, 201, res.body)
      const { order, created, events } = res.json().data
      assert.equal(order.source, 'shop')
      const row = await t.db
        .selectFrom('orders')
        .select('environment')
        .where('id', '=', order.id)
        .executeTakeFirstOrThrow()
      assert.equal(row.environment, 'live')
      assert.equal(created, true)
      assert.deepEqual(events, [])
      assert.deepEqual(await storedEvents(order.id), [])
      const again = await operator.client.call('POST', `/operator/organizations/${orgId}/shop-orders`, body)
      assert.equal(again.statusCode, 200, again.body)
      assert.equal(again.json().data.created, false)
      const log = await platformLog(operator.client)
      assert.ok(
        log.some(
          (e) => e.action === 'shop_order.created' && e.subject === order.id && e.actor === operator.email,
        ),
      )
    })

    test('statistics across organizations: live only, the platform and each organization', async () => {
      const a = await t.tenant('Stats A')
      const b = await t.tenant('Stats B')
      const before = (await operator.client.call('GET', '/operator/statistics')).json().data
      await createOrder(t, a.liveKey, orderBody())
      await createOrder(t, b.liveKey, orderBody())
      await createOrder(t, b.liveKey, orderBody())
      await createOrder(t, b.testKey, orderBody())
      const res = await operator.client.call('GET', '/operator/statistics')
      assert.equal(res.statusCode, 200, res.body)
      const stats = res.json().data
      assert.equal(stats.today, '2026-11-26')
      assert.equal(stats.live_orders.all_time.orders_total - before.live_orders.all_time.orders_total, 3)
      assert.equal(stats.live_orders.today.orders_total - before.live_orders.today.orders_total, 3)
      const of = (id: string) => stats.organizations.find((o: { id: string }) => o.id === id)
      assert.equal(of(a.orgId).name, 'Stats A')
      assert.equal(of(a.orgId).live_orders.all_time.orders_total, 1)
      assert.equal(of(b.orgId).live_orders.last_7_days.orders_total, 2)
      assert.equal(of(b.orgId).live_orders.all_time.quantity_total, 6)
      // Per day for 30 days, today last: the same three live orders, none of the test one.
      assert.equal(stats.live_orders_per_day.length, 30)
      assert.equal(stats.live_orders_per_day.at(-1).day, '2026-11-26')
      assert.equal(
        stats.live_orders_per_day.at(-1).orders_total - before.live_orders_per_day.at(-1).orders_total,
        3,
      )
      assert.equal(
        stats.live_orders_per_day.at(-1).orders_by_status.pending -
          before.live_orders_per_day.at(-1).orders_by_status.pending,
        3,
      )
      assert.equal(stats.live_deliveries_per_day.length, 30)
      assert.equal(stats.live_deliveries_per_day.at(-1).day, '2026-11-26')
    })

    test('a member is refused the console API', async () => {
      const member = await memberOf(t, orgId, 'owner')
      const error = assertError(await member.client.call('GET', '/operator/production'), 403, 'role_required')
      assert.equal(error.message, 'This needs an operator account.')
    })
  })
})

describe('operator accounts and the platform audit log', () => {
  const t = useTestApp()

  interface Entry {
    organization_id: string | null
    actor: string
    action: string
    subject: string
    details: Record<string, unknown>
  }

  /** The platform-wide log as an operator reads it, newest first. */
  async function operatorLog(client: Awaited<ReturnType<typeof operatorOf>>['client']): Promise<Entry[]> {
    const res = await client.call('GET', '/operator/audit-log?limit=100')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  describe('operator accounts', () => {
    test('the operator token invites an operator; the link (7 days, once) signs in on the invitation page', async () => {
      const email = uniqueEmail('Operator').toUpperCase()
      const invited = await t.admin('POST', '/admin/v1/operators/invitations', { email })
      assert.equal(invited.statusCode, 201, invited.body)
      const { invitation, url } = invited.json().data
      assert.equal(invitation.email, email.toLowerCase())
      assert.equal(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at), 7 * 86_400_000)
      assert.match(url, /^http:\/\/api\.test\/dashboard\/invitation#token=\w{43}$/)
      const token = tokenOf(url)

      const client = await dashboardClient(t)
      const preview = await client.call('POST', '/invitations/lookup', { token })
      assert.equal(preview.statusCode, 200, preview.body)
      assert.deepEqual(
        { ...preview.json().data, expires_at: undefined },
        {
          kind: 'operator',
          email: email.toLowerCase(),
          role: null,
          organization: null,
          expires_at: undefined,
        },
      )

      const accepted = await client.call('POST', '/invitations/accept', { token, password: PASSWORD })
      assert.equal(accepted.statusCode, 200, accepted.body)
      const answer = accepted.json().data
      assert.equal(answer.kind, 'operator')
      assert.equal(answer.member, null)
      assert.equal(answer.operator.email, email.toLowerCase())

      const session = (await client.session()).json().data
      assert.equal(session.kind, 'operator')
      assert.equal(session.member, null)
      assert.equal(session.operator.id, answer.operator.id)

      // Once only.
      const again = await (await dashboardClient(t)).call('POST', '/invitations/accept', {
        token,
        password: PASSWORD,
      })
      assertError(again, 404, 'invitation_invalid')

      const operators = await t.admin('GET', '/admin/v1/operators')
      assert.equal(operators.statusCode, 200)
      assert.ok(
        operators.json().data.some((o: { id: string; email: string }) => o.id === answer.operator.id),
        operators.body,
      )
    })

    test('an operator signs in on the same sign-in page; the answer says kind operator', async () => {
      const { email } = await operatorOf(t)
      const client = await dashboardClient(t)
      const res = await client.call('POST', '/sign-in', { email, password: PASSWORD })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.kind, 'operator')
      assert.equal(res.json().data.operator.email, email)
      const member = await memberOf(t, (await t.createOrganization('Kind Org')).id, 'viewer')
      const signedIn = await (await dashboardClient(t)).call('POST', '/sign-in', {
        email: member.email,
        password: PASSWORD,
      })
      assert.equal(signedIn.json().data.kind, 'member')
      assert.equal(signedIn.json().data.operator, null)
    })

    test('an email that has an account cannot be invited as an operator (409 member_exists)', async () => {
      const member = await memberOf(t, (await t.createOrganization('Taken Org')).id, 'viewer')
      assertError(
        await t.admin('POST', '/admin/v1/operators/invitations', { email: member.email }),
        409,
        'member_exists',
      )
      const operator = await operatorOf(t)
      assertError(
        await t.admin('POST', '/admin/v1/operators/invitations', { email: operator.email }),
        409,
        'member_exists',
      )
    })

    test("an operator's session: member routes 403, its own account routes work", async () => {
      const { client } = await operatorOf(t)
      for (const path of ['/members', '/audit-log', '/invitations']) {
        const error = assertError(await client.call('GET', path), 403, 'role_required', path)
        assert.match(error.message, /member of an organization/)
      }
      assertError(
        await client.call('POST', '/invitations', { email: uniqueEmail(), role: 'viewer' }),
        403,
        'role_required',
      )
      const sessions = await client.call('GET', '/account/sessions')
      assert.equal(sessions.statusCode, 200, sessions.body)
      assert.equal(sessions.json().data.length, 1)
      const changed = await client.call('POST', '/account/password', {
        current_password: PASSWORD,
        new_password: `${PASSWORD} two`,
      })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal((await client.call('POST', '/sign-out')).statusCode, 200)
      assert.equal((await client.session()).json().data.kind, null)
    })
  })

  describe('the platform-wide audit log', () => {
    test('every /admin/v1 change is recorded with actor operator token and its organization', async () => {
      const { client, email } = await operatorOf(t)
      const org = (await t.admin('POST', '/admin/v1/organizations', { name: 'Audited Org' })).json().data
        .organization
      const key = (
        await t.admin('POST', `/admin/v1/organizations/${org.id}/api-keys`, {
          environment: 'live',
          scopes: ['orders:read', 'orders:write'],
        })
      ).json().data
      assert.equal((await t.admin('DELETE', `/admin/v1/api-keys/${key.api_key.id}`)).statusCode, 200)
      assert.equal((await t.admin('DELETE', `/admin/v1/api-keys/${key.api_key.id}`)).statusCode, 200)
      const product = { sku: 'MUG-01', name: 'Mug' }
      assert.equal(
        (await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, product)).statusCode,
        201,
      )
      // Refused: nothing changed, nothing recorded.
      assert.equal(
        (await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, product)).statusCode,
        409,
      )
      const liveKey = await t.createKey(org.id, { environment: 'live' })
      const order = (await t.api(liveKey.key, 'POST', '/v1/orders', orderBody())).json().data.order
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      const po = view.production_order.id
      await t.admin('POST', `/admin/v1/production-orders/${po}/status`, { status: 'in_progress' })
      await t.admin('POST', `/admin/v1/production-orders/${po}/status`, { status: 'in_progress' })
      await t.admin('POST', `/admin/v1/production-orders/${po}/partner`, { produced_by_partner: true })
      await t.admin('POST', `/admin/v1/production-jobs/${view.items[0].production_job.id}/complete`)
      await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)
      const shop = await t.admin('POST', `/admin/v1/organizations/${org.id}/shop-orders`, orderBody())
      assert.equal(shop.statusCode, 201, shop.body)
      await t.admin('POST', `/admin/v1/organizations/${org.id}/invitations`, { email: uniqueEmail() })

      const entries = (await operatorLog(client)).filter((e) => e.organization_id === org.id).reverse()
      assert.deepEqual(
        entries.map((e) => e.action),
        [
          'organization.created',
          'api_key.created',
          'api_key.revoked',
          'product.created',
          'api_key.created',
          'production.status_set',
          'production.partner_set',
          'production.job_completed',
          'order.cancelled',
          'shop_order.created',
          'member.invited',
        ],
      )
      for (const e of entries) assert.equal(e.actor, 'operator token', e.action)
      assert.deepEqual(entries[5]!.details, {
        order_id: order.id,
        external_order_id: order.external_order_id,
        from: 'pending',
        to: 'in_progress',
      })
      assert.equal(entries[9]!.subject, shop.json().data.order.id)

      // The organization's own log shows what was done to it too; the operator's own sign-up is platform-only.
      const all = await operatorLog(client)
      const joined = all.find((e) => e.action === 'operator.joined' && e.subject === email)
      assert.ok(joined, 'operator.joined')
      assert.equal(joined.organization_id, null)
      assert.equal(joined.actor, email)
      const invitedBy = all.find((e) => e.action === 'operator.invited' && e.subject === email)
      assert.equal(invitedBy?.actor, 'operator token')
    })

    test("members' own actions are not in the platform-wide log", async () => {
      const { client } = await operatorOf(t)
      const member = await memberOf(t, (await t.createOrganization('Quiet Org')).id, 'owner')
      await member.client.call('POST', '/invitations', { email: uniqueEmail('quiet'), role: 'viewer' })
      const entries = await operatorLog(client)
      assert.ok(!entries.some((e) => e.actor === member.email), 'no member entry')
    })

    test('a member cannot read it (403), nobody signed out can (401)', async () => {
      const member = await memberOf(t, (await t.createOrganization('Curious Org')).id, 'owner')
      const error = assertError(await member.client.call('GET', '/operator/audit-log'), 403, 'role_required')
      assert.equal(error.message, 'This needs an operator account.')
      assertError(
        await (await dashboardClient(t)).call('GET', '/operator/audit-log'),
        401,
        'session_required',
      )
    })
  })

  describe('operator invitations and operator accounts, from the console', () => {
    test('an operator invites another from the console, lists and revokes the invitation', async () => {
      const { client, email: by } = await operatorOf(t)
      const email = uniqueEmail('invited-op')
      const created = await client.call('POST', '/operator/operators/invitations', { email })
      assert.equal(created.statusCode, 201, created.body)
      const { invitation, url } = created.json().data
      assert.deepEqual(Object.keys(invitation).sort(), ['created_at', 'email', 'expires_at', 'id'])
      assert.match(url, /^http:\/\/api\.test\/dashboard\/invitation#token=\w{43}$/)
      const listed = (await client.call('GET', '/operator/operators/invitations')).json().data
      assert.deepEqual(
        listed.find((i: { id: string }) => i.id === invitation.id),
        invitation,
      )

      const res = await client.call('DELETE', `/operator/operators/invitations/${invitation.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.invitation.id, invitation.id)
      assert.equal(typeof res.json().data.invitation.revoked_at, 'string')
      const row = await t.db
        .selectFrom('operator_invitations')
        .selectAll()
        .where('id', '=', invitation.id)
        .executeTakeFirstOrThrow()
      assert.equal(row.revoked_at?.toISOString(), res.json().data.invitation.revoked_at)
      assert.ok(
        !(await client.call('GET', '/operator/operators/invitations'))
          .json()
          .data.some((i: { id: string }) => i.id === invitation.id),
      )
      const invitee = await dashboardClient(t)
      assertError(
        await invitee.call('POST', '/invitations/lookup', { token: tokenOf(url) }),
        404,
        'invitation_invalid',
      )
      assertError(
        await invitee.call('POST', '/invitations/accept', { token: tokenOf(url), password: PASSWORD }),
        404,
        'invitation_invalid',
      )
      assertError(
        await client.call('DELETE', `/operator/operators/invitations/${invitation.id}`),
        404,
        'not_found',
        'twice',
      )

      const entries = (await operatorLog(client)).filter((e) => e.subject === email)
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor, e.organization_id]),
        [
          ['operator.invitation_revoked', by, null],
          ['operator.invited', by, null],
        ],
      )
    })

    test("a member invitation's id is not an operator invitation, and the other way round (404)", async () => {
      const { client } = await operatorOf(t)
      const org = await t.createOrganization('Two Kinds Org')
      const member = (
        await t.admin('POST', `/admin/v1/organizations/${org.id}/invitations`, { email: uniqueEmail() })
      ).json().data.invitation
      const operator = (
        await t.admin('POST', '/admin/v1/operators/invitations', { email: uniqueEmail('op') })
      ).json().data.invitation
      assertError(
        await client.call('DELETE', `/operator/operators/invitations/${member.id}`),
        404,
        'not_found',
      )
      assertError(await t.admin('DELETE', `/admin/v1/operators/invitations/${member.id}`), 404, 'not_found')
      assertError(await t.admin('DELETE', `/admin/v1/invitations/${operator.id}`), 404, 'not_found')
      for (const table of ['invitations', 'operator_invitations'] as const) {
        const rows = await t.db
          .selectFrom(table)
          .select('revoked_at')
          .where('id', 'in', [member.id, operator.id])
          .execute()
        assert.deepEqual(rows, [{ revoked_at: null }], table)
      }
    })

    test('an operator removes another: every session of it ends at once, its email is free again', async () => {
      const remover = await operatorOf(t)
      const removed = await operatorOf(t)
      const second = await dashboardClient(t)
      const signedIn = await second.call('POST', '/sign-in', { email: removed.email, password: PASSWORD })
      assert.equal(signedIn.statusCode, 200, signedIn.body)
      const accountId = (
        await t.db
          .selectFrom('accounts')
          .select('id')
          .where('email', '=', removed.email)
          .executeTakeFirstOrThrow()
      ).id

      const res = await remover.client.call('DELETE', `/operator/operators/${removed.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.operator.id, removed.id)
      assert.deepEqual(res.json().data.operator.email, removed.email)
      assert.equal(res.json().data.sessions_ended, 2)

      for (const client of [removed.client, second]) {
        assertError(await client.call('GET', '/operator/organizations'), 401, 'session_required')
        assert.equal((await client.session()).json().data.kind, null)
      }
      assert.equal(
        (await t.db.selectFrom('operators').select('id').where('id', '=', removed.id).execute()).length,
        0,
      )
      assert.equal(
        (await t.db.selectFrom('accounts').select('id').where('id', '=', accountId).execute()).length,
        0,
      )
      assert.equal(
        (
          await t.db
            .selectFrom('dashboard_sessions')
            .select('id')
            .where('account_id', '=', accountId)
            .execute()
        ).length,
        0,
      )
      assertError(
        await (await dashboardClient(t)).call('POST', '/sign-in', {
          email: removed.email,
          password: PASSWORD,
        }),
        401,
        'sign_in_failed',
      )
      assert.ok(
        !(await remover.client.call('GET', '/operator/operators'))
          .json()
          .data.some((o: { id: string }) => o.id === removed.id),
      )
      assertError(
        await remover.client.call('DELETE', `/operator/operators/${removed.id}`),
        404,
        'not_found',
        'twice',
      )
      assertError(
        await remover.client.call('DELETE', '/operator/operators/nope'),
        404,
        'not_found',
        'malformed',
      )

      const entry = (await operatorLog(remover.client)).find((e) => e.action === 'operator.removed')
      assert.deepEqual(entry && [entry.actor, entry.subject, entry.organization_id, entry.details], [
        remover.email,
        removed.email,
        null,
        { sessions_ended: 2 },
      ])
      // The email is free: the same person can be invited again.
      const again = await remover.client.call('POST', '/operator/operators/invitations', {
        email: removed.email,
      })
      assert.equal(again.statusCode, 201, again.body)
    })

    test('an operator cannot remove itself (422); nothing changes', async () => {
      const { client, id, email } = await operatorOf(t)
      const before = (await operatorLog(client))[0]
      const error = assertError(
        await client.call('DELETE', `/operator/operators/${id}`),
        422,
        'operator_self_removal',
      )
      assert.equal(error.message, 'An operator cannot remove their own account.')
      assert.equal((await client.call('GET', '/operator/operators')).statusCode, 200, 'still signed in')
      assert.equal((await operatorLog(client))[0]!.subject, before!.subject)
      assert.ok(
        (await t.admin('GET', '/admin/v1/operators'))
          .json()
          .data.some((o: { email: string }) => o.email === email),
      )
    })
  })

  describe('operator invitations and operator accounts, through /admin/v1', () => {
    test('the token lists and revokes operator invitations and removes operator accounts', async () => {
      const email = uniqueEmail('admin-op')
      const invited = (await t.admin('POST', '/admin/v1/operators/invitations', { email })).json().data
      const listed = await t.admin('GET', '/admin/v1/operators/invitations')
      assert.equal(listed.statusCode, 200, listed.body)
      assert.deepEqual(
        listed.json().data.find((i: { id: string }) => i.id === invited.invitation.id),
        invited.invitation,
      )
      const revoked = await t.admin('DELETE', `/admin/v1/operators/invitations/${invited.invitation.id}`)
      assert.equal(revoked.statusCode, 200, revoked.body)
      assert.equal(revoked.json().data.invitation.email, email)
      assertError(
        await t.admin('DELETE', `/admin/v1/operators/invitations/${invited.invitation.id}`),
        404,
        'not_found',
      )
      assertError(
        await (await dashboardClient(t)).call('POST', '/invitations/lookup', { token: tokenOf(invited.url) }),
        404,
        'invitation_invalid',
      )

      const operator = await operatorOf(t)
      const removed = await t.admin('DELETE', `/admin/v1/operators/${operator.id}`)
      assert.equal(removed.statusCode, 200, removed.body)
      assert.deepEqual(removed.json().data.sessions_ended, 1)
      assertError(await operator.client.call('GET', '/operator/operators'), 401, 'session_required')
      assertError(await t.admin('DELETE', `/admin/v1/operators/${operator.id}`), 404, 'not_found', 'twice')
      assertError(await t.admin('DELETE', `/admin/v1/operators/${randomUUID()}`), 404, 'not_found', 'unknown')

      const { client } = await operatorOf(t)
      const log = await operatorLog(client)
      for (const [action, subject] of [
        ['operator.invitation_revoked', email],
        ['operator.removed', operator.email],
      ]) {
        const entry = log.find((e) => e.action === action && e.subject === subject)
        assert.equal(entry?.actor, 'operator token', action)
        assert.equal(entry?.organization_id, null, action)
      }
    })
  })
})

describe('the production order page and board counts', () => {
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
      const first = await operator.client.call(
        'GET',
        `/operator/production?organization_id=${a.orgId}&limit=1`,
      )
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
})
