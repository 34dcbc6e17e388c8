import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { SECRET_ROTATED } from '../../../src/modules/webhooks/deliveries/delivered-headers.ts'
import { signatureHeader, standardSignatureHeader } from '../../../src/modules/webhooks/worker/signing.ts'
import { createTestApp, orderBody, rowCounts, type TestApp, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import { type Doc, schemaChecker } from '../../helpers/openapi.ts'
import { waitUntil } from '../../helpers/wait.ts'

describe('endpoints and the delivery log', () => {
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
      assert.deepEqual(
        (await client.call('GET', '/webhook-endpoints')).json().data,
        [],
        'test is another list',
      )
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
      const backwards = await client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/replay?environment=live`,
        {
          since,
          until: since,
        },
      )
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
        refused.message.includes(
          '`npx order-intake listen --base-url http://api.test --forward-to http://localhost:4242/webhooks`',
        ),
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
})

describe('delivered payloads and sample events', () => {
  /**
   * The dashboard's view of what a delivery sent (its event body and each
   * attempt's headers, rebuilt at read time) against what a local receiver got,
   * and "Send a sample event" to one endpoint.
   */
  type Received = Receiver['received'][number]
  const SENT_HEADERS = [
    'content-type',
    'user-agent',
    'x-service-event-id',
    'x-service-event-type',
    'x-service-signature',
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
  ]
  const sentHeaders = (req: Received) =>
    Object.fromEntries(SENT_HEADERS.map((name) => [name, String(req.headers[name])]))

  interface Payload {
    event: { id: string; type: string; created_at: string; body: string }
    attempts: {
      attempt: number
      started_at: string
      signature_timestamp: number | null
      headers: Record<string, string> | null
      hidden_headers: string[]
      note: string | null
    }[]
  }

  const SIGNATURES = ['x-service-signature', 'webhook-signature']

  describe('dashboard: delivered payloads and sample events', () => {
    let t: TestApp
    let receiver: Receiver
    let doc: Doc
    let orgId: string
    let liveKey: string
    let owner: Awaited<ReturnType<typeof memberOf>>
    let developer: Awaited<ReturnType<typeof memberOf>>
    let viewer: Awaited<ReturnType<typeof memberOf>>
    let stranger: Awaited<ReturnType<typeof memberOf>>

    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
      await t.startDispatcher({ ca: receiver.ca })
      doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
      orgId = (await t.createOrganization('Payload Org')).id
      liveKey = (await t.createKey(orgId, { environment: 'live' })).key
      owner = await memberOf(t, orgId, 'owner')
      developer = await memberOf(t, orgId, 'developer')
      viewer = await memberOf(t, orgId, 'viewer')
      stranger = await memberOf(t, (await t.createOrganization('Payload Stranger')).id, 'owner')
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    async function createEndpoint(env: 'test' | 'live', path: string, enabled_events?: string[]) {
      const res = await developer.client.call('POST', `/webhook-endpoints?environment=${env}`, {
        url: receiver.url(path),
        ...(enabled_events ? { enabled_events } : {}),
      })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().data as { endpoint: { id: string }; secret: string }
    }
    const arrived = (path: string, eventId: string) =>
      waitUntil(
        () => receiver.received.find((r) => r.url === path && r.headers['x-service-event-id'] === eventId),
        `${eventId} to arrive at ${path}`,
      )
    async function payload(env: string, deliveryId: string, client = developer.client): Promise<Payload> {
      const res = await client.call('GET', `/webhook-deliveries/${deliveryId}/payload?environment=${env}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data
    }
    async function onlyDelivery(env: string, endpointId: string) {
      const log = await developer.client.call(
        'GET',
        `/webhook-deliveries?environment=${env}&endpoint_id=${endpointId}`,
      )
      assert.equal(log.statusCode, 200, log.body)
      return log.json().data as { id: string; event_id: string; event_type: string; status: string }[]
    }
    const settled = (env: string, endpointId: string) =>
      waitUntil(async () => {
        const entries = await onlyDelivery(env, endpointId)
        return entries.every((d) => d.status === 'succeeded') && entries.length > 0 && entries
      }, 'the deliveries to be recorded')

    test("an order's delivery: the body and headers the receiver got, the signatures for owners and developers only; another organization's is 404", async () => {
      const { endpoint, secret } = await createEndpoint('live', '/orders')
      const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201, order.body)
      const [entry] = await settled('live', endpoint.id)
      const got = await arrived('/orders', entry!.event_id)

      const seen = await payload('live', entry!.id)
      assert.equal(seen.event.body, got.body.toString('utf8'), 'the exact bytes sent')
      assert.equal(seen.event.type, 'order.received')
      assert.equal(seen.attempts.length, 1)
      const [attempt] = seen.attempts
      assert.deepEqual(attempt!.headers, sentHeaders(got))
      assert.equal(attempt!.signature_timestamp, Number(got.headers['webhook-timestamp']))
      assert.equal(attempt!.note, null)
      assert.deepEqual(attempt!.hidden_headers, [])
      // The rebuilt signatures verify with the endpoint's secret, as the received ones do.
      const t0 = attempt!.signature_timestamp!
      assert.equal(attempt!.headers!['x-service-signature'], signatureHeader(secret, seen.event.body, t0))
      assert.ok(!JSON.stringify(seen).includes(secret), 'never the secret')

      assert.deepEqual(await payload('live', entry!.id, owner.client), seen, 'an owner sees the same')
      // A viewer: everything but the signatures, which are named as hidden.
      const viewed = await payload('live', entry!.id, viewer.client)
      const unsigned = Object.fromEntries(
        Object.entries(sentHeaders(got)).filter(([name]) => !SIGNATURES.includes(name)),
      )
      assert.deepEqual(viewed, {
        ...seen,
        attempts: [{ ...attempt!, headers: unsigned, hidden_headers: SIGNATURES }],
      })
      for (const name of SIGNATURES) {
        const v1s = String(got.headers[name]).match(/v1[=,]([^,\s]+)/g)!
        for (const v1 of v1s)
          assert.ok(!JSON.stringify(viewed).includes(v1), `${name}: ${v1} not shown to a viewer`)
      }
      assertError(
        await stranger.client.call('GET', `/webhook-deliveries/${entry!.id}/payload?environment=live`),
        404,
        'not_found',
      )
      assertError(
        await developer.client.call('GET', `/webhook-deliveries/${entry!.id}/payload?environment=test`),
        404,
        'not_found',
      )
      assertError(
        await developer.client.call('GET', '/webhook-deliveries/not-an-id/payload?environment=live'),
        404,
        'not_found',
      )
    })

    test('a receiver answering with the headers it got: viewers read its answer without the signatures', async () => {
      receiver.setHandler((req) =>
        req.url === '/echo'
          ? { status: 200, body: JSON.stringify({ headers: req.headers }) }
          : { status: 200 },
      )
      const { endpoint } = await createEndpoint('live', '/echo')
      const sent = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/sample?environment=live`,
        {
          type: 'order.received',
        },
      )
      assert.equal(sent.statusCode, 202, sent.body)
      const got = await arrived('/echo', sent.json().data.event_id)
      const [entry] = await settled('live', endpoint.id)
      const snippet = async (client: typeof developer.client) => {
        const res = await client.call('GET', `/webhook-deliveries/${entry!.id}?environment=live`)
        assert.equal(res.statusCode, 200, res.body)
        return res.json().data.attempts[0].response_snippet as string
      }
      const answered = JSON.stringify({ headers: got.headers })
      assert.equal(
        await snippet(developer.client),
        answered.slice(0, 1024),
        'developers read the answer as sent',
      )
      const viewed = await snippet(viewer.client)
      const [, hex] = String(got.headers['x-service-signature']).match(/v1=([0-9a-f]{64})/)!
      const [, base64] = String(got.headers['webhook-signature']).match(/^v1,(\S{44})/)!
      assert.ok(!viewed.includes(hex!) && !viewed.includes(base64!), viewed)
      assert.ok(viewed.includes(`"webhook-id":"${got.headers['webhook-id']}"`), 'the rest as sent')
      assert.match(viewed, /v1=hidden/)
      assert.match(viewed, /v1,hidden/)
    })

    test('a sample event: built like a real one, marked sample, to one endpoint only, logged and audited; no order', async () => {
      const { endpoint, secret } = await createEndpoint('live', '/sample', [
        'order.production_started',
        'order_item.completed',
      ])
      const other = await createEndpoint('live', '/other')
      const before = await rowCounts(t.db)
      const statistics = () =>
        sql<{ counters: number; stats: number; changes: number }>`select
        (select count(*)::int from order_event_counters) as counters,
        (select count(*)::int from order_daily_stats) as stats,
        (select count(*)::int from order_changes) as changes`.execute(t.db)
      const counted = (await statistics()).rows

      const sent = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/sample?environment=live`,
        {
          type: 'order.production_started',
        },
      )
      assert.equal(sent.statusCode, 202, sent.body)
      const { event_id: eventId } = sent.json().data
      // The endpoint is not failing: the sample goes at once.
      assert.deepEqual(sent.json().data, {
        queued: true,
        event_id: eventId,
        type: 'order.production_started',
        endpoint_next_probe_at: null,
      })

      const got = await arrived('/sample', eventId)
      const body = JSON.parse(got.body.toString('utf8'))
      assert.equal(body.type, 'order.production_started')
      assert.equal(body.data.sample, true)
      assert.equal(body.data.external_order_id, 'SAMPLE-1001')
      assert.equal(body.data.production_status, 'in_progress')
      assert.equal(Object.keys(body.data).at(-1), 'sequence', "an order event's data ends with its sequence")
      const check = schemaChecker(doc)
      const schema =
        doc.webhooks['order.production_started'].post.requestBody.content['application/json'].schema
      assert.equal(check(schema, body), undefined, 'valid against the documented event')
      assert.ok(
        doc.components.schemas.OrderProductionStartedData.properties.sample,
        '`sample` is documented on the data',
      )
      // Signed like any delivery.
      assert.equal(
        got.headers['x-service-signature'],
        signatureHeader(secret, got.body.toString('utf8'), Number(got.headers['webhook-timestamp'])),
      )

      const [entry] = await settled('live', endpoint.id)
      assert.equal(entry!.event_id, eventId)
      assert.deepEqual(await onlyDelivery('live', other.endpoint.id), [], 'no other endpoint got it')
      assert.ok(!receiver.received.some((r) => r.url === '/other'))
      const seen = await payload('live', entry!.id)
      assert.equal(seen.event.body, got.body.toString('utf8'))
      assert.deepEqual(seen.attempts[0]!.headers, sentHeaders(got))

      const after = await rowCounts(t.db)
      assert.deepEqual(
        after,
        { ...before, events: before.events! + 1 },
        'one event, no order or production row',
      )
      assert.deepEqual((await statistics()).rows, counted, 'no order counter, statistic or change')

      const audit = await developer.client.call('GET', '/audit-log?limit=100')
      const entryAudit = audit
        .json()
        .data.find((e: { action: string }) => e.action === 'webhook_endpoint.sample_sent')
      assert.ok(entryAudit, 'audited')
      assert.deepEqual(entryAudit.details, {
        endpoint_id: endpoint.id,
        event_id: eventId,
        event_type: 'order.production_started',
      })
      assert.equal(entryAudit.actor, developer.email)

      // A replay of the endpoint never sends a sample again.
      const preview = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/replay/preview?environment=live`,
        { since: new Date(Date.now() - 3600_000).toISOString() },
      )
      assert.equal(preview.statusCode, 200, preview.body)
      assert.equal(preview.json().data.matched, 0)
    })

    test('a sample to a test endpoint, of a type the endpoint does not take, of no known type, or to a deleted endpoint is 422; viewers 403; strangers 404; nothing sent', async () => {
      const { endpoint } = await createEndpoint('live', '/picky', ['order.cancelled'])
      const events = async () => (await rowCounts(t.db)).events
      const before = await events()
      const url = `/webhook-endpoints/${endpoint.id}/sample?environment=live`
      const wrong = await developer.client.call('POST', url, { type: 'order.received' })
      assertError(wrong, 422, 'validation_failed')
      assert.equal(wrong.json().error.errors[0].field, 'type')
      assert.match(wrong.json().error.errors[0].message, /"order\.cancelled"/)
      assertError(await developer.client.call('POST', url, { type: 'order.nope' }), 422, 'validation_failed')
      assertError(await developer.client.call('POST', url, { type: 'ping' }), 422, 'validation_failed')
      assertError(await viewer.client.call('POST', url, { type: 'order.cancelled' }), 403, 'role_required')
      assertError(await stranger.client.call('POST', url, { type: 'order.cancelled' }), 404, 'not_found')
      assertError(
        await developer.client.call('POST', `/webhook-endpoints/${endpoint.id}/sample?environment=test`, {
          type: 'order.cancelled',
        }),
        404,
        'not_found',
      )
      const deleted = await developer.client.call(
        'DELETE',
        `/webhook-endpoints/${endpoint.id}?environment=live`,
      )
      assert.equal(deleted.statusCode, 200, deleted.body)
      assertError(
        await developer.client.call('POST', url, { type: 'order.cancelled' }),
        422,
        'validation_failed',
      )
      const testEndpoint = (await createEndpoint('test', '/test-mode')).endpoint
      const refused = await developer.client.call(
        'POST',
        `/webhook-endpoints/${testEndpoint.id}/sample?environment=test`,
        { type: 'order.received' },
      )
      assertError(refused, 422, 'validation_failed')
      assert.match(
        refused.json().error.errors[0].message,
        /Test endpoints receive ping events only.*listen and trigger/,
      )
      assert.equal(await events(), before, 'no event written')
      assert.ok(!receiver.received.some((r) => r.url === '/test-mode'))
      assert.ok(!receiver.received.some((r) => r.url === '/picky'))
    })

    test('after a rotation the signatures are not rebuilt with the new secret; later attempts show both v1s of the grace period', async () => {
      const { endpoint, secret: old } = await createEndpoint('live', '/rotating')
      const sample = (type: string) =>
        developer.client.call('POST', `/webhook-endpoints/${endpoint.id}/sample?environment=live`, { type })
      const first = (await sample('order.received')).json().data.event_id
      const [before] = await settled('live', endpoint.id)
      await arrived('/rotating', first)

      const rotated = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/rotate-secret?environment=live`,
        { grace_period_seconds: 3600 },
      )
      assert.equal(rotated.statusCode, 200, rotated.body)
      const secret = rotated.json().data.secret
      const earlier = await payload('live', before!.id)
      const headers = earlier.attempts[0]!.headers!
      assert.equal(earlier.attempts[0]!.note, SECRET_ROTATED)
      assert.equal(headers['x-service-signature'], undefined, 'no signature made with the wrong secret')
      assert.equal(headers['webhook-signature'], undefined)
      assert.equal(headers['webhook-timestamp'], String(earlier.attempts[0]!.signature_timestamp))
      assert.deepEqual(earlier.attempts[0]!.hidden_headers, [])
      assert.deepEqual(
        await payload('live', before!.id, viewer.client),
        earlier,
        'shown to no one: the same note',
      )

      // The rotation as if it were 20 minutes old: the worker signs with both secrets now.
      await sql`update webhook_endpoints set secret_changed_at = now() - interval '20 minutes' where id = ${endpoint.id}::uuid`.execute(
        t.db,
      )
      const second = (await sample('order.received')).json().data.event_id
      const got = await arrived('/rotating', second)
      const entry = (await settled('live', endpoint.id)).find((d) => d.event_id === second)!
      const seen = await payload('live', entry.id)
      assert.equal(seen.attempts[0]!.note, null)
      assert.deepEqual(seen.attempts[0]!.headers, sentHeaders(got))
      const viewed = (await payload('live', entry.id, viewer.client)).attempts[0]!
      assert.deepEqual(viewed.hidden_headers, SIGNATURES)
      assert.equal(viewed.headers!['x-service-signature'], undefined)
      assert.equal(viewed.headers!['webhook-signature'], undefined)
      const t0 = seen.attempts[0]!.signature_timestamp!
      assert.equal(
        seen.attempts[0]!.headers!['x-service-signature'],
        signatureHeader(secret, seen.event.body, t0, old),
      )
      assert.equal(
        seen.attempts[0]!.headers!['webhook-signature'],
        standardSignatureHeader(secret, second, seen.event.body, t0, old),
      )
    })
  })
})
