import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { DEFAULT_BODY_LIMIT, ORDER_BODY_LIMIT } from '../../src/http/json-body.ts'
import { MAX_UPLOAD_BYTES } from '../../src/modules/uploads/storage/storage.ts'
import { MAX_ACTIVE_ENDPOINTS } from '../../src/modules/webhooks/webhooks.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

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
