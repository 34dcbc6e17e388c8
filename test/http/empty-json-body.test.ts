import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { OPERATOR_TOKEN, orderBody, useTestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/errors.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createEndpoint } from '../helpers/webhook-endpoints.ts'

/**
 * `Content-Type: application/json` with an empty body (Content-Length: 0, as
 * some HTTP clients send on every POST) is no body: accepted where the body is
 * optional or not taken, refused (invalid_json) where one is required.
 */
const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

describe('an empty body sent as application/json', () => {
  let key: string
  let liveKey: string
  let endpointId: string

  before(async () => {
    ;({ testKey: key, liveKey } = await t.tenant())
    endpointId = (await createEndpoint(t, key, 'https://webhook.test/empty')).endpoint.id
  })

  const post = (url: string, payload: string, contentType?: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${key}`,
        ...(contentType ? { 'content-type': contentType } : {}),
      },
      payload,
    })

  for (const [name, path, status] of [
    ['the test trigger (takes no body)', '/test', 202],
    ['rotate-secret (optional body)', '/rotate-secret', 200],
  ] as const) {
    test(`${name}: answered as without the header`, async () => {
      const url = `/v1/webhook-endpoints/${endpointId}${path}`
      const without = await post(url, '')
      assert.equal(without.statusCode, status, without.body)
      const empty = await post(url, '', 'application/json')
      assert.equal(empty.statusCode, status, empty.body)
      assert.equal(empty.headers['content-type'], without.headers['content-type'])
    })

    test(`${name}: a body that is there but not JSON is still invalid_json`, async () => {
      const res = await post(`/v1/webhook-endpoints/${endpointId}${path}`, '{', 'application/json')
      assertError(res, 400, 'invalid_json')
    })
  }

  test('rotate-secret: an empty body keeps the default grace period, as no body does', async () => {
    const res = await post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, '', 'application/json')
    assert.equal(res.statusCode, 200, res.body)
    const { previous_secret_expires_at: expires } = res.json().data
    const graceMs = Date.parse(expires) - Date.now()
    assert.ok(graceMs > 23 * 3600_000 && graceMs <= 24 * 3600_000, `grace ${graceMs} ms`)
  })

  test('an operator action without a body (cancel an order) accepts it too', async () => {
    const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(order.statusCode, 201, order.body)
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/orders/${order.json().data.order.id}/cancel`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      payload: '',
    })
    assert.equal(res.statusCode, 200, res.body)
  })

  test('where a body is required (POST /v1/orders), an empty one is still invalid_json', async () => {
    assertError(await post('/v1/orders', '', 'application/json'), 400, 'invalid_json')
  })
})
