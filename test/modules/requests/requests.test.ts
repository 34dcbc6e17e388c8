import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import pg from 'pg'
import { KEPT_BODY_BYTES } from '../../../src/modules/requests/requests.capture.ts'
import {
  NEEDS_POSTGRESQL,
  OPERATOR_TOKEN,
  orderBody,
  PUBLIC_BASE_URL,
  TEST_DATABASE_URL,
  useTestApp,
} from '../../helpers/app.ts'
import { type DashboardClient, memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

describe('the log', () => {
  const t = useTestApp()

  interface Line {
    id: string
    created_at: string
    environment: string
    key_id: string
    key_prefix: string
    method: string
    path: string
    status: number
    error_code: string | null
    duration_ms: number
    request_id: string
    order_id: string | null
  }

  let orgId: string
  let key: { key: string; id: string }
  let owner: DashboardClient
  let viewer: DashboardClient

  async function lines(client: DashboardClient, query = ''): Promise<Line[]> {
    const res = await client.call('GET', `/requests${query}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  async function detail(client: DashboardClient, id: string, environment = 'test') {
    const res = await client.call('GET', `/requests/${id}?environment=${environment}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.request
  }

  /** The line of the request answered with this X-Request-Id. */
  async function lineOf(requestId: string, client = owner): Promise<Line> {
    const [line, ...more] = await lines(client, `?request_id=${encodeURIComponent(requestId)}`)
    assert.ok(line, `no line for ${requestId}`)
    assert.equal(more.length, 0)
    return line
  }

  describe('the request log', () => {
    before(async () => {
      orgId = (await t.createOrganization('Request Log Prints')).id
      key = await t.createKey(orgId)
      owner = (await memberOf(t, orgId, 'owner')).client
      viewer = (await memberOf(t, orgId, 'viewer')).client
    })

    test('a created order: its line, its body as sent, its order; the key itself is stored nowhere', async () => {
      const sent = JSON.stringify(orderBody({ external_order_id: `RL-${randomUUID()}` }), null, 2)
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        payload: sent,
      })
      assert.equal(res.statusCode, 201, res.body)
      const orderId = res.json().data.order.id
      const line = await lineOf(res.headers['x-request-id'] as string)
      assert.equal(line.method, 'POST')
      assert.equal(line.path, '/v1/orders')
      assert.equal(line.status, 201)
      assert.equal(line.error_code, null)
      assert.equal(line.order_id, orderId)
      assert.equal(line.key_id, key.id)
      assert.ok(key.key.startsWith(line.key_prefix) && line.key_prefix.length < key.key.length)
      assert.equal(line.environment, 'test')
      assert.ok(line.duration_ms >= 0)
      assert.ok(Math.abs(Date.parse(line.created_at) - Date.now()) < 60_000)

      const one = await detail(owner, line.id)
      assert.equal(one.request_body, sent, 'the body exactly as sent')
      assert.equal(one.request_body_bytes, Buffer.byteLength(sent))
      assert.equal(one.request_body_truncated, false)
      assert.equal(one.response_body, null, 'a success keeps no answer')
      assert.equal(one.bodies_hidden, false)
      assert.equal(
        one.curl,
        [
          `curl -X POST '${PUBLIC_BASE_URL}/v1/orders'`,
          `  -H "Authorization: Bearer $SERVICE_API_KEY"`,
          `  -H 'Content-Type: application/json'`,
          `  --data-raw '${sent}'`,
        ].join(' \\\n'),
      )

      const rows = await t.db
        .selectFrom('api_requests')
        .selectAll()
        .where('organization_id', '=', orgId)
        .execute()
      const secret = key.key.slice(line.key_prefix.length)
      assert.ok(!JSON.stringify(rows).includes(secret), 'no part of the key past its prefix is stored')

      const created = await lines(owner, `?order_id=${orderId}`)
      assert.deepEqual(
        created.map((l) => l.id),
        [line.id],
      )
    })

    test('a read keeps the line only; a refused write keeps its body and the whole answer', async () => {
      const read = await t.api(key.key, 'GET', '/v1/orders?limit=2')
      assert.equal(read.statusCode, 200)
      const readLine = await lineOf(read.headers['x-request-id'] as string)
      assert.equal(readLine.path, '/v1/orders?limit=2')
      const readDetail = await detail(owner, readLine.id)
      assert.equal(readDetail.request_body, null)
      assert.equal(readDetail.request_body_bytes, null)
      assert.equal(readDetail.response_body, null)
      assert.equal(
        readDetail.curl,
        `curl -X GET '${PUBLIC_BASE_URL}/v1/orders?limit=2' \\\n  -H "Authorization: Bearer $SERVICE_API_KEY"`,
      )

      const bad = orderBody({ items: [] })
      const refused = await t.api(key.key, 'POST', '/v1/orders', bad)
      assert.equal(refused.statusCode, 422)
      const line = await lineOf(refused.headers['x-request-id'] as string)
      assert.equal(line.status, 422)
      assert.equal(line.error_code, 'validation_failed')
      assert.equal(line.order_id, null)
      const one = await detail(owner, line.id)
      assert.deepEqual(JSON.parse(one.request_body), bad)
      assert.equal(one.response_body, refused.body, 'the answer exactly as sent')

      const broken = await t.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        payload: '{"external_order_id": "half',
      })
      assert.equal(broken.statusCode, 400)
      const brokenLine = await detail(owner, (await lineOf(broken.headers['x-request-id'] as string)).id)
      assert.equal(brokenLine.error_code, 'invalid_json')
      assert.equal(brokenLine.request_body, '{"external_order_id": "half')
    })

    test('a body over 16 KB is kept cut, on a whole character, with its size; secrets in it are replaced', async () => {
      const note = 'é'.repeat(12_000)
      const body = {
        secret: `whsec_${'A'.repeat(40)}`,
        key: key.key,
        ...orderBody({ external_order_id: `RL-${randomUUID()}` }),
        note,
      }
      const res = await t.api(key.key, 'POST', '/v1/orders', body)
      assert.equal(res.statusCode, 422, 'unknown fields are refused')
      const one = await detail(owner, (await lineOf(res.headers['x-request-id'] as string)).id)
      const whole = JSON.stringify(body)
      assert.equal(one.request_body_bytes, Buffer.byteLength(whole))
      assert.equal(one.request_body_truncated, true)
      const kept = Buffer.byteLength(one.request_body)
      assert.ok(kept <= KEPT_BODY_BYTES && kept > KEPT_BODY_BYTES - 200, `${kept} bytes kept`)
      assert.ok(!one.request_body.includes('\uFFFD'), 'no character cut in half')
      assert.ok(one.request_body.includes('whsec_REDACTED'))
      assert.ok(!one.request_body.includes('whsec_AAAA'))
      assert.ok(!one.request_body.includes(key.key))
      assert.match(one.curl, /--data-binary @request\.json$/, 'a cut body is not inlined')
    })

    test('viewers read the lines without bodies', async () => {
      const res = await t.api(key.key, 'POST', '/v1/orders', orderBody({ items: [] }))
      const line = await lineOf(res.headers['x-request-id'] as string, viewer)
      const one = await detail(viewer, line.id)
      assert.equal(one.bodies_hidden, true)
      assert.equal(one.request_body, null)
      assert.equal(one.response_body, null)
      assert.equal(one.error_code, 'validation_failed')
      assert.match(one.curl, /--data-binary @request\.json$/)
    })

    test('filters: status class, error code, method, path, key, time; pages by cursor', async () => {
      const other = await t.createKey(orgId)
      const tag = randomUUID()
      const started = new Date(Date.now() - 1000).toISOString()
      const ok = await t.api(other.key, 'GET', `/v1/orders?limit=1&tag=${tag}`)
      assert.equal(ok.statusCode, 422, 'unknown query parameters are refused')
      const missing = await t.api(other.key, 'GET', `/v1/orders/${randomUUID()}`)
      assert.equal(missing.statusCode, 404)
      const listed = await t.api(other.key, 'GET', '/v1/webhook-endpoints')
      assert.equal(listed.statusCode, 200)

      const byKey = await lines(owner, `?key_id=${other.id}`)
      assert.deepEqual(
        byKey.map((l) => l.status),
        [200, 404, 422],
      )
      assert.deepEqual(
        (await lines(owner, `?key_id=${other.id}&status_class=4xx`)).map((l) => l.status),
        [404, 422],
      )
      assert.deepEqual(
        (await lines(owner, `?key_id=${other.id}&error_code=not_found`)).map((l) => l.status),
        [404],
      )
      assert.deepEqual(
        (await lines(owner, `?key_id=${other.id}&path=/v1/webhook-endpoints`)).map((l) => l.status),
        [200],
      )
      assert.deepEqual(
        (await lines(owner, `?key_id=${other.id}&path=/v1/orders&method=GET`)).map((l) => l.status),
        [404, 422],
      )
      assert.equal((await lines(owner, `?key_id=${other.id}&created_since=${started}`)).length, 3)
      assert.equal((await lines(owner, `?key_id=${other.id}&created_until=${started}`)).length, 0)
      assert.equal((await lines(owner, `?key_id=${other.id}&environment=live`)).length, 0)

      const first = await owner.call('GET', `/requests?key_id=${other.id}&limit=2`)
      const page = first.json()
      assert.equal(page.data.length, 2)
      const second = (
        await owner.call('GET', `/requests?key_id=${other.id}&limit=2&cursor=${page.next_cursor}`)
      ).json()
      assert.deepEqual(
        [...page.data, ...second.data].map((l: Line) => l.id),
        byKey.map((l) => l.id),
      )
      assert.equal(second.next_cursor, null)

      assertError(await owner.call('GET', '/requests?status_class=6xx'), 422, 'validation_failed')
      assertError(await owner.call('GET', '/requests?path=/orders'), 422, 'validation_failed')
      assertError(await owner.call('GET', '/requests?cursor=nonsense'), 422, 'validation_failed')
    })

    test('another organization, the other environment and an unknown id: 404; requests without a key are not logged', async () => {
      const res = await t.api(key.key, 'GET', '/v1/orders?limit=1')
      const line = await lineOf(res.headers['x-request-id'] as string)
      const otherOrg = await t.createOrganization('Elsewhere')
      const stranger = (await memberOf(t, otherOrg.id, 'owner')).client
      assertError(await stranger.call('GET', `/requests/${line.id}`), 404, 'not_found')
      assert.equal((await lines(stranger)).length, 0)
      assertError(await owner.call('GET', `/requests/${line.id}?environment=live`), 404, 'not_found')
      assertError(await owner.call('GET', '/requests/not-an-id'), 404, 'not_found')

      const keyless = await t.api(undefined, 'GET', '/v1/orders', undefined)
      assert.equal(keyless.statusCode, 401)
      const wrong = await t.api('svc_test_wrong', 'GET', '/v1/orders')
      assert.equal(wrong.statusCode, 401)
      await t.services.requests.recorder.flush()
      for (const r of [keyless, wrong]) {
        const found = await t.db
          .selectFrom('api_requests')
          .select('id')
          .where('request_id', '=', r.headers['x-request-id'] as string)
          .execute()
        assert.equal(found.length, 0)
      }
    })

    test("the header search finds a request by the answer's X-Request-Id", async () => {
      const requestId = `my-trace-${randomUUID()}`
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/orders/none',
        headers: { authorization: `Bearer ${key.key}`, 'x-request-id': requestId },
      })
      assert.equal(res.headers['x-request-id'], requestId)
      const found = await owner.call('GET', `/search?q=${requestId}`)
      assert.equal(found.statusCode, 200, found.body)
      const [hit, ...more] = found.json().data.requests
      assert.equal(more.length, 0)
      assert.equal(hit.request_id, requestId)
      assert.equal(hit.status, 404)
      assert.equal(hit.path, '/v1/orders/none')
      assert.equal(
        (await owner.call('GET', '/search?q=my-trace')).json().data.requests.length,
        0,
        'the whole id only',
      )
    })
  })

  describe('keeping the log bounded', () => {
    test('pruning removes lines past the days kept and beyond the cap, oldest first, per environment', async () => {
      const org = (await t.createOrganization('Pruned Prints')).id
      const someKey = randomUUID()
      const now = Date.now()
      const line = (environment: 'test' | 'live', ageDays: number, n: number) => ({
        id: randomUUID(),
        organization_id: org,
        environment,
        key_id: someKey,
        key_prefix: 'svc_test_abcd',
        created_at: new Date(now - ageDays * 86_400_000 - n),
        method: 'GET',
        path: '/v1/orders',
        status: 200,
        duration_ms: 1,
        request_id: randomUUID(),
      })
      await t.db
        .insertInto('api_requests')
        .values([
          ...Array.from({ length: 5 }, (_, n) => line('test', 1, n)),
          line('test', 40, 0),
          ...Array.from({ length: 2 }, (_, n) => line('live', 2, n)),
          line('live', 31, 0),
        ])
        .execute()
      const count = async (environment: string) =>
        (
          await t.db
            .selectFrom('api_requests')
            .select('created_at')
            .where('organization_id', '=', org)
            .where('environment', '=', environment as 'test')
            .orderBy('created_at', 'desc')
            .execute()
        ).map((r) => Math.floor((now - r.created_at.getTime()) / 86_400_000))

      await t.services.requests.prune({ days: 30, maxLines: 3 })
      assert.deepEqual(await count('test'), [1, 1, 1], 'the newest three of the test lines')
      assert.deepEqual(await count('live'), [2, 2], 'the live lines within 30 days')
      await t.services.requests.prune({ days: 1, maxLines: 3 })
      assert.deepEqual(await count('test'), [])
      assert.deepEqual(await count('live'), [])
    })

    test('a request never waits for its line: with the log table locked, orders are still answered', {
      skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL,
    }, async () => {
      const client = new pg.Client({ connectionString: t.testDb.url })
      await client.connect()
      try {
        await t.services.requests.recorder.flush()
        await client.query('begin')
        await client.query('lock table api_requests in access exclusive mode')
        const res = await t.api(
          key.key,
          'POST',
          '/v1/orders',
          orderBody({ external_order_id: `RL-${randomUUID()}` }),
        )
        assert.equal(res.statusCode, 201)
        const flushed = t.services.requests.recorder.flush()
        await client.query('rollback')
        await flushed
        const found = await t.db
          .selectFrom('api_requests')
          .select('status')
          .where('request_id', '=', res.headers['x-request-id'] as string)
          .execute()
        assert.deepEqual(found, [{ status: 201 }])
      } finally {
        await client.end()
      }
    })
  })
})

describe('secrets', () => {
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
})
