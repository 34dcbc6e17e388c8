import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { manualClock, OPERATOR_TOKEN, orderBody, useTestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { count, hex } from '../../helpers/operator.ts'

const t = useTestApp({ clock: manualClock(new Date()) })

/** Operator call with an explicit content type and raw payload. */
function adminRaw(url: string, contentType: string | undefined, payload: string) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: {
      authorization: `Bearer ${OPERATOR_TOKEN}`,
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    },
    payload,
  })
}

describe('operator JSON bodies', () => {
  let orgId: string
  const routes: [string, () => string, () => unknown][] = [
    ['POST /admin/v1/organizations', () => '/admin/v1/organizations', () => ({ name: 'X' })],
    [
      'POST api-keys',
      () => `/admin/v1/organizations/${orgId}/api-keys`,
      () => ({ environment: 'test', scopes: [] }),
    ],
    [
      'POST products',
      () => `/admin/v1/organizations/${orgId}/products`,
      () => ({ sku: `J-${hex()}`, name: 'X' }),
    ],
    ['POST shop-orders', () => `/admin/v1/organizations/${orgId}/shop-orders`, () => orderBody()],
  ]
  before(async () => {
    orgId = (await t.createOrganization('JSON Org')).id
  })

  test('a wrong or missing content type, or a body that is not JSON, is 400 invalid_json; nothing stored', async () => {
    const tables = ['organizations', 'api_keys', 'products', 'orders'] as const
    const before = await Promise.all(tables.map((table) => count(t, table)))
    for (const [name, url, body] of routes) {
      const json = JSON.stringify(body())
      for (const [contentType, payload] of [
        [undefined, json],
        ['text/plain', json],
        ['application/x-www-form-urlencoded', 'name=X'],
        ['application/jsonp', json],
        ['application/json', '{"name": '],
        ['application/json', 'not json'],
        ['application/json', ''],
      ] as const) {
        const res = await adminRaw(url(), contentType, payload)
        assertError(res, 400, 'invalid_json')
        assert.ok(res.statusCode === 400, `${name} with ${contentType} ${payload}`)
      }
    }
    assert.deepEqual(await Promise.all(tables.map((table) => count(t, table))), before)
  })

  test('application/json in any case and with parameters is accepted', async () => {
    for (const [name, url, body] of routes) {
      for (const contentType of ['application/json; charset=utf-8', 'Application/JSON']) {
        const res = await adminRaw(url(), contentType, JSON.stringify(body()))
        assert.equal(res.statusCode, 201, `${name} with ${contentType}: ${res.body}`)
      }
    }
  })
})
