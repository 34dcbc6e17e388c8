import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import {
  activeCount,
  createEndpoint,
  DELIVERY_KEYS,
  type Delivery,
  ISO_MS,
  listDeliveries,
  listEndpoints,
  sleep,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

describe('deliveries to a local HTTPS receiver', () => {
  let t: TestApp
  let receiver: Receiver
  const LONG_BODY = Array.from({ length: 3000 }, (_, n) => (n % 10 === 0 ? 'ü' : String(n % 10))).join('')
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    receiver = await startReceiver((req) => {
      if (req.url.startsWith('/long')) return { status: 200, body: LONG_BODY }
      if (req.url.startsWith('/fail')) return { status: 500, body: 'nope' }
      return { status: 200 }
    })
    await t.startDispatcher({ ca: receiver.ca, retryDelaysMs: [10] })
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  const at = (path: string) => receiver.received.filter((r) => r.url === path)
  const envelopeOf = (r: { body: Buffer }) => JSON.parse(r.body.toString('utf8'))

  /** Waits until no delivery of the organization is pending. */
  async function settle(orgId: string) {
    const deadline = Date.now() + 10_000
    for (;;) {
      const rows = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('organization_id', '=', orgId)
        .where('status', '=', 'pending')
        .execute()
      if (rows.length === 0) return
      if (Date.now() > deadline) throw new Error(`${rows.length} deliveries still pending`)
      await sleep(20)
    }
  }

  async function ping(key: string, endpointId: string) {
    const res = await t.api(key, 'POST', `/v1/webhook-endpoints/${endpointId}/test`)
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { data: { queued: true } })
  }

  test('the test operation delivers a signed ping with only a message, to that endpoint only', async () => {
    const org = await t.tenant('Ping')
    const target = await createEndpoint(t, org.liveKey, receiver.url('/ping-target'))
    await createEndpoint(t, org.liveKey, receiver.url('/ping-bystander'))
    await ping(org.liveKey, target.endpoint.id)
    await settle(org.orgId)

    const got = at('/ping-target')
    assert.equal(got.length, 1)
    assert.equal(at('/ping-bystander').length, 0)
    const req = got[0]!
    const envelope = envelopeOf(req)
    assert.deepEqual(Object.keys(envelope).sort(), ['api_version', 'created_at', 'data', 'id', 'type'])
    assert.equal(envelope.type, 'ping')
    assert.equal(envelope.api_version, 'v1')
    assert.match(envelope.created_at, ISO_MS)
    assert.deepEqual(Object.keys(envelope.data), ['message'])
    assert.equal(typeof envelope.data.message, 'string')
    assert.ok(envelope.data.message.length > 0)
    assert.equal(req.method, 'POST')
    assert.equal(req.headers['x-service-event-id'], envelope.id)
    assert.equal(req.headers['x-service-event-type'], 'ping')
    assert.equal(req.headers['user-agent'], 'Service-Webhooks/1.0')
    assert.equal(String(req.headers['content-type']).split(';')[0], 'application/json')
    assert.equal(req.headers.host, `webhook.test:${receiver.port}`)

    // Signed with the secret returned at creation, over the raw bytes.
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-service-signature']))
    assert.ok(match, String(req.headers['x-service-signature']))
    const expected = createHmac('sha256', target.secret)
      .update(Buffer.concat([Buffer.from(`${match[1]}.`), req.body]))
      .digest()
    assert.ok(timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')))
    assert.ok(Math.abs(Number(match[1]) - Date.now() / 1000) < 300)

    const event = await t.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', envelope.id)
      .executeTakeFirstOrThrow()
    assert.equal(event.created_at.toISOString(), envelope.created_at)
    assert.deepEqual(event.data, envelope.data)

    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.event_id, envelope.id)
    assert.equal(delivery!.endpoint_id, target.endpoint.id)
    assert.equal(delivery!.event_type, 'ping')
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.attempts, 1)
    assert.equal(delivery!.next_attempt_at, null)
    assert.match(delivery!.last_attempt_at!, ISO_MS)
    assert.equal(delivery!.response_status, 200)
    assert.equal(delivery!.response_snippet, null)
    assert.equal(delivery!.error_code, null)
    const listed = (await listEndpoints(t, org.liveKey)).find((e) => e.id === target.endpoint.id)!
    assert.equal(listed.consecutive_failures, 0)
    assert.match(listed.last_success_at!, ISO_MS)
    assert.equal(listed.last_failure_at, null)
  })

  test('response_snippet holds the first 1024 characters of the response body', async () => {
    const org = await t.tenant('Snippet')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/long'))
    await ping(org.liveKey, endpoint.id)
    await settle(org.orgId)
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.response_status, 200)
    assert.equal(delivery!.response_snippet, LONG_BODY.slice(0, 1024))
  })

  test('a receiver answering 500: retried, then failed with http_error; next_attempt_at null', async () => {
    const org = await t.tenant('Failing')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/fail-once'))
    await ping(org.liveKey, endpoint.id)
    await settle(org.orgId)
    assert.equal(at('/fail-once').length, 2)
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.status, 'failed')
    assert.equal(delivery!.attempts, 2)
    assert.equal(delivery!.error_code, 'http_error')
    assert.equal(delivery!.response_status, 500)
    assert.equal(delivery!.response_snippet, 'nope')
    assert.equal(delivery!.next_attempt_at, null)
    assert.match(delivery!.last_attempt_at!, ISO_MS)
    const listed = (await listEndpoints(t, org.liveKey))[0]!
    assert.equal(listed.consecutive_failures, 2)
    assert.match(listed.last_failure_at!, ISO_MS)
    assert.equal(listed.is_active, true)
  })

  test('an endpoint disabled after 25 failures is listed inactive and refuses the test operation', async () => {
    const org = await t.tenant('Disabled')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/fail-always'))
    // Two attempts per ping (one retry): the 13th ping's first attempt is the 25th failure.
    for (let n = 0; n < 13; n++) {
      await ping(org.liveKey, endpoint.id)
      await settle(org.orgId)
    }
    assert.equal(at('/fail-always').length, 25)
    const listed = (await listEndpoints(t, org.liveKey))[0]!
    assert.equal(listed.id, endpoint.id)
    assert.equal(listed.is_active, false)
    assert.equal(listed.disabled_reason, 'too_many_failures')
    assert.equal(listed.consecutive_failures, 25)
    const [last] = await listDeliveries(t, org.liveKey)
    assert.equal(last!.status, 'failed')
    assert.equal(last!.error_code, 'endpoint_disabled')
    assert.equal(last!.next_attempt_at, null)
    assertError(
      await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`),
      422,
      'validation_failed',
    )
    // Its place is free again.
    assert.equal(await activeCount(t, org.orgId, 'live'), 0)
  })

  test('test endpoints receive pings only; order events reach only live endpoints of the order’s organization', async () => {
    const org = await t.tenant('Environments')
    const other = await t.tenant('Bystander')
    const testEp = await createEndpoint(t, org.testKey, receiver.url('/env-test'))
    const liveEp = await createEndpoint(t, org.liveKey, receiver.url('/env-live'))
    await createEndpoint(t, other.liveKey, receiver.url('/env-other'))

    const liveOrder = await t.api(org.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(liveOrder.statusCode, 201)
    const testOrder = await t.api(org.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(testOrder.statusCode, 201)
    await ping(org.testKey, testEp.endpoint.id)
    await settle(org.orgId)
    await settle(other.orgId)

    assert.deepEqual(
      at('/env-test').map((r) => envelopeOf(r).type),
      ['ping'],
    )
    const live = at('/env-live').map(envelopeOf)
    assert.deepEqual(
      live.map((e) => [e.type, e.data.order_id]),
      [['order.received', liveOrder.json().data.order.id]],
    )
    assert.equal(at('/env-other').length, 0)
    assert.deepEqual(
      await t.db
        .selectFrom('events')
        .select('type')
        .where('organization_id', '=', org.orgId)
        .where('environment', '=', 'test')
        .execute(),
      [{ type: 'ping' }],
    )
    assert.deepEqual(
      (await listDeliveries(t, org.testKey)).map((d) => [d.endpoint_id, d.event_type, d.status]),
      [[testEp.endpoint.id, 'ping', 'succeeded']],
    )
    assert.deepEqual(
      (await listDeliveries(t, org.liveKey)).map((d) => [d.endpoint_id, d.event_type, d.status]),
      [[liveEp.endpoint.id, 'order.received', 'succeeded']],
    )
    assert.deepEqual(await listDeliveries(t, other.liveKey), [])
  })

  test('operator: the delivery log across organizations and a manual redelivery of the same event', async () => {
    const org = await t.tenant('Redeliver')
    const other = await t.tenant('Redeliver other')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/redeliver'))
    const second = await createEndpoint(t, org.liveKey, receiver.url('/redeliver-2'))
    const theirs = await createEndpoint(t, other.liveKey, receiver.url('/redeliver-other'))
    await ping(org.liveKey, endpoint.id)
    await ping(org.liveKey, second.endpoint.id)
    await ping(other.liveKey, theirs.endpoint.id)
    await settle(org.orgId)
    await settle(other.orgId)

    const list = await t.admin('GET', `/admin/v1/webhook-deliveries?organization_id=${org.orgId}`)
    assert.equal(list.statusCode, 200, list.body)
    const entries = list.json().data as (Delivery & { organization_id?: string })[]
    assert.equal(entries.length, 2)
    for (const e of entries) {
      for (const key of DELIVERY_KEYS) assert.ok(key in e, key)
      if ('organization_id' in e) assert.equal(e.organization_id, org.orgId)
    }
    assert.deepEqual(entries.map((e) => e.endpoint_id).sort(), [endpoint.id, second.endpoint.id].sort())
    const byEndpoint = await t.admin('GET', `/admin/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.equal(byEndpoint.statusCode, 200)
    const [original] = byEndpoint.json().data as Delivery[]
    assert.equal(byEndpoint.json().data.length, 1)
    assert.equal(original!.status, 'succeeded')
    const limited = await t.admin('GET', '/admin/v1/webhook-deliveries?limit=1')
    assert.equal(limited.statusCode, 200)
    assert.equal(limited.json().data.length, 1)

    const res = await t.admin('POST', `/admin/v1/webhook-deliveries/${original!.id}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    const redelivery = res.json().data.delivery as Delivery
    assert.notEqual(redelivery.id, original!.id)
    assert.equal(redelivery.event_id, original!.event_id)
    assert.equal(redelivery.endpoint_id, endpoint.id)
    assert.equal(redelivery.event_type, 'ping')
    assert.equal(redelivery.status, 'pending')
    assert.equal(redelivery.attempts, 0)
    await settle(org.orgId)

    const got = at('/redeliver')
    assert.equal(got.length, 2)
    assert.equal(got[0]!.headers['x-service-event-id'], original!.event_id)
    assert.equal(got[1]!.headers['x-service-event-id'], original!.event_id)
    assert.equal(got[1]!.body.toString('utf8'), got[0]!.body.toString('utf8'))
    assert.equal(at('/redeliver-2').length, 1)

    const log = await listDeliveries(t, org.liveKey, `?endpoint_id=${endpoint.id}`)
    assert.deepEqual(
      log.map((d) => [d.id, d.event_id, d.status, d.attempts]),
      [
        [redelivery.id, original!.event_id, 'succeeded', 1],
        [original!.id, original!.event_id, 'succeeded', 1],
      ],
    )

    assertError(
      await t.admin('POST', `/admin/v1/webhook-deliveries/${UNKNOWN_ID}/redeliver`),
      404,
      'not_found',
    )
  })
})
