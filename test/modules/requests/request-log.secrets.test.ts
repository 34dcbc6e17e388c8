import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { KEPT_BODY_BYTES } from '../../../src/modules/requests/request-log.capture.ts'
import { OPERATOR_TOKEN, orderBody, useTestApp } from '../../helpers/app.ts'
import { type DashboardClient, memberOf } from '../../helpers/dashboard.ts'

const t = useTestApp()

let key: { key: string; id: string }
let owner: DashboardClient
let developer: DashboardClient

/** A live key's shape (what follows svc_live_ is the secret), not a key of this organization. */
const LIVE_SECRET = 'Zq8Rt2Wm5Kx7Pv3Ny6Lb9Hc4Jd1Fg0Sa2Ue5Io7'

/** What owners and developers read of the line of the request answered with this X-Request-Id. */
async function storedOf(client: DashboardClient, requestId: string) {
  const list = await client.call('GET', `/requests?request_id=${encodeURIComponent(requestId)}`)
  assert.equal(list.statusCode, 200, list.body)
  const [line] = list.json().data
  assert.ok(line, `no line for ${requestId}`)
  const res = await client.call('GET', `/requests/${line.id}?environment=test`)
  assert.equal(res.statusCode, 200, res.body)
  return res.json().data.request
}

async function post(body: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    payload: body,
  })
  assert.equal(res.statusCode, 422, res.body)
  return res.headers['x-request-id'] as string
}

describe('secrets in the request log, cut or written escaped', () => {
  before(async () => {
    const orgId = (await t.createOrganization('Request Log Secrets')).id
    key = await t.createKey(orgId)
    owner = (await memberOf(t, orgId, 'owner')).client
    developer = (await memberOf(t, orgId, 'developer')).client
  })

  test('the cut splitting the operator token in a body keeps no part of it', async () => {
    const head = '{"note":"'
    const lead = `","token":"`
    // The token begins 20 bytes before the cut: cutting first kept those 20.
    const pad = 'x'.repeat(KEPT_BODY_BYTES - 20 - head.length - lead.length)
    const body = `${head}${pad}${lead}${OPERATOR_TOKEN}","more":"${'y'.repeat(2000)}"}`
    assert.equal(body.indexOf(OPERATOR_TOKEN), KEPT_BODY_BYTES - 20)
    const requestId = await post(body)
    for (const client of [owner, developer]) {
      const one = await storedOf(client, requestId)
      assert.equal(one.request_body_bytes, body.length)
      assert.ok(Buffer.byteLength(one.request_body) <= KEPT_BODY_BYTES)
      assert.ok(!one.request_body.includes(OPERATOR_TOKEN.slice(0, 8)), one.request_body.slice(-60))
      assert.ok(one.request_body.includes(`${lead}REDACTED","more":"yy`), one.request_body.slice(-60))
    }
  })

  test('a key written with JSON escapes in a body is replaced', async () => {
    const testSecret = key.key.slice('svc_test_'.length)
    const escapedTest = `svc\\u005ftest_${testSecret.slice(0, 5)}\\u00${testSecret.charCodeAt(5).toString(16)}${testSecret.slice(6)}`
    assert.equal(JSON.parse(`"${escapedTest}"`), key.key)
    const body = JSON.stringify({ ...orderBody({ external_order_id: `RL-${randomUUID()}` }), note: 'NOTE' })
      .replace('NOTE', `svc\\u005flive_${LIVE_SECRET} and ${escapedTest} and svc_live\\u005F${LIVE_SECRET}`)
      .replace('"note"', '"n\\u006fte"')
    assert.ok(JSON.parse(body).note.includes(`svc_live_${LIVE_SECRET}`))
    const requestId = await post(body)
    for (const client of [owner, developer]) {
      const one = await storedOf(client, requestId)
      assert.ok(!one.request_body.includes(LIVE_SECRET.slice(0, 8)), one.request_body)
      assert.ok(!one.request_body.includes(testSecret.slice(0, 5)), one.request_body)
      assert.ok(!one.request_body.includes(testSecret.slice(6)), one.request_body)
      assert.ok(
        one.request_body.includes(
          '"n\\u006fte":"svc\\u005flive_REDACTED and svc\\u005ftest_REDACTED and svc_live\\u005FREDACTED"',
        ),
        one.request_body,
      )
    }
  })

  test('a key written URL-encoded in a query string is replaced', async () => {
    const path = `/v1/orders?external_order_id=svc%5Flive_${LIVE_SECRET}&status=x&q=svc%5ftest%5F${LIVE_SECRET}`
    const res = await t.api(key.key, 'GET', path)
    assert.equal(res.statusCode, 422, res.body)
    for (const client of [owner, developer]) {
      const one = await storedOf(client, res.headers['x-request-id'] as string)
      assert.equal(
        one.path,
        '/v1/orders?external_order_id=svc%5Flive_REDACTED&status=x&q=svc%5ftest%5FREDACTED',
      )
      assert.ok(!JSON.stringify(one).includes(LIVE_SECRET.slice(0, 8)), JSON.stringify(one))
    }
  })
})
