import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, orderBody, rowCounts, type TestApp } from '../helpers/app.ts'

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
    assert.match(await page(t, 'invalid_json'), /its line, its column \(in characters\) and its byte offset/)
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
    assert.match(message, /run `npx order-intake listen --forward-to http:\/\/localhost:4242\/webhooks`/)
    assert.match(message, /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
    const doc = await page(t, 'webhook_target_blocked')
    assert.match(doc, /npx order-intake listen --forward-to/)
    assert.match(doc, /WEBHOOK_ALLOW_PRIVATE_CIDRS \(a list of CIDRs, empty by default\)/)
  })
})
