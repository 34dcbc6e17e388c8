import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { newId } from '../../../src/lib/ids.ts'
import { ALL_SCOPES, manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, memberOf, operatorOf, tokenOf, uniqueEmail } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { count, hex, ISO_MS, UUID } from '../../helpers/operator.ts'
import { createOrder } from '../../helpers/order-files.ts'
import { settleDelivery } from '../../helpers/webhook-endpoints.ts'

describe('the operator console', () => {
  const clock = manualClock(new Date('2026-11-26T09:00:00.000Z'))
  const t = useTestApp({ clock, resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

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
      // One entry with what it sent, as the console's order timeline opens it (any organization's).
      const detail = await operator.client.call('GET', `/operator/webhook-deliveries/${delivery.id}`)
      assert.equal(detail.statusCode, 200, detail.body)
      const { data } = detail.json()
      assert.equal(data.delivery.id, delivery.id)
      assert.ok(Array.isArray(data.attempts))
      assert.equal(data.payload.event.type, 'order.received')
      assert.equal(JSON.parse(data.payload.event.body).type, 'order.received')
      assertError(
        await operator.client.call('GET', `/operator/webhook-deliveries/${randomUUID()}`),
        404,
        'not_found',
      )
      assertError(
        await owner.client.call('GET', `/operator/webhook-deliveries/${delivery.id}`),
        403,
        'role_required',
        'a member is no operator',
      )

      // The organization's own log names the operator too.
      const orgLog = (await owner.client.call('GET', '/audit-log?limit=100')).json().data as {
        actor: string
        action: string
      }[]
      assert.ok(orgLog.some((e) => e.action === 'api_key.revoked' && e.actor === operator.email))
      assert.ok(orgLog.some((e) => e.action === 'webhook_delivery.redelivered' && e.actor === operator.email))
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

describe('organizations and their API keys', () => {
  const API_KEY_FIELDS = [
    'created_at',
    'created_by',
    'environment',
    'expires_at',
    'id',
    'key_prefix',
    'last_used_at',
    'name',
    'organization_id',
    'revoked_at',
    'scopes',
  ].sort()

  // A moving clock: a second revocation must keep the first time.
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })
  const tick = (ms = 1000) => clock.advance(ms)

  describe('organizations', () => {
    test('POST creates {id, name, created_at}; GET lists it', async () => {
      const name = `Org ${hex()}`
      const res = await t.admin('POST', '/admin/v1/organizations', { name })
      assert.equal(res.statusCode, 201, res.body)
      const { organization } = res.json().data
      assert.deepEqual(Object.keys(organization).sort(), ['created_at', 'id', 'name'])
      assert.match(organization.id, UUID)
      assert.equal(organization.name, name)
      assert.match(organization.created_at, ISO_MS)
      const row = await t.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', organization.id)
        .execute()
      assert.deepEqual(
        row.map((r) => r.name),
        [name],
      )

      const list = await t.admin('GET', '/admin/v1/organizations')
      assert.equal(list.statusCode, 200)
      assert.ok(Array.isArray(list.json().data))
      assert.deepEqual(
        list.json().data.find((o: { id: string }) => o.id === organization.id),
        organization,
      )
    })

    test('invalid bodies get 422 and store nothing', async () => {
      const before = await count(t, 'organizations')
      for (const [body, code, field] of [
        [{}, 'required', 'name'],
        [{ name: '' }, 'too_short', 'name'],
        [{ name: 42 }, 'invalid_type', 'name'],
        [{ name: 'Acme', plan: 'pro' }, 'unknown_field', 'plan'],
      ] as const) {
        const res = await t.admin('POST', '/admin/v1/organizations', body)
        const error = assertError(res, 422, 'validation_failed')
        assert.deepEqual(
          error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
          [[code, field]],
          JSON.stringify(body),
        )
      }
      assert.equal(await count(t, 'organizations'), before)
    })
  })

  describe('API keys', () => {
    let orgId: string
    before(async () => {
      orgId = (await t.createOrganization('Key Org')).id
    })

    test('create returns the key once with its metadata; the list never shows the plaintext', async () => {
      const expiresAt = new Date(clock.now().getTime() + 86_400_000).toISOString()
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'live',
        scopes: ['orders:read', 'orders:write'],
        name: 'ERP',
        expires_at: expiresAt,
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.deepEqual(Object.keys(res.json().data).sort(), ['api_key', 'key'])
      assert.deepEqual(Object.keys(api_key).sort(), API_KEY_FIELDS)
      assert.match(api_key.id, UUID)
      assert.equal(api_key.organization_id, orgId)
      assert.equal(api_key.environment, 'live')
      assert.deepEqual([...api_key.scopes].sort(), ['orders:read', 'orders:write'])
      assert.equal(api_key.name, 'ERP')
      assert.equal(api_key.expires_at, expiresAt)
      assert.equal(api_key.created_by, 'operator token')
      assert.equal(api_key.last_used_at, null)
      assert.equal(api_key.revoked_at, null)
      assert.match(api_key.created_at, ISO_MS)
      assert.match(key, /^svc_live_[0-9A-Za-z]{32,}$/)
      assert.ok(key.startsWith(api_key.key_prefix))

      const ping = await t.api(key, 'GET', '/v1/ping')
      assert.equal(ping.statusCode, 200)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.statusCode, 200)
      const listed = list.json().data.find((k: { id: string }) => k.id === api_key.id)
      assert.deepEqual(listed, api_key)
      const secret = key.slice('svc_live_'.length)
      assert.ok(!list.body.includes(key), 'the list does not contain the plaintext key')
      assert.ok(!list.body.includes(secret), 'the list does not contain the secret part')
      for (const entry of list.json().data) assert.deepEqual(Object.keys(entry).sort(), API_KEY_FIELDS)
    })

    test('name and expires_at are optional; the list holds only the organization’s keys', async () => {
      const other = await t.createOrganization('Other Key Org')
      const otherKey = await t.createKey(other.id)
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: [],
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.equal(api_key.name, null)
      assert.equal(api_key.expires_at, null)
      assert.deepEqual(api_key.scopes, [])
      assert.match(key, /^svc_test_/)
      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      const ids = list.json().data.map((k: { id: string }) => k.id)
      assert.ok(ids.includes(api_key.id))
      assert.ok(!ids.includes(otherKey.id))
      assert.ok(list.json().data.every((k: { organization_id: string }) => k.organization_id === orgId))
    })

    test('scopes and environment are validated; nothing is stored', async () => {
      const before = await count(t, 'api_keys')
      const bodies = [
        { environment: 'test', scopes: ['orders:delete'] },
        { environment: 'test', scopes: ['orders:read', 'admin'] },
        { environment: 'test', scopes: 'orders:read' },
        { environment: 'test' },
        { environment: 'prod', scopes: ['orders:read'] },
        { environment: 'TEST', scopes: ['orders:read'] },
        { scopes: ['orders:read'] },
        { environment: 'test', scopes: [], expires_at: 'tomorrow' },
        { environment: 'test', scopes: [], key: 'svc_test_chosen_by_me_0000000000000000000' },
      ]
      for (const body of bodies) {
        const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, body)
        const error = assertError(res, 422, 'validation_failed')
        assert.ok(error.errors.length > 0, JSON.stringify(body))
      }
      const unknownScope = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: ['orders:read', 'orders:delete'],
      })
      assert.deepEqual(
        assertError(unknownScope, 422, 'validation_failed').errors.map((e: { field: string }) => e.field),
        ['scopes.1'],
      )
      const badEnvironment = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'prod',
        scopes: [],
      })
      assert.equal(assertError(badEnvironment, 422, 'validation_failed').field, 'environment')
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('an unknown organization is 404 not_found', async () => {
      const before = await count(t, 'api_keys')
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const created = await t.admin('POST', `/admin/v1/organizations/${id}/api-keys`, {
          environment: 'test',
          scopes: ALL_SCOPES,
        })
        assertError(created, 404, 'not_found')
        assertError(await t.admin('GET', `/admin/v1/organizations/${id}/api-keys`), 404, 'not_found')
      }
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('revoke answers {id, revoked_at}; the key gets 401 from then on; a second revoke keeps the first time', async () => {
      const { key, id } = await t.createKey(orgId, { environment: 'live' })
      assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)

      tick()
      const revokedAt = clock.now().toISOString()
      const res = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { id, revoked_at: revokedAt } })

      for (const [method, url] of [
        ['GET', '/v1/ping'],
        ['GET', '/v1/orders'],
        ['GET', `/v1/orders/${randomUUID()}`],
      ] as const) {
        assertError(await t.api(key, method, url), 401, 'invalid_api_key')
      }
      assertError(await t.api(key, 'POST', '/v1/orders', orderBody()), 401, 'invalid_api_key')

      tick(60_000)
      const again = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(again.statusCode, 200, again.body)
      assert.deepEqual(again.json(), { data: { id, revoked_at: revokedAt } })
      const row = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', id)
        .executeTakeFirst()
      assert.equal(row?.revoked_at?.toISOString(), revokedAt)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.json().data.find((k: { id: string }) => k.id === id).revoked_at, revokedAt)
      assertError(await t.api(key, 'GET', '/v1/ping'), 401, 'invalid_api_key')
    })

    test('revoking an unknown key is 404 not_found', async () => {
      assertError(await t.admin('DELETE', `/admin/v1/api-keys/${randomUUID()}`), 404, 'not_found')
      assertError(await t.admin('DELETE', '/admin/v1/api-keys/not-a-uuid'), 404, 'not_found')
    })
  })
})
