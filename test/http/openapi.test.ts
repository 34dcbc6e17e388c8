import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { ERROR_CATALOG, ERROR_CODES, TOP_LEVEL_CODES } from '../../src/http/errors.ts'
import { OrderRequest } from '../../src/modules/orders/orders.schemas.ts'
import { createTestApp, PUBLIC_BASE_URL, type TestApp } from '../helpers/app.ts'

describe('GET /v1/openapi.json', () => {
  let t: TestApp
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document walked by the assertions
  let doc: any
  before(async () => {
    t = await createTestApp()
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /application\/json/)
    doc = res.json()
  })
  after(() => t.close())

  test('is OpenAPI 3.1 and needs no key', () => {
    assert.equal(doc.openapi, '3.1.0')
    assert.equal(doc.servers[0].url, PUBLIC_BASE_URL)
  })

  test('a valid key still gets its rate-limit headers; a bad key is ignored', async () => {
    const { testKey } = await t.tenant()
    const withKey = await t.api(testKey, 'GET', '/v1/openapi.json')
    assert.equal(withKey.statusCode, 200)
    assert.ok(Number(withKey.headers['x-ratelimit-remaining']) >= 0)
    assert.ok(withKey.headers['x-ratelimit-limit'])
    const badKey = await t.api('svc_test_thisKeyDoesNotExist0000000000000000', 'GET', '/v1/openapi.json')
    assert.equal(badKey.statusCode, 200)
    assert.equal(badKey.headers['x-ratelimit-limit'], undefined)
  })

  test('describes every public endpoint and no operator endpoint', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/v1/orders',
      '/v1/orders/{id}',
      '/v1/ping',
      '/v1/uploads',
      '/v1/webhook-deliveries',
      '/v1/webhook-endpoints',
      '/v1/webhook-endpoints/{id}',
      '/v1/webhook-endpoints/{id}/test',
      '/v1/webhook-events/stream',
      '/v1/webhook-events/trigger',
    ])
    const stream = doc.paths['/v1/webhook-events/stream'].get
    assert.ok(stream.responses['200'].content['text/event-stream'])
    assert.ok(stream.parameters.some((p: { name: string; in: string }) => p.in === 'header'))
    assert.match(stream.responses['422'].description, /listen_limit_reached/)
    assert.deepEqual(Object.keys(doc.paths['/v1/orders']).sort(), ['get', 'post'])
    assert.equal(doc.components.schemas.OperatorOrder, undefined)
    for (const methods of Object.values<Record<string, Record<string, unknown>>>(doc.paths)) {
      for (const op of Object.values<Record<string, unknown>>(methods)) {
        const responses = op.responses as Record<string, { headers?: Record<string, unknown> }>
        assert.deepEqual(op.security, [{ apiKey: [] }])
        assert.ok(responses['401'], 'every authenticated operation documents 401')
        assert.equal(responses['401']!.headers, undefined, '401 carries no rate-limit headers')
        assert.ok(responses['429']!.headers!['Retry-After'])
        for (const [status, response] of Object.entries(responses)) {
          if (status !== '401')
            assert.ok(response.headers?.['X-RateLimit-Remaining'], `${status} has rate headers`)
        }
      }
    }
  })

  test('the request schema is the one that validates', () => {
    const documented = doc.paths['/v1/orders'].post.requestBody.content['application/json'].schema
    const { $id: _id, title: _title, ...validating } = OrderRequest as unknown as Record<string, unknown>
    for (const [key, value] of Object.entries(validating)) assert.deepEqual(documented[key], value, key)
    const responses = doc.paths['/v1/orders'].post.responses
    assert.deepEqual(Object.keys(responses).sort(), [
      '200',
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '422',
      '429',
      '500',
      '503',
    ])
  })

  test('documents every error code with its status and reference page', () => {
    assert.deepEqual(
      [...doc.components.schemas.Error.properties.error.properties.code.enum].sort(),
      [...TOP_LEVEL_CODES].sort(),
    )
    for (const code of ERROR_CODES) {
      assert.ok(doc.info.description.includes(`${PUBLIC_BASE_URL}/developers/errors/${code}`), code)
    }
  })
})

describe('/developers/errors/<code>', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  test('serves one HTML page per error code, without a key', async () => {
    for (const code of ERROR_CODES) {
      const res = await t.app.inject({ method: 'GET', url: `/developers/errors/${code}` })
      assert.equal(res.statusCode, 200, code)
      assert.match(String(res.headers['content-type']), /^text\/html/)
      assert.ok(res.body.includes(`<code>${code}</code>`), code)
      const entry = ERROR_CATALOG[code]
      if (entry.kind === 'error')
        assert.ok(res.body.includes(`<dd>${entry.status}</dd>`), `${code} shows its status`)
    }
  })

  test('doc_url of an error response points at its page', async () => {
    const res = await t.api(undefined, 'GET', '/v1/orders')
    assert.equal(res.statusCode, 401)
    const { doc_url } = res.json().error
    assert.equal(doc_url, `${PUBLIC_BASE_URL}/developers/errors/invalid_api_key`)
    const page = await t.app.inject({ method: 'GET', url: new URL(doc_url).pathname })
    assert.equal(page.statusCode, 200)
  })

  test('an unknown code is 404 not_found in the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/developers/errors/no_such_code' })
    assert.equal(res.statusCode, 404)
    assert.equal(res.json().error.code, 'not_found')
  })

  test('health and readiness need no key', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json(), { data: { status: 'ready' } })
  })
})
