import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'

const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

interface AuditEntry {
  actor: string
  action: string
  subject: string
  details: Record<string, unknown>
}
async function auditLog(client: DashboardClient): Promise<AuditEntry[]> {
  const res = await client.call('GET', '/audit-log?limit=100')
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data
}

describe('dashboard webhooks', () => {
  let orgId: string
  let liveKey: string
  let developer: Awaited<ReturnType<typeof memberOf>>
  let stranger: Awaited<ReturnType<typeof memberOf>>
  before(async () => {
    orgId = (await t.createOrganization('Hooks Org')).id
    liveKey = (await t.createKey(orgId, { environment: 'live' })).key
    developer = await memberOf(t, orgId, 'developer')
    stranger = await memberOf(t, (await t.createOrganization('Stranger Hooks Org')).id, 'owner')
  })

  test('an endpoint through its life: created (secret once), changed, rotated, pinged, replayed, deleted; each audited', async () => {
    const { client } = developer
    const created = await client.call('POST', '/webhook-endpoints?environment=live', {
      url: 'https://webhook.test/life',
      description: 'Orders to the ERP',
      enabled_events: ['order.received'],
    })
    assert.equal(created.statusCode, 201, created.body)
    const { endpoint, secret } = created.json().data
    assert.match(secret, /^whsec_/)
    assert.deepEqual(endpoint.enabled_events, ['order.received'])

    const live = await client.call('GET', '/webhook-endpoints?environment=live')
    assert.deepEqual(
      live.json().data.map((e: { id: string }) => e.id),
      [endpoint.id],
    )
    assert.ok(!live.body.includes(secret), 'never the secret again')
    assert.deepEqual((await client.call('GET', '/webhook-endpoints')).json().data, [], 'test is another list')
    assertError(await client.call('GET', `/webhook-endpoints/${endpoint.id}`), 404, 'not_found')
    const one = await client.call('GET', `/webhook-endpoints/${endpoint.id}?environment=live`)
    assert.equal(one.json().data.endpoint.description, 'Orders to the ERP')

    const patched = await client.call('PATCH', `/webhook-endpoints/${endpoint.id}?environment=live`, {
      description: 'ERP',
      enabled_events: ['order.received', 'order.cancelled'],
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json().data.endpoint.enabled_events, ['order.received', 'order.cancelled'])

    const rotated = await client.call(
      'POST',
      `/webhook-endpoints/${endpoint.id}/rotate-secret?environment=live`,
      {
        grace_period_seconds: 3600,
      },
    )
    assert.equal(rotated.statusCode, 200, rotated.body)
    const newSecret = rotated.json().data.secret
    assert.match(newSecret, /^whsec_/)
    assert.notEqual(newSecret, secret)
    assert.ok(rotated.json().data.endpoint.secret_rotation_ends_at)

    const ping = await client.call('POST', `/webhook-endpoints/${endpoint.id}/test?environment=live`)
    assert.equal(ping.statusCode, 202, ping.body)

    // An order through /v1: its event can be replayed; a second replay while it runs is 409.
    const latest = () => client.call('GET', `/webhook-endpoints/${endpoint.id}/replay?environment=live`)
    assert.deepEqual((await latest()).json(), { data: { replay: null } }, 'never replayed')
    assert.equal((await t.api(liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    const since = new Date(Date.now() - 3600_000).toISOString()
    const replay = await client.call('POST', `/webhook-endpoints/${endpoint.id}/replay?environment=live`, {
      since,
      event_types: ['order.received'],
    })
    assert.equal(replay.statusCode, 202, replay.body)
    assert.equal(replay.json().data.replay.total, 1)
    const busy = await client.call('POST', `/webhook-endpoints/${endpoint.id}/replay?environment=live`, {
      since,
    })
    assertError(busy, 409, 'replay_in_progress')
    const progress = (await latest()).json().data.replay
    assert.equal(progress.id, replay.json().data.replay.id)
    assert.equal(progress.total, 1)
    assert.ok(['running', 'completed'].includes(progress.status), progress.status)
    assertError(await client.call('GET', `/webhook-endpoints/${endpoint.id}/replay`), 404, 'not_found')
    const backwards = await client.call('POST', `/webhook-endpoints/${endpoint.id}/replay?environment=live`, {
      since,
      until: since,
    })
    assertError(backwards, 422, 'validation_failed')

    const deleted = await client.call('DELETE', `/webhook-endpoints/${endpoint.id}?environment=live`)
    assert.equal(deleted.statusCode, 200, deleted.body)
    assert.equal(deleted.json().data.is_active, false)
    const after = await client.call('GET', `/webhook-endpoints/${endpoint.id}?environment=live`)
    assert.equal(after.json().data.endpoint.is_active, false)

    const log = (await auditLog(client)).filter((e) => e.details.endpoint_id === endpoint.id)
    assert.deepEqual(log.map((e) => e.action).reverse(), [
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.replayed',
      'webhook_endpoint.deleted',
    ])
    for (const entry of log) {
      assert.equal(entry.actor, developer.email)
      assert.equal(entry.subject, endpoint.url)
    }
    const text = JSON.stringify(log)
    assert.ok(!text.includes('whsec_'), 'no secret in the audit log')
    assert.deepEqual(log.find((e) => e.action === 'webhook_endpoint.replayed')?.details.total, 1)
    assert.equal(
      log.find((e) => e.action === 'webhook_endpoint.secret_rotated')?.details.grace_period_seconds,
      3600,
    )
  })

  test('a replay preview counts the events a replay would send and starts nothing; bad windows are 422', async () => {
    // An organization of its own: the other tests count this one's endpoints and deliveries.
    const org = (await t.createOrganization('Preview Org')).id
    const key = (await t.createKey(org, { environment: 'live' })).key
    const { client } = await memberOf(t, org, 'developer')
    const created = await client.call('POST', '/webhook-endpoints?environment=live', {
      url: 'https://webhook.test/preview',
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().data.endpoint.id
    const preview = (body: object, env = 'live') =>
      client.call('POST', `/webhook-endpoints/${id}/replay/preview?environment=${env}`, body)
    const since = new Date(Date.now() - 3600_000).toISOString()
    const before = await preview({ since })
    assert.equal(before.statusCode, 200, before.body)
    const base = before.json().data.matched
    assert.deepEqual(before.json(), { data: { matched: base, limit: 10_000, running: false } })

    for (let i = 0; i < 2; i++) {
      assert.equal((await t.api(key, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    }
    assert.equal((await preview({ since })).json().data.matched, base + 2)
    assert.equal((await preview({ since, event_types: ['order.cancelled'] })).json().data.matched, 0)
    const later = new Date(Date.now() + 60_000).toISOString()
    assert.equal((await preview({ since: later })).json().data.matched, 0, 'nothing after now')

    const stored = await t.db
      .selectFrom('webhook_replays')
      .select('id')
      .where('endpoint_id', '=', id)
      .execute()
    assert.deepEqual(stored, [], 'a preview stores no replay')
    const latest = await client.call('GET', `/webhook-endpoints/${id}/replay?environment=live`)
    assert.deepEqual(latest.json(), { data: { replay: null } })

    const backwards = await preview({ since, until: since })
    assertError(backwards, 422, 'validation_failed')
    assert.match(backwards.body, /until/)
    assertError(await preview({}), 422, 'validation_failed')
    assertError(await preview({ since }, 'test'), 404, 'not_found')
    assertError(
      await stranger.client.call('POST', `/webhook-endpoints/${id}/replay/preview?environment=live`, {
        since,
      }),
      404,
      'not_found',
    )
  })

  test('the delivery log: filters, attempts, redelivery as a new entry for the same event; others get 404', async () => {
    const { client } = developer
    const created = await client.call('POST', '/webhook-endpoints?environment=live', {
      url: 'https://webhook.test/log',
    })
    const endpointId = created.json().data.endpoint.id
    const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
    const orderId = order.json().data.order.id

    const log = await client.call(
      'GET',
      `/webhook-deliveries?environment=live&endpoint_id=${endpointId}&order_id=${orderId}&status=pending`,
    )
    assert.equal(log.statusCode, 200, log.body)
    const [entry, ...rest] = log.json().data
    assert.equal(rest.length, 0)
    assert.equal(entry.event_type, 'order.received')
    assert.equal(
      (
        await client.call(
          'GET',
          `/webhook-deliveries?environment=live&endpoint_id=${endpointId}&status=succeeded`,
        )
      ).json().data.length,
      0,
    )
    assert.deepEqual((await client.call('GET', '/webhook-deliveries')).json().data, [], 'test: nothing')

    const detail = await client.call('GET', `/webhook-deliveries/${entry.id}?environment=live`)
    assert.equal(detail.statusCode, 200, detail.body)
    assert.deepEqual(detail.json().data.attempts, [], 'no attempt yet: no dispatcher runs here')

    assertError(
      await stranger.client.call('GET', `/webhook-deliveries/${entry.id}?environment=live`),
      404,
      'not_found',
    )
    assertError(
      await stranger.client.call('POST', `/webhook-deliveries/${entry.id}/redeliver?environment=live`),
      404,
      'not_found',
    )
    assertError(
      await stranger.client.call('GET', `/webhook-endpoints/${endpointId}?environment=live`),
      404,
      'not_found',
    )
    assertError(
      await stranger.client.call('GET', `/webhook-deliveries?environment=live&endpoint_id=${endpointId}`),
      404,
      'not_found',
    )

    const redelivered = await client.call(
      'POST',
      `/webhook-deliveries/${entry.id}/redeliver?environment=live`,
    )
    assert.equal(redelivered.statusCode, 202, redelivered.body)
    const copy = redelivered.json().data.delivery
    assert.notEqual(copy.id, entry.id)
    assert.equal(copy.event_id, entry.event_id)
    assert.equal(copy.redelivery_of, entry.id)
    const byEvent = await client.call(
      'GET',
      `/webhook-deliveries?environment=live&event_id=${entry.event_id}`,
    )
    assert.deepEqual(
      byEvent.json().data.map((d: { id: string }) => d.id),
      [copy.id, entry.id],
    )
    const audit = (await auditLog(client)).find((e) => e.action === 'webhook_delivery.redelivered')
    assert.ok(audit)
    assert.deepEqual(
      { ...audit.details },
      {
        endpoint_id: endpointId,
        delivery_id: entry.id,
        redelivery_id: copy.id,
        event_id: entry.event_id,
        event_type: 'order.received',
      },
    )
    assert.equal(audit.subject, 'https://webhook.test/log')
  })

  test('an http:// URL from the dashboard: 422 webhook_url_invalid on url, the listen command in the message, nothing stored', async () => {
    const before = await t.db.selectFrom('webhook_endpoints').select('id').execute()
    const refused = assertError(
      await developer.client.call('POST', '/webhook-endpoints?environment=live', {
        url: 'http://localhost:4242/webhooks',
      }),
      422,
      'webhook_url_invalid',
    )
    assert.equal(refused.field, 'url')
    assert.ok(
      refused.message.includes('`npx order-intake listen --forward-to http://localhost:4242/webhooks`'),
      refused.message,
    )
    assert.equal((await t.db.selectFrom('webhook_endpoints').select('id').execute()).length, before.length)
  })

  test('a viewer reads the log but changes nothing (403 role_required)', async () => {
    const viewer = await memberOf(t, orgId, 'viewer')
    assert.equal((await viewer.client.call('GET', '/webhook-endpoints?environment=live')).statusCode, 200)
    assertError(
      await viewer.client.call('POST', '/webhook-endpoints?environment=live', {
        url: 'https://webhook.test/v',
      }),
      403,
      'role_required',
    )
  })
})
