import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { EVENT_TYPES } from '../../src/modules/webhooks/outbox/events.ts'
import { png } from '../fixtures/files.ts'
import { createTestApp, orderBody, PUBLIC_BASE_URL, type TestApp } from '../helpers/app.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../helpers/https-receiver.ts'
import { type Doc, operations, schemaChecker } from '../helpers/openapi.ts'

/**
 * Real answers of the service, one or more for every operation and for the
 * errors integrators meet most, and real webhook deliveries of every event
 * type, each held against what the document says of it.
 */
describe('the OpenAPI document describes what the service really sends', () => {
  let t: TestApp
  let receiver: Receiver
  let doc: Doc
  let check: ReturnType<typeof schemaChecker>
  let liveKey: string
  const seen = new Set<string>()

  before(async () => {
    receiver = await startReceiver()
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    liveKey = (await t.tenant()).liveKey
    await t.startDispatcher({ ca: receiver.ca })
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
    check = schemaChecker(doc)
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  /** The response to `method path` (path as the document writes it) conforms to its operation. */
  function conforms(method: string, path: string, res: LightMyRequestResponse): Doc {
    const op = doc.paths[path]?.[method.toLowerCase()]
    assert.ok(op, `${method} ${path} is documented`)
    const response = op.responses[String(res.statusCode)]
    assert.ok(response, `${op.operationId}: status ${res.statusCode} is documented (${res.body})`)
    const body = res.json()
    assert.equal(check(response.content['application/json'].schema, body), undefined, op.operationId)
    if (res.statusCode >= 400) {
      const codes = Object.keys(response.content['application/json'].examples)
      assert.ok(codes.includes(body.error.code), `${op.operationId}: ${body.error.code} is documented`)
    }
    assert.ok(res.headers['x-request-id'], `${op.operationId}: X-Request-Id`)
    if (op.security.length && res.statusCode !== 401) {
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        assert.match(String(res.headers[name]), /^\d+$/, `${op.operationId} ${res.statusCode}: ${name}`)
      }
    }
    seen.add(`${method.toLowerCase()} ${path}`)
    return body
  }

  async function call(
    key: string | undefined,
    method: InjectOptions['method'],
    url: string,
    path: string,
    payload?: unknown,
  ) {
    const res = await t.api(key, method, url, payload)
    return { res, body: conforms(String(method), path, res) }
  }

  test('every operation, with its usual errors', async () => {
    await call(liveKey, 'GET', '/v1/ping', '/v1/ping')
    await call(undefined, 'GET', '/v1/openapi.json', '/v1/openapi.json')
    await call(undefined, 'GET', '/v1/ping', '/v1/ping')

    const endpoint = (
      await call(liveKey, 'POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
        url: receiver.url('/hook'),
        description: 'documented',
      })
    ).body.data.endpoint
    await call(liveKey, 'POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', { url: 'http://x.test/' })
    await call(liveKey, 'GET', '/v1/webhook-endpoints', '/v1/webhook-endpoints')

    const slot = (await call(liveKey, 'POST', '/v1/uploads', '/v1/uploads', { filename: 'art.png' })).body
      .data
    const putPath = '/v1/uploads/{id}/content'
    const put = await t.app.inject({
      method: 'PUT',
      url: slot.upload_url.slice(PUBLIC_BASE_URL.length),
      payload: png(),
    })
    assert.equal(conforms('PUT', putPath, put).data.size_bytes, png().length)
    // A generated client that sends the file as JSON.
    const asJson = await t.app.inject({
      method: 'PUT',
      url: slot.upload_url.slice(PUBLIC_BASE_URL.length),
      payload: {},
    })
    assert.equal(conforms('PUT', putPath, asJson).error.errors[0].field, 'Content-Type')
    // Another first character of the signature (one that was '0' stays '1').
    const forged = slot.upload_url
      .slice(PUBLIC_BASE_URL.length)
      .replace(/signature=(\w)/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`)
    const refused = await t.app.inject({ method: 'PUT', url: forged, payload: png() })
    assert.equal(conforms('PUT', putPath, refused).error.code, 'upload_url_invalid')

    const body = orderBody({
      items: [{ sku: 'ART', name: 'Print', quantity: 1, files: [{ upload_id: slot.upload_id }] }],
    })
    const created = await call(liveKey, 'POST', '/v1/orders', '/v1/orders', body)
    assert.equal(created.res.statusCode, 201)
    assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', body)).res.statusCode, 200)
    const changed = { ...body, currency: 'USD' }
    assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', changed)).res.statusCode, 409)
    const invalid = { ...body, external_id: 'x', items: [] }
    assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', invalid)).res.statusCode, 422)
    assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', '{"oops')).res.statusCode, 400)
    const order = created.body.data.order

    await call(liveKey, 'GET', '/v1/orders?limit=1', '/v1/orders')
    await call(liveKey, 'GET', '/v1/orders?limit=1000', '/v1/orders')
    await call(liveKey, 'GET', `/v1/orders/${order.id}`, '/v1/orders/{id}')
    await call(liveKey, 'GET', `/v1/orders/${randomUUID()}`, '/v1/orders/{id}')
    const { orgId } = await t.tenant('scoped')
    const readOnly = (await t.createKey(orgId, { environment: 'live', scopes: ['orders:read'] })).key
    assert.equal(
      (await call(readOnly, 'POST', '/v1/uploads', '/v1/uploads', { filename: 'a' })).res.statusCode,
      403,
    )

    await call(
      liveKey,
      'POST',
      `/v1/webhook-endpoints/${endpoint.id}/test`,
      '/v1/webhook-endpoints/{id}/test',
    )
    await receiver.waitFor(2)
    const patchPath = '/v1/webhook-endpoints/{id}'
    const patched = await call(liveKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, patchPath, {
      enabled_events: ['order.received'],
    })
    assert.deepEqual(patched.body.data.endpoint.enabled_events, ['order.received'])
    const moved = await call(liveKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, patchPath, {
      url: 'https://x.test/',
    })
    assert.equal(moved.body.error.code, 'validation_failed')
    const log = await call(
      liveKey,
      'GET',
      `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`,
      '/v1/webhook-deliveries',
    )
    await call(liveKey, 'GET', '/v1/webhook-deliveries?status=done', '/v1/webhook-deliveries')
    const entryPath = '/v1/webhook-deliveries/{id}'
    await call(liveKey, 'GET', `/v1/webhook-deliveries/${log.body.data[0].id}`, entryPath)
    await call(liveKey, 'GET', `/v1/webhook-deliveries/${randomUUID()}`, entryPath)
    const rotate = `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`
    const rotatePath = '/v1/webhook-endpoints/{id}/rotate-secret'
    await call(liveKey, 'POST', rotate, rotatePath, { grace_period_seconds: 60 })
    await call(liveKey, 'POST', rotate, rotatePath)
    await call(liveKey, 'POST', rotate, rotatePath, { grace_period_seconds: 604_801 })
    await call(liveKey, 'POST', `/v1/webhook-endpoints/${randomUUID()}/rotate-secret`, rotatePath)
    const redeliver = '/v1/webhook-deliveries/{id}/redeliver'
    await call(liveKey, 'POST', `/v1/webhook-deliveries/${log.body.data[0].id}/redeliver`, redeliver)
    await call(liveKey, 'POST', `/v1/webhook-deliveries/${randomUUID()}/redeliver`, redeliver)
    const replay = '/v1/webhook-endpoints/{id}/replay'
    const replayPath = `/v1/webhook-endpoints/${endpoint.id}/replay`
    await call(liveKey, 'GET', replayPath, replay)
    await call(liveKey, 'POST', replayPath, replay, { since: 'yesterday' })
    await call(liveKey, 'POST', replayPath, replay, { since: new Date(Date.now() - 60_000).toISOString() })
    await call(liveKey, 'POST', replayPath, replay, { since: new Date(Date.now() - 60_000).toISOString() })
    await call(liveKey, 'GET', replayPath, replay)
    await call(liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, '/v1/webhook-endpoints/{id}')
    await call(liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, '/v1/webhook-endpoints/{id}')
    assert.equal((await call(liveKey, 'POST', rotate, rotatePath)).res.statusCode, 422)

    await listenOperations()
    const all = operations(doc).map(({ method, path }) => `${method} ${path}`)
    assert.deepEqual([...seen].sort(), all.sort(), 'every operation was called')
  })

  /** The listen stream (its opening, then closed) and the trigger of samples. */
  async function listenOperations() {
    const streamPath = '/v1/webhook-events/stream'
    const { testKey } = await t.tenant('listen')
    await call(testKey, 'GET', '/v1/webhook-events/stream?events=order.shipped', streamPath)
    const open = await t.app.inject({
      method: 'GET',
      url: streamPath,
      headers: { authorization: `Bearer ${testKey}` },
      payloadAsStream: true,
    })
    const stream = open.stream()
    const first = String(await new Promise((resolve) => stream.once('data', resolve)))
    stream.destroy()
    const op = doc.paths[streamPath].get
    assert.equal(open.statusCode, 200)
    assert.match(String(open.headers['content-type']), /^text\/event-stream/)
    // The first message, as an SSE parser hands it over, is one the document describes.
    const [, event, data] = /^event: (\w+)\ndata: (.+)\n\n/.exec(first) ?? []
    const message = { event, data: JSON.parse(data ?? 'null') }
    assert.deepEqual(message, { event: 'ready', data: { environment: 'test', events: null } })
    const media = op.responses['200'].content['text/event-stream']
    assert.equal(check(media.schema, message), undefined, 'the ready message matches ListenMessage')
    assert.match(String(check(media.schema, { ...message, data: 'text' })), /anyOf/, 'and can fail')
    seen.add(`get ${streamPath}`)
    const trigger = '/v1/webhook-events/trigger'
    const sent = await call(testKey, 'POST', trigger, trigger, { type: 'order.received' })
    assert.equal(sent.res.statusCode, 202)
    const live = await call(liveKey, 'POST', trigger, trigger, { type: 'order.received' })
    assert.equal(live.body.error.code, 'test_key_required')
  }

  test('every event type, as delivered, matches its webhooks entry', async () => {
    const { liveKey: key, orgId } = await t.tenant('events')
    const hook = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: receiver.url('/events') })
    assert.equal(hook.statusCode, 201, hook.body)
    const admin = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const res = await t.admin(method, url, payload)
      assert.ok(res.statusCode < 300, res.body)
      return res.json().data
    }
    const newOrder = async () => {
      const res = await t.api(key, 'POST', '/v1/orders', orderBody())
      assert.equal(res.statusCode, 201, res.body)
      return (await admin('GET', `/admin/v1/orders/${res.json().data.order.id}`)).order
    }
    const a = await newOrder()
    await admin('POST', `/admin/v1/production-orders/${a.production_order.id}/status`, {
      status: 'in_progress',
    })
    await admin('POST', `/admin/v1/production-jobs/${a.items[0].production_job.id}/complete`)
    await admin('POST', `/admin/v1/production-orders/${a.production_order.id}/status`, {
      status: 'completed',
    })
    const b = await newOrder()
    await admin('POST', `/admin/v1/production-orders/${b.production_order.id}/partner`, {
      produced_by_partner: true,
    })
    await admin('POST', `/admin/v1/production-orders/${b.production_order.id}/status`, { status: 'failed' })
    const c = await newOrder()
    await admin('POST', `/admin/v1/orders/${c.id}/cancel`)
    const d = await newOrder()
    const member = await memberOf(t, orgId, 'developer')
    const changed = await member.client.call('POST', `/orders/${d.id}/changes`, {
      expected_updated_at: d.updated_at,
      customer: { name: 'Changed in the dashboard' },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    await t.api(key, 'POST', `/v1/webhook-endpoints/${hook.json().data.endpoint.id}/test`)
    // 4 order.received, started, item completed, completed, failed, cancelled, updated, ping; waited for
    // by type, as delivery is at least once (a slow machine can see an attempt taken twice).
    const delivered = () => receiver.received.filter((r) => r.url === '/events')
    const typesArrived = () => new Set(delivered().map((r) => JSON.parse(r.body.toString('utf8')).type)).size
    for (let waited = 0; typesArrived() < EVENT_TYPES.length; waited += 50) {
      assert.ok(waited < 20_000, `${typesArrived()} of ${EVENT_TYPES.length} event types arrived`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    const types = new Set<string>()
    for (const req of delivered()) {
      const body = JSON.parse(req.body.toString('utf8'))
      const op = doc.webhooks[body.type]?.post
      assert.ok(op, `${body.type} is documented`)
      assert.equal(check(op.requestBody.content['application/json'].schema, body), undefined, body.type)
      for (const p of op.parameters) {
        const value = req.headers[p.name.toLowerCase()]
        assert.ok(value, `${body.type}: header ${p.name}`)
        assert.equal(check(p.schema, value), undefined, `${body.type}: ${p.name} ${value}`)
      }
      assert.equal(req.headers['x-service-event-id'], body.id)
      types.add(body.type)
    }
    assert.deepEqual([...types].sort(), [...EVENT_TYPES].sort())
  })
})
