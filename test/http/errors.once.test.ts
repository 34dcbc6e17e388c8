import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { DEFAULT_BODY_LIMIT, ORDER_BODY_LIMIT } from '../../src/http/json-body.ts'
import { MAX_UPLOAD_BYTES } from '../../src/modules/uploads/storage/storage.ts'
import { MAX_ACTIVE_ENDPOINTS } from '../../src/modules/webhooks/webhooks.service.ts'
import { createTestApp, orderBody, rowCounts, type TestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/errors.ts'
import { createEndpoint, endpointRows, UNKNOWN_ID } from '../helpers/webhook-endpoints.ts'

describe('answers to mistakes', () => {
  /** Answers to a new integrator's mistakes say what to do, in the reference's error shape. */

  function error(res: LightMyRequestResponse, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['error'])
    assert.equal(body.error.code, code)
    assert.equal(body.error.doc_url, `http://api.test/developers/errors/${code}`)
    return body.error as {
      message: string
      field?: string
      errors?: { code: string; field: string; message: string }[]
    }
  }

  const entry = (res: LightMyRequestResponse, field: string) =>
    error(res, 422, 'validation_failed').errors!.find((e) => e.field === field)!

  const page = async (t: TestApp, code: string) =>
    (await t.app.inject({ method: 'GET', url: `/developers/errors/${code}` })).body
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')

  describe('answers to mistakes', () => {
    let t: TestApp
    let key: string
    let orgId: string
    before(async () => {
      t = await createTestApp()
      ;({ testKey: key, orgId } = await t.tenant())
    })
    after(() => t.close())

    test('malformed JSON: the message says what was found and where, and nothing is stored', async () => {
      const counts = await rowCounts(t.db)
      const cases: [string, string][] = [
        [
          '{\n  "external_order_id": "A-1",\n  "items": }',
          'Unexpected `}` at line 3, column 12 (byte offset 43).',
        ],
        [
          '{"customer": {"name": "Zoë\n"}}',
          'A raw control character (U+000A) in a string at line 1, column 27 (byte offset 27); escape it (\\n).',
        ],
        [
          '{"items": [1, 2',
          'The body ends before the JSON value is complete, at line 1, column 16 (byte offset 15).',
        ],
        [
          '{"a": 1} {"b": 2}',
          'Text after the end of the JSON value (`{`) at line 1, column 10 (byte offset 9); send one value.',
        ],
        ["{'a': 1}", "Unexpected `'` at line 1, column 2 (byte offset 1)."],
        ['  ', 'The body is empty: send a JSON value.'],
      ]
      for (const [body, where] of cases) {
        const res = await t.api(key, 'POST', '/v1/orders', body)
        assert.equal(error(res, 400, 'invalid_json').message, `The request body is not valid JSON. ${where}`)
      }
      // A route that takes no body schema, and an empty body, say it the same way.
      const ping = await t.api(key, 'POST', `/v1/webhook-endpoints/${crypto.randomUUID()}/test`, '{"a": ]')
      assert.match(
        error(ping, 400, 'invalid_json').message,
        /Unexpected `]` at line 1, column 7 \(byte offset 6\)\.$/,
      )
      const empty = await t.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '',
      })
      assert.match(error(empty, 400, 'invalid_json').message, /The body is empty/)
      assert.deepEqual(await rowCounts(t.db), counts)
      assert.match(
        await page(t, 'invalid_json'),
        /its line, its column \(in characters\) and its byte offset/,
      )
    })

    test('an unknown field close to a known one asks "did you mean", in any body and at any depth', async () => {
      const { external_order_id: _, total_amount: __, ...rest } = orderBody()
      const res = await t.api(key, 'POST', '/v1/orders', {
        ...rest,
        external_id: 'A-1',
        totalAmount: 3,
        gift_wrap: true,
        items: [{ name: 'Mug', quantitiy: 1, personalisation: {} }],
      })
      assert.equal(
        entry(res, 'external_id').message,
        'external_id is not a known field; did you mean `external_order_id`?',
      )
      assert.equal(
        entry(res, 'totalAmount').message,
        'totalAmount is not a known field; did you mean `total_amount`?',
      )
      assert.equal(entry(res, 'gift_wrap').message, 'gift_wrap is not a known field')
      assert.match(entry(res, 'items.0.quantitiy').message, /did you mean `quantity`\?$/)
      assert.match(entry(res, 'items.0.personalisation').message, /did you mean `personalization`\?$/)
      // A field the body already has is not suggested.
      const both = await t.api(key, 'POST', '/v1/orders', { ...orderBody(), external_id: 'A-1' })
      assert.equal(entry(both, 'external_id').message, 'external_id is not a known field')
      const endpoint = await t.api(key, 'POST', '/v1/webhook-endpoints', { URL: 'https://example.com/hook' })
      assert.match(entry(endpoint, 'URL').message, /did you mean `url`\?$/)
      const admin = await t.admin('POST', '/admin/v1/organizations', { nmae: 'Acme' })
      assert.match(entry(admin, 'nmae').message, /did you mean `name`\?$/)
    })

    test('format and enum failures name the form or the allowed values', async () => {
      const res = await t.api(
        key,
        'POST',
        '/v1/orders',
        orderBody({
          currency: 'eur',
          ordered_at: 'yesterday',
          items: [{ name: 'M', quantity: 1, files: [{ upload_id: '42' }] }],
        }),
      )
      assert.equal(
        entry(res, 'currency').message,
        'currency must be an ISO 4217 currency code: three upper-case letters, such as EUR',
      )
      assert.match(
        entry(res, 'ordered_at').message,
        /^ordered_at must be an ISO 8601 timestamp with Z or an offset, such as 2026-/,
      )
      assert.match(
        entry(res, 'items.0.files.0.upload_id').message,
        /must be a UUID: 32 hex digits grouped 8-4-4-4-12/,
      )
      const nul = await t.api(key, 'POST', '/v1/orders', orderBody({ customer: { name: 'a\u0000b' } }))
      assert.equal(
        entry(nul, 'customer.name').message,
        'customer.name must not contain NUL characters or lone UTF-16 surrogates',
      )
      const keyRes = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'prod',
        scopes: [],
      })
      assert.equal(entry(keyRes, 'environment').message, 'environment must be one of "test", "live"')
      const status = await t.admin('POST', `/admin/v1/production-orders/${crypto.randomUUID()}/status`, {
        status: 'done',
      })
      assert.match(
        entry(status, 'status').message,
        /^status must be one of "pending", "in_progress", "completed", "failed", "cancelled"$/,
      )
    })

    test('validation failures say what did not happen only where something would have', async () => {
      const read = await t.api(key, 'GET', '/v1/orders?limit=1000&updated_since=soon')
      assert.equal(
        error(read, 422, 'validation_failed').message,
        'The request is invalid; errors[] lists every problem.',
      )
      const created = await t.api(key, 'POST', '/v1/orders', orderBody({ items: [] }))
      assert.match(error(created, 422, 'validation_failed').message, / Nothing was created\.$/)
      const operatorCreate = await t.admin('POST', '/admin/v1/organizations', {})
      assert.match(error(operatorCreate, 422, 'validation_failed').message, / Nothing was created\.$/)
      const change = await t.admin('POST', `/admin/v1/production-orders/${crypto.randomUUID()}/status`, {
        status: 'x',
      })
      assert.match(error(change, 422, 'validation_failed').message, / Nothing was changed\.$/)
      const operatorRead = await t.admin('GET', `/admin/v1/organizations/${orgId}/orders?environment=prod`)
      assert.doesNotMatch(error(operatorRead, 422, 'validation_failed').message, /Nothing/)
    })

    test('409 for different content names the existing order', async () => {
      const body = orderBody()
      const first = await t.api(key, 'POST', '/v1/orders', body)
      assert.equal(first.statusCode, 201)
      const res = await t.api(key, 'POST', '/v1/orders', { ...body, currency: 'USD' })
      assert.equal(
        error(res, 409, 'order_already_exists_with_different_content').message,
        `An order with this external_order_id already exists with different content. The existing order's id is ${first.json().data.order.id}.`,
      )
    })

    test('a known path with another method is 405 with Allow, with or without a key; an unknown path stays 404', async () => {
      const res = await t.api(key, 'DELETE', '/v1/orders?limit=5')
      assert.equal(res.headers.allow, 'GET, HEAD, POST')
      assert.equal(res.headers['x-ratelimit-limit'], '100000')
      assert.equal(
        error(res, 405, 'method_not_allowed').message,
        'This path does not accept this method. It accepts GET, HEAD, POST.',
      )
      const withoutKey = await t.api(undefined, 'PUT', `/v1/webhook-endpoints/${crypto.randomUUID()}`)
      assert.equal(withoutKey.headers.allow, 'DELETE, PATCH')
      error(withoutKey, 405, 'method_not_allowed')
      const operator = await t.admin('PUT', '/admin/v1/organizations/')
      assert.equal(operator.headers.allow, 'GET, HEAD, POST')
      error(operator, 405, 'method_not_allowed')
      error(await t.api(key, 'DELETE', '/v1/no-such-thing'), 404, 'not_found')
      error(await t.api(key, 'GET', `/v1/orders/${'x'.repeat(600)}`), 404, 'not_found')
      assert.match(await page(t, 'method_not_allowed'), /The Allow header lists the methods.*HTTP status 405/)
    })

    test('Authorization without `Bearer ` is 401 invalid_api_key with a hint about the form', async () => {
      const ping = (authorization?: string) =>
        t.app.inject({ method: 'GET', url: '/v1/ping', headers: authorization ? { authorization } : {} })
      const base = 'The API key is missing, malformed, unknown, revoked or expired.'
      const form = 'Send `Authorization: Bearer <API_KEY>`.'
      const cases: [string | undefined, string][] = [
        [undefined, `${base} No Authorization header was sent. ${form}`],
        [key, `${base} The Authorization header has no \`Bearer \` before the key. ${form}`],
        [
          'Token abc',
          `${base} The Authorization header uses the scheme \`Token\`; only \`Bearer\` is accepted. ${form}`,
        ],
        ['Bearer abc', `${base} API keys start with \`svc_test_\` or \`svc_live_\`.`],
        // Unknown, revoked and expired keys keep one answer: the form is right.
        [`Bearer svc_test_${'x'.repeat(43)}`, base],
      ]
      for (const [header, message] of cases) {
        const res = await ping(header)
        assert.equal(error(res, 401, 'invalid_api_key').message, message)
        assert.equal(res.headers['x-ratelimit-limit'], undefined)
      }
      // The scheme is case-insensitive (RFC 9110): lower case works.
      assert.equal((await ping(`bearer ${key}`)).statusCode, 200)
      const operator = await t.app.inject({
        method: 'GET',
        url: '/admin/v1/organizations',
        headers: { authorization: 'op_x' },
      })
      assert.match(
        error(operator, 401, 'invalid_operator_token').message,
        /Send `Authorization: Bearer <OPERATOR_TOKEN>`\.$/,
      )
    })

    test('webhook_target_blocked and its page say how to receive webhooks locally', async () => {
      const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: 'https://127.0.0.1/hook' })
      const { message, field } = error(res, 422, 'webhook_target_blocked')
      assert.equal(field, 'url')
      assert.match(message, /^The host resolves to a private or reserved address \(127\.0\.0\.1\)\. /)
      assert.match(
        message,
        /run `npx order-intake listen --base-url http:\/\/api\.test --forward-to http:\/\/localhost:4242\/webhooks`/,
      )
      assert.match(message, /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
      const doc = await page(t, 'webhook_target_blocked')
      assert.match(doc, /npx order-intake listen --base-url &lt;this service&gt; --forward-to/)
      assert.match(doc, /WEBHOOK_ALLOW_PRIVATE_CIDRS \(a list of CIDRs, empty by default\)/)
    })
  })
})

describe('limits in error texts', () => {
  /** The visible text of an HTML page. */
  const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')

  describe('error texts state the limits in force', () => {
    const LIMIT = 30
    const TTL_S = 900
    let t: TestApp
    before(async () => {
      t = await createTestApp({ rateLimitPerMinute: LIMIT, uploadUrlTtlS: TTL_S })
    })
    after(() => t.close())

    test('a service started with another rate limit says so in its 429, its error page and its OpenAPI document', async () => {
      const { testKey } = await t.tenant()
      for (let i = 0; i < LIMIT; i++) assert.equal((await t.api(testKey, 'GET', '/v1/ping')).statusCode, 200)
      const limited = await t.api(testKey, 'GET', '/v1/ping')
      assert.equal(limited.statusCode, 429)
      assert.match(limited.json().error.message, /^More than 30 requests per minute/)

      const page = text((await t.app.inject({ method: 'GET', url: '/developers/errors/rate_limited' })).body)
      assert.match(page, /Each key may make 30 requests in a 60-second window/)
      assert.doesNotMatch(page, /120/)

      const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
      const headers = doc.paths['/v1/ping'].get.responses['200'].headers
      assert.deepEqual(headers['X-RateLimit-Limit'], { $ref: '#/components/headers/X-RateLimit-Limit' })
      assert.match(
        doc.components.headers['X-RateLimit-Limit'].description,
        /^Requests allowed per window \(30\)\./,
      )
    })

    test('the upload URL lifetime on the page is the configured one', async () => {
      const page = text(
        (await t.app.inject({ method: 'GET', url: '/developers/errors/upload_url_invalid' })).body,
      )
      assert.match(page, /older than its lifetime \(900 seconds\)/)
    })

    test('size limits on the pages and in the OpenAPI document are the ones enforced', async () => {
      const tooLarge = text(
        (await t.app.inject({ method: 'GET', url: '/developers/errors/request_too_large' })).body,
      )
      assert.ok(tooLarge.includes(`(${ORDER_BODY_LIMIT} bytes) for`), tooLarge)
      assert.ok(tooLarge.includes(`(${DEFAULT_BODY_LIMIT} bytes) for every other endpoint`), tooLarge)
      const upload = text(
        (await t.app.inject({ method: 'GET', url: '/developers/errors/upload_too_large' })).body,
      )
      assert.ok(upload.includes(`larger than ${MAX_UPLOAD_BYTES} bytes`), upload)
      const endpoints = text(
        (await t.app.inject({ method: 'GET', url: '/developers/errors/webhook_limit_reached' })).body,
      )
      assert.ok(endpoints.includes(`already has ${MAX_ACTIVE_ENDPOINTS} active`), endpoints)
      const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
      assert.ok(doc.info.description.includes(`larger than ${MAX_UPLOAD_BYTES} bytes`))
    })
  })

  test('an answer without a message of its own states the catalog text for the limits in force', async () => {
    const t = await createTestApp({ http: { maxHeaderSize: 8192 } })
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as { port: number }
      const res = await fetch(`http://127.0.0.1:${port}/v1/ping`, { headers: { 'x-pad': 'a'.repeat(9000) } })
      assert.equal(res.status, 431)
      const body = (await res.json()) as { error: { code: string; message: string } }
      assert.equal(body.error.code, 'headers_too_large')
      assert.equal(body.error.message, 'The request line and headers are larger than 8 KB.')
    } finally {
      await t.close()
    }
  })
})

describe('messages that say what to do', () => {
  type Tenant = Awaited<ReturnType<TestApp['tenant']>>

  /** What a key of the other environment is told, for an id its organization holds there. */
  const elsewhere = (noun: string, asked: 'test' | 'live', holds: 'test' | 'live') =>
    `No ${noun} with this id in ${asked} mode. This ${noun} exists in ${holds} mode; use a ${holds} key (svc_${holds}_…).`

  const LISTEN =
    'run `npx order-intake listen --base-url http://api.test --forward-to http://localhost:4242/webhooks` with your API key instead'

  describe('messages that say what to do', () => {
    let t: TestApp
    let a: Tenant
    let stranger: Tenant
    before(async () => {
      // Every host resolves to a public address; IP literals are checked as they are.
      t = await createTestApp({ resolver: async () => ['93.184.216.34'] })
      a = await t.tenant('Owner')
      stranger = await t.tenant('Stranger')
    })
    after(() => t.close())

    /** The answer to `key`, which must be 404 not_found; its whole body, to compare. */
    async function notFound(
      key: string,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url: string,
      body?: unknown,
    ) {
      const res = await t.api(key, method, url, body)
      const error = assertError(res, 404, 'not_found', `${method} ${url}`)
      return { error, body: res.json() }
    }

    test('an order id of the other environment: 404 naming the environment and the key that reads it', async () => {
      const live = await t.api(a.liveKey, 'POST', '/v1/orders', orderBody())
      const testOrder = await t.api(a.testKey, 'POST', '/v1/orders', orderBody())
      assert.equal(live.statusCode, 201, live.body)
      assert.equal(testOrder.statusCode, 201, testOrder.body)
      const liveId = live.json().data.order.id as string
      const testId = testOrder.json().data.order.id as string

      const fromTest = await notFound(a.testKey, 'GET', `/v1/orders/${liveId}`)
      assert.equal(fromTest.error.message, elsewhere('order', 'test', 'live'))
      const fromLive = await notFound(a.liveKey, 'GET', `/v1/orders/${testId}`)
      assert.equal(fromLive.error.message, elsewhere('order', 'live', 'test'))

      // Another organization's id is answered exactly as an unknown one, in either environment.
      const unknown = await notFound(stranger.liveKey, 'GET', `/v1/orders/${UNKNOWN_ID}`)
      assert.equal(unknown.error.message, 'No order with this id.')
      for (const [key, id] of [
        [stranger.liveKey, liveId],
        [stranger.testKey, liveId],
        [stranger.liveKey, testId],
        [stranger.testKey, testId],
      ] as const) {
        assert.deepEqual((await notFound(key, 'GET', `/v1/orders/${id}`)).body, unknown.body)
      }
      // The owner's keys still read their own.
      assert.equal((await t.api(a.liveKey, 'GET', `/v1/orders/${liveId}`)).statusCode, 200)
      assert.equal((await t.api(a.testKey, 'GET', `/v1/orders/${testId}`)).statusCode, 200)
    })

    test('a webhook endpoint of the other environment: every operation on its id says so, and changes nothing', async () => {
      const { endpoint } = await createEndpoint(t, a.liveKey, 'https://hooks.example.com/orders')
      const testEndpoint = (await createEndpoint(t, a.testKey, 'https://hooks.example.com/test')).endpoint
      const before = await endpointRows(t, a.orgId)
      const since = new Date(Date.now() - 3600_000).toISOString()
      const operations = (id: string) =>
        [
          ['PATCH', `/v1/webhook-endpoints/${id}`, { description: 'changed' }],
          ['DELETE', `/v1/webhook-endpoints/${id}`, undefined],
          ['POST', `/v1/webhook-endpoints/${id}/test`, undefined],
          ['POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {}],
          ['POST', `/v1/webhook-endpoints/${id}/replay`, { since }],
          ['GET', `/v1/webhook-endpoints/${id}/replay`, undefined],
          ['GET', `/v1/webhook-deliveries?endpoint_id=${id}`, undefined],
        ] as const

      for (const [method, url, body] of operations(endpoint.id)) {
        const { error } = await notFound(a.testKey, method, url, body)
        assert.equal(error.message, elsewhere('webhook endpoint', 'test', 'live'), `${method} ${url}`)
      }
      for (const [method, url, body] of operations(testEndpoint.id)) {
        const { error } = await notFound(a.liveKey, method, url, body)
        assert.equal(error.message, elsewhere('webhook endpoint', 'live', 'test'), `${method} ${url}`)
      }
      for (const [method, url, body] of operations(endpoint.id)) {
        const { error } = await notFound(stranger.liveKey, method, url, body)
        assert.equal(error.message, 'No webhook endpoint with this id.', `${method} ${url}`)
        assert.equal((await notFound(stranger.testKey, method, url, body)).error.message, error.message)
      }
      // Nothing changed: no rotation, no deletion, no description, no ping queued.
      assert.deepEqual(await endpointRows(t, a.orgId), before)
      const deliveries = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      assert.equal(deliveries.statusCode, 200, deliveries.body)
      assert.deepEqual(deliveries.json().data, [])
    })

    test('a delivery of the other environment: reading and redelivering it say so; another organization’s stays plain', async () => {
      const { endpoint } = await createEndpoint(t, a.liveKey, 'https://hooks.example.com/deliveries')
      assert.equal(
        (await t.api(a.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).statusCode,
        202,
      )
      const log = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      const [delivery] = log.json().data as { id: string }[]
      assert.ok(delivery, log.body)

      const read = await notFound(a.testKey, 'GET', `/v1/webhook-deliveries/${delivery.id}`)
      assert.equal(read.error.message, elsewhere('delivery', 'test', 'live'))
      const again = await notFound(a.testKey, 'POST', `/v1/webhook-deliveries/${delivery.id}/redeliver`)
      assert.equal(again.error.message, elsewhere('delivery', 'test', 'live'))

      const unknown = await notFound(stranger.liveKey, 'GET', `/v1/webhook-deliveries/${UNKNOWN_ID}`)
      assert.equal(unknown.error.message, 'No delivery with this id.')
      for (const key of [stranger.liveKey, stranger.testKey]) {
        assert.deepEqual(
          (await notFound(key, 'GET', `/v1/webhook-deliveries/${delivery.id}`)).body,
          unknown.body,
        )
        assert.equal(
          (await notFound(key, 'POST', `/v1/webhook-deliveries/${delivery.id}/redeliver`)).error.message,
          unknown.error.message,
        )
      }
      // The refused redelivery added nothing to the log.
      const after = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      assert.equal(after.json().data.length, 1)
    })

    test('an http:// or private webhook URL: 422 pointing at listen for local development, nothing stored', async () => {
      const org = await t.tenant('Local developer')
      const plain = assertError(
        await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url: 'http://localhost:4242/webhooks' }),
        422,
        'webhook_url_invalid',
      )
      assert.equal(plain.field, 'url')
      assert.equal(
        plain.message,
        `Webhook URLs must use https. To receive webhooks on your own machine, ${LISTEN}.`,
      )
      for (const url of [
        'https://127.0.0.1:4242/webhooks',
        'https://192.168.1.20/webhooks',
        'https://[::1]/hook',
      ]) {
        const blocked = assertError(
          await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url }),
          422,
          'webhook_target_blocked',
          url,
        )
        assert.ok(blocked.message.includes(LISTEN), blocked.message)
      }
      // Another scheme is not a local development matter: no listen advice.
      const ftp = assertError(
        await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url: 'ftp://hooks.example.com/' }),
        422,
        'webhook_url_invalid',
      )
      assert.equal(ftp.message, 'Webhook URLs must use https.')
      assert.deepEqual(await endpointRows(t, org.orgId), [])
    })
  })
})

describe('protocol errors', () => {
  /**
   * Every answer is the reference's error object, also where Fastify and Node
   * answer before any route: undecodable paths, over-long ids, malformed HTTP,
   * oversized headers, requests that stop arriving, unknown expectations and
   * requests during shutdown. Malformed HTTP is sent over raw sockets.
   */

  interface RawResponse {
    status: number
    headers: Record<string, string>
    body: string
  }

  /** Parses one or more HTTP/1.1 responses with Content-Length bodies. */
  function parseResponses(text: string): RawResponse[] {
    const out: RawResponse[] = []
    let rest = text
    while (rest.length > 0) {
      const end = rest.indexOf('\r\n\r\n')
      assert.ok(end > 0, `incomplete response: ${JSON.stringify(rest.slice(0, 200))}`)
      const [statusLine, ...lines] = rest.slice(0, end).split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
      }
      const length = Number(headers['content-length'] ?? 0)
      const bodyStart = end + 4
      const body = Buffer.from(rest.slice(bodyStart), 'latin1').subarray(0, length).toString('utf8')
      out.push({ status: Number(statusLine!.split(' ')[1]), headers, body })
      rest = rest.slice(bodyStart + Buffer.byteLength(body))
    }
    return out
  }

  /** Writes `parts` (a function part is awaited in between), then reads until the server closes or `waitMs` passes. */
  async function exchange(
    port: number,
    parts: (string | ((socket: Socket) => Promise<void>))[],
    waitMs = 5000,
  ): Promise<{ responses: RawResponse[]; closed: boolean }> {
    const socket = connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    let text = ''
    let closed = false
    socket.setEncoding('latin1')
    socket.on('data', (d) => {
      text += d
    })
    socket.on('error', () => {})
    const done = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    for (const part of parts) {
      if (typeof part === 'string') socket.write(part, 'latin1')
      else await part(socket)
    }
    let timeout: NodeJS.Timeout | undefined
    const timer = new Promise<'timeout'>((resolve) => {
      timeout = setTimeout(() => resolve('timeout'), waitMs)
    })
    closed = (await Promise.race([done.then(() => 'closed' as const), timer])) === 'closed'
    clearTimeout(timeout)
    socket.destroy()
    return { responses: text ? parseResponses(text) : [], closed }
  }

  function assertErrorShape(res: RawResponse, status: number, code: string) {
    const error = assertError({ statusCode: res.status, body: res.body, headers: res.headers }, status, code)
    assert.deepEqual(Object.keys(error).sort(), ['code', 'doc_url', 'message'])
    assert.ok(res.headers['x-request-id'], 'x-request-id')
    return error
  }

  const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']
  const hasRateHeaders = (headers: Record<string, unknown>) => RATE_HEADERS.every((h) => h in headers)

  describe('answers before any route, in the error shape', () => {
    let t: TestApp
    let key: string
    let port: number

    before(async () => {
      // Short timeouts so that a request that stops arriving is answered quickly.
      t = await createTestApp({
        timeouts: { headersMs: 400, bodyMs: 1500 },
        http: { connectionsCheckingInterval: 100 },
      })
      key = (await t.tenant()).liveKey
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as { port: number }).port
    })
    after(() => t.close())

    describe('paths whose id cannot exist: 404 not_found', () => {
      for (const [name, path] of [
        ['an undecodable id (%ZZ)', '/v1/orders/%ZZ'],
        ['an undecodable path segment', '/v1/%ZZ/orders'],
        ['an id of 201 characters', `/v1/orders/${'a'.repeat(201)}`],
        ['an operator id of 300 characters', `/admin/v1/orders/${'a'.repeat(300)}`],
      ]) {
        test(`${name}, with a valid key: counted, rate-limit headers`, async () => {
          const before = await t.api(key, 'GET', '/v1/ping')
          const remaining = Number(before.headers['x-ratelimit-remaining'])
          const res = await t.api(key, 'GET', path!)
          assertErrorShape(
            { status: res.statusCode, headers: res.headers as never, body: res.body },
            404,
            'not_found',
          )
          assert.ok(hasRateHeaders(res.headers), 'rate-limit headers')
          assert.equal(Number(res.headers['x-ratelimit-remaining']), remaining - 1)
        })
        test(`${name}, without a key: no rate-limit headers`, async () => {
          const res = await t.api(undefined, 'GET', path!)
          assertErrorShape(
            { status: res.statusCode, headers: res.headers as never, body: res.body },
            404,
            'not_found',
          )
          assert.equal(hasRateHeaders(res.headers), false)
        })
      }

      test('an id of 200 characters is routed (and unknown)', async () => {
        const res = await t.api(key, 'GET', `/v1/orders/${'a'.repeat(200)}`)
        assert.equal(res.statusCode, 404)
        assert.equal(res.json().error.message, 'No order with this id.')
      })
    })

    describe('malformed HTTP over a socket', () => {
      const cases: [string, string, number, string][] = [
        ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'malformed_request'],
        ['an unknown method', 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
        ['a space inside the path', 'GET /v1/or ders HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
        [
          'two different Content-Length headers',
          'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
          400,
          'malformed_request',
        ],
        [
          'a bad chunk size',
          'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
          400,
          'malformed_request',
        ],
        [
          'headers over 16 KB',
          `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`,
          431,
          'headers_too_large',
        ],
        [
          'a request line over 16 KB',
          `GET /v1/orders?x=${'a'.repeat(20_000)} HTTP/1.1\r\n\r\n`,
          431,
          'headers_too_large',
        ],
      ]
      for (const [name, request, status, code] of cases) {
        test(`${name}: ${status} ${code}, connection closed`, async () => {
          const { responses, closed } = await exchange(port, [request])
          assert.equal(responses.length, 1, JSON.stringify(responses))
          assertErrorShape(responses[0]!, status, code)
          assert.equal(responses[0]!.headers.connection, 'close')
          assert.ok(closed, 'connection closed')
        })
      }

      test('an HTTP/1.1 request without Host: 400 malformed_request before the key, connection closed', async () => {
        for (const request of [
          'GET /healthz HTTP/1.1\r\n\r\n',
          `POST /v1/orders HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        ]) {
          const { responses, closed } = await exchange(port, [request])
          assert.equal(responses.length, 1, JSON.stringify(responses))
          const error = assertErrorShape(responses[0]!, 400, 'malformed_request')
          assert.match(error.message, /Host header/)
          assert.equal(responses[0]!.headers.connection, 'close')
          assert.equal(hasRateHeaders(responses[0]!.headers), false)
          assert.ok(closed, 'connection closed')
        }
      })

      test('an HTTP/1.0 request may leave Host out', async () => {
        const { responses } = await exchange(port, ['GET /healthz HTTP/1.0\r\n\r\n'])
        assert.equal(responses.length, 1, JSON.stringify(responses))
        assert.equal(responses[0]!.status, 200, responses[0]!.body)
      })

      test('headers that stop arriving: 408 request_timeout', async () => {
        const { responses, closed } = await exchange(port, ['GET /v1/ping HTTP/1.1\r\nHost: x\r\n'])
        assert.equal(responses.length, 1)
        assertErrorShape(responses[0]!, 408, 'request_timeout')
        assert.ok(closed)
      })

      test('a body that stops arriving: 408 request_timeout', async () => {
        const { responses, closed } = await exchange(port, [
          `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
        ])
        assert.equal(responses.length, 1)
        assertErrorShape(responses[0]!, 408, 'request_timeout')
        assert.ok(closed)
      })
    })

    describe('Expect other than 100-continue: 417 expectation_failed', () => {
      const request = (path: string, auth?: string) =>
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: something-else\r\n${auth ? `Authorization: Bearer ${auth}\r\n` : ''}\r\n`

      test('with a valid key: counted, rate-limit headers', async () => {
        const { responses } = await exchange(port, [request('/v1/ping', key)])
        assert.equal(responses.length, 1)
        assertErrorShape(responses[0]!, 417, 'expectation_failed')
        assert.ok(hasRateHeaders(responses[0]!.headers))
        assert.equal(responses[0]!.headers.connection, 'close')
      })

      test('on an open route', async () => {
        const { responses } = await exchange(port, [request('/healthz')])
        assertErrorShape(responses[0]!, 417, 'expectation_failed')
        assert.equal(hasRateHeaders(responses[0]!.headers), false)
      })

      test('without a key: the key is checked first, 401', async () => {
        const { responses } = await exchange(port, [request('/v1/ping')])
        assertErrorShape(responses[0]!, 401, 'invalid_api_key')
      })

      test('Expect: 100-continue is met as before', async () => {
        const { responses } = await exchange(port, [
          `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
        ])
        const final = responses.at(-1)!
        assert.equal(final.status, 200, final.body)
      })
    })
  })

  describe('a request during shutdown: 503 service_unavailable', () => {
    test('pipelined behind a request still in flight when close() began', async () => {
      const t = await createTestApp()
      const key = (await t.tenant()).liveKey
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const port = (t.app.server.address() as { port: number }).port
      const body = '{"external_order_id":"A"}'
      let closing: Promise<void> | undefined
      const { responses, closed } = await exchange(
        port,
        [
          `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
          async () => {
            await new Promise((resolve) => setTimeout(resolve, 200))
            closing = t.app.close()
            await new Promise((resolve) => setTimeout(resolve, 100))
          },
          `${body.slice(5)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`,
        ],
        3000,
      )
      await closing
      await t.close()
      assert.ok(closed, 'connection closed')
      assert.equal(responses.length, 2, JSON.stringify(responses))
      assert.equal(responses[0]!.status, 422)
      const error = assertErrorShape(responses[1]!, 503, 'service_unavailable')
      assert.equal(error.message, 'The service is shutting down.')
    })
  })
})
