import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify from 'fastify'
import { sql } from 'kysely'
import { loggerOptions } from '../../../../src/http/logging.ts'
import { REPLAY_AHEAD } from '../../../../src/modules/webhooks/worker/replay-feeder.ts'
import { createTestApp, ISO_MS, manualClock, orderBody, type TestApp } from '../../../helpers/app.ts'
import { memberOf, operatorOf } from '../../../helpers/dashboard.ts'
import { useDispatcherApp } from '../../../helpers/dispatcher.ts'
import { assertError, assertValidation } from '../../../helpers/errors.ts'
import { loopbackResolver } from '../../../helpers/https-receiver.ts'
import { waitUntil } from '../../../helpers/wait.ts'
import {
  createEndpoint,
  DELIVERY_KEYS,
  type Delivery,
  listDeliveries,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../../helpers/webhook-endpoints.ts'
import { closedPort } from '../../../helpers/webhook-targets.ts'

describe('filters and cursor', () => {
  interface Page {
    data: Delivery[]
    next_cursor: string | null
  }

  /**
   * The delivery log's filters and cursor, without a worker: entries stay
   * pending unless their endpoint is deleted (failed) or a result is recorded
   * as the worker records it (succeeded). The clock is the test's, so
   * created_at is set by the test while ids keep the database's time order.
   */
  let t: TestApp
  const clock = manualClock(new Date('2026-11-20T08:00:00.000Z'))
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let other: Awaited<ReturnType<TestApp['tenant']>>
  let a: string
  let b: string
  /** Every live entry of org, newest first, as stored. */
  let stored: { id: string; endpoint_id: string; event_id: string; event_type: string; created_at: Date }[]
  const orders: string[] = []

  const page = async (query: string, key = org.liveKey): Promise<Page> => {
    const res = await t.api(key, 'GET', `/v1/webhook-deliveries${query}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json() as Page
    assert.deepEqual(Object.keys(body), ['data', 'next_cursor'])
    for (const d of body.data) assert.deepEqual(Object.keys(d).sort(), DELIVERY_KEYS)
    return body
  }
  /** Every entry a query finds, following next_cursor. */
  const walk = async (query: string, limit = 2) => {
    const ids: string[] = []
    let cursor: string | null = null
    do {
      const sep = query ? '&' : '?'
      const next: Page = await page(
        `${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )
      assert.ok(next.data.length <= limit)
      ids.push(...next.data.map((d) => d.id))
      cursor = next.next_cursor
    } while (cursor)
    return ids
  }
  const expected = (keep: (row: (typeof stored)[number]) => boolean) => stored.filter(keep).map((r) => r.id)

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, clock, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    org = await t.tenant('Log filters')
    other = await t.tenant('Log filters other')
    a = (await createEndpoint(t, org.liveKey, 'https://webhook.test/filters-a')).endpoint.id
    b = (await createEndpoint(t, org.liveKey, 'https://webhook.test/filters-b')).endpoint.id
    const theirs = (await createEndpoint(t, other.liveKey, 'https://webhook.test/filters-theirs')).endpoint.id
    const testEnv = (await createEndpoint(t, org.testKey, 'https://webhook.test/filters-test')).endpoint.id
    // An hour apart: three orders (two deliveries each), a cancellation of the
    // first (two more), pings to a only; the other organization and the test
    // environment get entries at the same times.
    for (let n = 0; n < 3; n++) {
      clock.advance(3_600_000)
      const res = await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: `F-${n}` }))
      assert.equal(res.statusCode, 201, res.body)
      orders.push(res.json().data.order.id)
      await t.api(other.liveKey, 'POST', `/v1/webhook-endpoints/${theirs}/test`)
      await t.api(org.testKey, 'POST', `/v1/webhook-endpoints/${testEnv}/test`)
    }
    clock.advance(3_600_000)
    assert.equal((await t.admin('POST', `/admin/v1/orders/${orders[0]}/cancel`)).statusCode, 200)
    for (let n = 0; n < 3; n++) {
      clock.advance(3_600_000)
      assert.equal((await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${a}/test`)).statusCode, 202)
    }
    stored = await t.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id', 'event_id', 'event_type', 'created_at'])
      .where('organization_id', '=', org.orgId)
      .where('environment', '=', 'live')
      .orderBy('id', 'desc')
      .execute()
    assert.equal(stored.length, 3 * 2 + 2 + 3)
  })
  after(() => t.close())

  describe('GET /v1/webhook-deliveries: filters and cursor', () => {
    test('no new parameter: the answer the reference specifies, plus next_cursor', async () => {
      const all = await page('')
      assert.deepEqual(
        all.data.map((d) => d.id),
        stored.map((r) => r.id),
      )
      assert.equal(all.next_cursor, null, 'everything fits in the default 25')
      for (const d of all.data) assert.equal(d.error_message, null)
      const one = await page('?limit=1')
      assert.deepEqual(
        one.data.map((d) => d.id),
        [stored[0]!.id],
      )
      assert.equal(typeof one.next_cursor, 'string')
    })

    test('event_type, event_id, order_id, endpoint_id and the created_at window, alone and combined', async () => {
      const ids = async (query: string) => (await page(query)).data.map((d) => d.id)
      assert.deepEqual(
        await ids('?event_type=ping'),
        expected((r) => r.event_type === 'ping'),
      )
      assert.equal((await ids('?event_type=ping')).length, 3)
      assert.deepEqual(
        await ids('?event_type=order.cancelled'),
        expected((r) => r.event_type === 'order.cancelled'),
      )
      assert.deepEqual(await ids('?event_type=order.production_started'), [])

      const event = stored.find((r) => r.event_type === 'order.received')!.event_id
      assert.deepEqual(
        await ids(`?event_id=${event}`),
        expected((r) => r.event_id === event),
      )
      assert.equal((await ids(`?event_id=${event}`)).length, 2)

      const orderEvents = await t.db.selectFrom('events').select(['id', 'order_id']).execute()
      const ofOrder = (orderId: string) =>
        new Set(orderEvents.filter((e) => e.order_id === orderId).map((e) => e.id))
      const first = ofOrder(orders[0]!)
      assert.equal(first.size, 2, 'order.received and order.cancelled')
      assert.deepEqual(
        await ids(`?order_id=${orders[0]}`),
        expected((r) => first.has(r.event_id)),
      )
      assert.equal((await ids(`?order_id=${orders[0]}`)).length, 4)
      assert.deepEqual(
        await ids(`?order_id=${orders[0]}&endpoint_id=${b}&event_type=order.cancelled`),
        expected((r) => first.has(r.event_id) && r.endpoint_id === b && r.event_type === 'order.cancelled'),
      )
      assert.equal(
        (await ids(`?order_id=${orders[0]}&endpoint_id=${b}&event_type=order.cancelled`)).length,
        1,
      )

      // The window: since inclusive, until exclusive, on created_at (the clock's time).
      const times = [...new Set(stored.map((r) => r.created_at.getTime()))].sort()
      const since = new Date(times[1]!).toISOString()
      const until = new Date(times[4]!).toISOString()
      const inWindow = (r: (typeof stored)[number]) =>
        r.created_at.getTime() >= times[1]! && r.created_at.getTime() < times[4]!
      assert.deepEqual(await ids(`?created_since=${since}&created_until=${until}`), expected(inWindow))
      assert.equal((await ids(`?created_since=${since}&created_until=${until}`)).length, 6)
      assert.deepEqual(
        await ids(`?created_since=${since}`),
        expected((r) => r.created_at.getTime() >= times[1]!),
      )
      assert.deepEqual(
        await ids(`?created_until=${until}`),
        expected((r) => r.created_at.getTime() < times[4]!),
      )
      // An offset written with + in a URL arrives as a space, and is read back as +.
      const plus = new Date(times[4]! + 2 * 3_600_000)
        .toISOString()
        .replace('Z', '')
        .replace(/\.\d+$/, '')
      assert.deepEqual(
        await ids(`?created_until=${plus}+02:00&endpoint_id=${a}`),
        expected((r) => r.created_at.getTime() < times[4]! && r.endpoint_id === a),
      )
    })

    test('ids of another organization or environment match nothing; endpoint_id keeps its 404', async () => {
      const theirs = await page('', other.liveKey)
      assert.equal(theirs.data.length, 3)
      assert.deepEqual((await page(`?event_id=${theirs.data[0]!.event_id}`)).data, [])
      assert.deepEqual((await page(`?order_id=${orders[0]}`, other.liveKey)).data, [])
      assert.deepEqual((await page(`?order_id=${orders[0]}`, org.testKey)).data, [])
      assert.deepEqual((await page(`?order_id=${UNKNOWN_ID}`)).data, [])
      assertError(
        await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${theirs.data[0]!.endpoint_id}`),
        404,
        'not_found',
      )
    })

    test('status: pending, failed (the endpoint was deleted) and succeeded (a recorded result)', async () => {
      const s = await t.tenant('Log status')
      const keep = (await createEndpoint(t, s.liveKey, 'https://webhook.test/status-keep')).endpoint.id
      const gone = (await createEndpoint(t, s.liveKey, 'https://webhook.test/status-gone')).endpoint.id
      for (let n = 0; n < 3; n++) {
        clock.advance(1000)
        await t.api(s.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: `S-${n}` }))
      }
      assert.equal((await t.api(s.liveKey, 'DELETE', `/v1/webhook-endpoints/${gone}`)).statusCode, 200)
      // One of keep's deliveries succeeds, as the worker records it: its queue row goes.
      const [done] = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', keep)
        .orderBy('id')
        .limit(1)
        .execute()
      await t.db.deleteFrom('webhook_queue').where('delivery_id', '=', done!.id).execute()
      await t.db
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', attempts: 1, next_attempt_at: null })
        .where('id', '=', done!.id)
        .execute()
      const rows = await t.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status', 'endpoint_id'])
        .where('organization_id', '=', s.orgId)
        .orderBy('id', 'desc')
        .execute()
      const byStatus = (status: string) => rows.filter((r) => r.status === status).map((r) => r.id)
      assert.deepEqual(
        [byStatus('pending').length, byStatus('failed').length, byStatus('succeeded').length],
        [2, 3, 1],
      )
      for (const status of ['pending', 'failed', 'succeeded']) {
        const got = await page(`?status=${status}`, s.liveKey)
        assert.deepEqual(
          got.data.map((d) => d.id),
          byStatus(status),
          status,
        )
        for (const d of got.data) assert.equal(d.status, status)
      }
      const failed = (await page('?status=failed', s.liveKey)).data
      for (const d of failed) {
        assert.equal(d.error_code, 'endpoint_disabled')
        assert.match(d.error_message ?? '', /disabled or deleted/)
      }
      assert.deepEqual(
        (await page(`?status=pending&endpoint_id=${keep}&limit=1`, s.liveKey)).data.map((d) => d.id),
        byStatus('pending').slice(0, 1),
      )
    })

    test('paging with next_cursor: every entry once, in order, while new entries arrive; filters kept', async () => {
      const p = await t.tenant('Log paging')
      const ep = (await createEndpoint(t, p.liveKey, 'https://webhook.test/paging')).endpoint.id
      const ping = async () => {
        clock.advance(1000)
        assert.equal((await t.api(p.liveKey, 'POST', `/v1/webhook-endpoints/${ep}/test`)).statusCode, 202)
      }
      for (let n = 0; n < 7; n++) await ping()
      const before = (await page('?limit=100', p.liveKey)).data.map((d) => d.id)
      assert.equal(before.length, 7)
      const seen: string[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const res: Page = await page(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`, p.liveKey)
        seen.push(...res.data.map((d) => d.id))
        cursor = res.next_cursor
        pages++
        // New entries between pages are newer than every page's first entry: they never shift a page.
        await ping()
      } while (cursor)
      assert.equal(pages, 3)
      assert.deepEqual(seen, before, 'no duplicates, no gaps, newest first')
      // With filters, and page sizes that divide the entries evenly or not.
      assert.deepEqual(
        await walk('?event_type=order.received', 3),
        expected((r) => r.event_type === 'order.received'),
      )
      assert.deepEqual(
        await walk(`?endpoint_id=${a}`, 2),
        expected((r) => r.endpoint_id === a),
      )
      assert.deepEqual(
        await walk('', 1),
        stored.map((r) => r.id),
      )
      // Within a window, pages go by created_at, then id (the same order here).
      const oldest = stored.at(-1)!.created_at.getTime()
      const since = new Date(oldest + 1).toISOString()
      assert.deepEqual(
        await walk(`?created_since=${since}`, 2),
        expected((r) => r.created_at.getTime() > oldest),
      )
      assert.deepEqual(
        await walk(`?created_until=${since}`, 1),
        expected((r) => r.created_at.getTime() === oldest),
      )
      assert.equal((await walk(`?created_until=${since}`, 1)).length, 2)
    })
  })

  describe('the delivery log: bad values, one entry, the operator', () => {
    test('bad values: 422 validation_failed naming the parameter; unknown parameters too', async () => {
      const cursor = (await page('?limit=1')).next_cursor!
      const cases: [string, [string, string][]][] = [
        ['?status=done', [['invalid_format', 'status']]],
        ['?status=', [['invalid_format', 'status']]],
        ['?event_type=order.shipped', [['invalid_format', 'event_type']]],
        ['?event_id=123', [['invalid_format', 'event_id']]],
        ['?order_id=not-a-uuid', [['invalid_format', 'order_id']]],
        ['?created_since=yesterday', [['invalid_format', 'created_since']]],
        ['?created_until=2026-11-20', [['invalid_format', 'created_until']]],
        [
          '?created_since=2026-11-20T10:00:00.000Z&created_until=2026-11-20T10:00:00.000Z',
          [['invalid_format', 'created_until']],
        ],
        ['?cursor=garbage', [['invalid_format', 'cursor']]],
        [`?cursor=${cursor.slice(0, -2)}`, [['invalid_format', 'cursor']]],
        [
          `?cursor=${Buffer.from(`d1.2026-11-20T10:00:00.000Z|${UNKNOWN_ID}x`).toString('base64url')}`,
          [['invalid_format', 'cursor']],
        ],
        ['?limit=101', [['too_large', 'limit']]],
        ['?state=failed', [['unknown_field', 'state']]],
        [
          '?status=done&event_id=1',
          [
            ['invalid_format', 'status'],
            ['invalid_format', 'event_id'],
          ],
        ],
      ]
      for (const [query, entries] of cases) {
        assertValidation(await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries${query}`), entries)
      }
    })

    test('GET /v1/webhook-deliveries/{id}: the entry; 404 for unknown, foreign and other-environment ids; scope first', async () => {
      const [newest] = (await page('?limit=1')).data
      const res = await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries/${newest!.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { delivery: newest, attempts: [] } })
      const theirs = (await page('?limit=1', other.liveKey)).data[0]!
      const testEntry = (await page('?limit=1', org.testKey)).data[0]!
      for (const id of [UNKNOWN_ID, theirs.id, testEntry.id, 'not-a-uuid']) {
        assertError(await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries/${id}`), 404, 'not_found', id)
      }
      const { key } = await t.createKey(org.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
      assertError(await t.api(key, 'GET', `/v1/webhook-deliveries/${newest!.id}`), 403, 'insufficient_scope')
      assertError(await t.api(key, 'GET', `/v1/webhook-deliveries/${UNKNOWN_ID}`), 403, 'insufficient_scope')
    })

    test('operator: the same filters and cursor across organizations, and one entry with its attempts', async () => {
      const list = async (query: string) => {
        const res = await t.admin('GET', `/admin/v1/webhook-deliveries${query}`)
        assert.equal(res.statusCode, 200, res.body)
        assert.deepEqual(Object.keys(res.json()), ['data', 'next_cursor'])
        return res.json() as Page & { data: (Delivery & { organization_id: string })[] }
      }
      // The organization's test environment has pings too: endpoint a's are live ones.
      const pings = await list(`?organization_id=${org.orgId}&endpoint_id=${a}&event_type=ping&limit=2`)
      assert.deepEqual(
        pings.data.map((d) => d.id),
        expected((r) => r.event_type === 'ping').slice(0, 2),
      )
      const rest = await list(
        `?organization_id=${org.orgId}&endpoint_id=${a}&event_type=ping&limit=2&cursor=${pings.next_cursor}`,
      )
      assert.deepEqual(
        rest.data.map((d) => d.id),
        expected((r) => r.event_type === 'ping').slice(2),
      )
      assert.equal(rest.next_cursor, null)
      assert.deepEqual(
        (await list(`?order_id=${orders[1]}`)).data.map((d) => d.id),
        (await page(`?order_id=${orders[1]}`)).data.map((d) => d.id),
      )
      assertValidation(await t.admin('GET', '/admin/v1/webhook-deliveries?status=nope'), [
        ['invalid_format', 'status'],
      ])

      const one = await t.admin('GET', `/admin/v1/webhook-deliveries/${stored[0]!.id}`)
      assert.equal(one.statusCode, 200, one.body)
      assert.equal(one.json().data.delivery.id, stored[0]!.id)
      assert.equal(one.json().data.delivery.organization_id, org.orgId)
      assert.deepEqual(one.json().data.attempts, [])
      assertError(await t.admin('GET', `/admin/v1/webhook-deliveries/${UNKNOWN_ID}`), 404, 'not_found')
    })
  })
})

describe('attempts and error messages', () => {
  const setup = useDispatcherApp()

  interface Attempt {
    attempt: number
    started_at: string
    duration_ms: number | null
    response_status: number | null
    response_snippet: string | null
    error_code: string | null
    error_message: string | null
  }

  /** A logger writing JSON lines into an array, as the service's logger writes them. */
  function capturedLog() {
    const raw: string[] = []
    const stream = new Writable({
      write(chunk, _encoding, done) {
        raw.push(...String(chunk).split('\n').filter(Boolean))
        done()
      },
    })
    const log = Fastify({ logger: loggerOptions({ level: 'info', pretty: false, secrets: [], stream }) }).log
    return { log, raw, lines: () => raw.map((l) => JSON.parse(l) as Record<string, unknown>) }
  }

  describe('the delivery log says why: attempts and error messages', () => {
    test('failed twice, then succeeded: three attempts oldest first, the failures logged at warn without secrets', async (ctx) => {
      const s = await setup(ctx, {
        respond: (_req, n) => (n <= 2 ? { status: 500, body: 'busy, try later' } : { status: 204 }),
      })
      const { endpoint, secret } = await s.endpoint('/flaky')
      const captured = capturedLog()
      await s.dispatch({ retryDelaysMs: [200, 200], log: captured.log })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.status === 'succeeded')

      const res = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries/${row.id}`)
      assert.equal(res.statusCode, 200, res.body)
      const { delivery, attempts } = res.json().data as {
        delivery: { id: string; attempts: number; error_code: null; error_message: null; status: string }
        attempts: Attempt[]
      }
      assert.deepEqual(
        [delivery.id, delivery.status, delivery.attempts, delivery.error_code, delivery.error_message],
        [row.id, 'succeeded', 3, null, null],
      )
      assert.deepEqual(
        attempts.map((a) => [
          a.attempt,
          a.response_status,
          a.response_snippet,
          a.error_code,
          a.error_message,
        ]),
        [
          [1, 500, 'busy, try later', 'http_error', 'HTTP 500'],
          [2, 500, 'busy, try later', 'http_error', 'HTTP 500'],
          [3, 204, null, null, null],
        ],
      )
      for (const a of attempts) {
        assert.deepEqual(Object.keys(a).sort(), [
          'attempt',
          'duration_ms',
          'error_code',
          'error_message',
          'response_snippet',
          'response_status',
          'started_at',
        ])
        assert.match(a.started_at, ISO_MS)
        assert.ok(Number.isInteger(a.duration_ms) && a.duration_ms! >= 0)
      }
      const started = attempts.map((a) => Date.parse(a.started_at))
      assert.ok(started[0]! < started[1]! && started[1]! < started[2]!, 'oldest first')
      assert.ok(started[1]! - started[0]! >= 200, 'the retry waited its delay')
      // The operator sees the same history.
      const op = await s.t.admin('GET', `/admin/v1/webhook-deliveries/${row.id}`)
      assert.equal(op.statusCode, 200, op.body)
      assert.deepEqual(op.json().data.attempts, attempts)

      const failures = captured.lines().filter((l) => l.msg === 'webhook attempt failed')
      assert.deepEqual(
        failures.map((l) => [
          l.level,
          l.endpoint_id,
          l.delivery_id,
          l.attempt,
          l.error_code,
          l.error_message,
        ]),
        [
          [40, endpoint.id, row.id, 1, 'http_error', 'HTTP 500'],
          [40, endpoint.id, row.id, 2, 'http_error', 'HTTP 500'],
        ],
      )
      for (const l of failures) assert.equal(l.event_id, row.event_id)
      const text = captured.raw.join('\n')
      const [first] = s.receiver.received
      for (const hidden of [
        secret,
        secret.slice(6),
        String(first!.headers['x-service-signature']),
        first!.body.toString('utf8'),
      ]) {
        assert.ok(!text.includes(hidden), `${hidden.slice(0, 40)} was logged`)
      }
      const stored = await s.t.db
        .selectFrom('webhook_attempts')
        .select(['attempt', 'error_code'])
        .where('delivery_id', '=', row.id)
        .orderBy('attempt')
        .execute()
      assert.deepEqual(
        stored.map((r) => r.attempt),
        [1, 2, 3],
      )
    })

    test('error messages: HTTP 500, connection refused, a certificate for another name', async (ctx) => {
      const s = await setup(ctx, {
        respond: (req) => (req.url === '/fail' ? { status: 500 } : { status: 200 }),
      })
      const port = await closedPort()
      const fail = (await s.endpoint('/fail')).endpoint
      const refused = (await s.endpoint('', { url: `https://webhook.test:${port}/hook` })).endpoint
      const wrongName = (await s.endpoint('', { url: s.receiver.url('/hook', 'wrong-name.test') })).endpoint
      await s.dispatch({ retryDelaysMs: [60_000] })
      await s.order()
      const expected: [string, string, RegExp][] = [
        [fail.id, 'http_error', /^HTTP 500$/],
        [refused.id, 'connection_error', new RegExp(`^connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`)],
        [wrongName.id, 'tls_error', /does not match certificate's altnames/],
      ]
      for (const [id, code, message] of expected) {
        const row = await s.settled(id, (r) => r.error_code !== null)
        assert.equal(row.error_code, code)
        assert.match(row.error_message ?? '', message, code)
        const entry = (await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries/${row.id}`)).json().data
        assert.equal(entry.delivery.error_message, row.error_message)
        assert.equal(entry.delivery.status, 'pending', 'a retry is scheduled')
        assert.deepEqual(
          entry.attempts.map((a: Attempt) => [a.attempt, a.error_code, a.error_message]),
          [[1, code, row.error_message]],
        )
      }
      // The list shows the last attempt's message too.
      const failed = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${fail.id}`)
      assert.equal(failed.json().data[0].error_message, 'HTTP 500')
    })

    test('no answer within the deadline: "timed out after 1 s"', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 5000 }) })
      const { endpoint } = await s.endpoint('/slow')
      await s.dispatch({ timeoutMs: 1000, retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.deepEqual([row.error_code, row.error_message], ['timeout', 'timed out after 1 s'])
      const [attempt] = (await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries/${row.id}`)).json()
        .data.attempts as Attempt[]
      assert.deepEqual(
        [attempt!.error_code, attempt!.error_message, attempt!.response_status],
        ['timeout', 'timed out after 1 s', null],
      )
    })

    test('an untrusted (self-signed) certificate: "self-signed certificate"', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/hook')
      // No ca option: only Node's own trust store, which does not know the receiver's certificate.
      await s.dispatch({ ca: undefined, retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.equal(row.error_code, 'tls_error')
      assert.match(row.error_message ?? '', /^self[- ]signed certificate/)
      assert.equal(s.receiver.received.length, 0)
    })
  })
})

describe('redelivery', () => {
  const setup = useDispatcherApp()

  describe('redelivery', () => {
    test('POST /v1/webhook-deliveries/{id}/redeliver: a new entry for the same event, within the key’s organization and environment', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/redeliver')
      await s.dispatch()
      await s.order()
      const original = await s.settled(endpoint.id, (r) => r.status === 'succeeded')
      const path = `/v1/webhook-deliveries/${original.id}/redeliver`

      // Other keys see no such entry; a key without the scope is refused first.
      const other = await s.t.tenant('Someone else')
      assertError(await s.t.api(other.liveKey, 'POST', path), 404, 'not_found')
      assertError(await s.t.api(s.tenant.testKey, 'POST', path), 404, 'not_found')
      assertError(
        await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${UNKNOWN_ID}/redeliver`),
        404,
        'not_found',
      )
      assertError(
        await s.t.api(s.tenant.liveKey, 'POST', '/v1/webhook-deliveries/not-a-uuid/redeliver'),
        404,
        'not_found',
      )
      const narrow = await s.t.createKey(s.tenant.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
      assertError(await s.t.api(narrow.key, 'POST', path), 403, 'insufficient_scope')
      assert.equal((await s.deliveries(endpoint.id)).length, 1, 'refused requests add nothing')

      const res = await s.t.api(s.tenant.liveKey, 'POST', path)
      assert.equal(res.statusCode, 202, res.body)
      const redelivery = res.json().data.delivery as Delivery & { redelivery_of: string | null }
      assert.deepEqual(Object.keys(redelivery).sort(), DELIVERY_KEYS)
      assert.notEqual(redelivery.id, original.id)
      assert.equal(redelivery.event_id, original.event_id)
      assert.equal(redelivery.endpoint_id, endpoint.id)
      assert.equal(redelivery.status, 'pending')
      assert.equal(redelivery.attempts, 0)
      assert.equal(redelivery.redelivery_of, original.id)

      await s.receiver.waitFor(2)
      const [first, second] = s.receiver.received
      assert.equal(second!.headers['x-service-event-id'], original.event_id)
      assert.ok(second!.body.equals(first!.body), 'the same body')
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((d) => d.status === 'succeeded'),
        'the redelivery to succeed',
      )
      const log = await listDeliveries(s.t, s.tenant.liveKey, `?endpoint_id=${endpoint.id}`)
      assert.deepEqual(
        log.map((d) => {
          const e = d as Delivery & { redelivery_of: string | null; superseded_by: string | null }
          return [e.id, e.status, e.redelivery_of, e.superseded_by]
        }),
        [
          [redelivery.id, 'succeeded', original.id, null],
          // It had no retry waiting: nothing to supersede.
          [original.id, 'succeeded', null, null],
        ],
      )

      // A deleted endpoint gets no redelivery.
      assert.equal(
        (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode,
        200,
      )
      assertValidation(await s.t.api(s.tenant.liveKey, 'POST', path), [['invalid_format', 'id']])
      assert.equal((await s.deliveries(endpoint.id)).length, 2)
    })

    test('a redelivery that succeeds cancels the retry of the entry it repeats; the retry never arrives', async (ctx) => {
      // The first attempt fails; everything after it is accepted.
      const s = await setup(ctx, { respond: (_req, n) => ({ status: n === 1 ? 500 : 200 }) })
      const { endpoint } = await s.endpoint('/supersede')
      const retryMs = 2500
      await s.dispatch({ retryDelaysMs: [retryMs] })
      await s.order()
      const original = await s.settled(endpoint.id, (r) => r.status === 'pending' && r.attempts === 1)
      assert.equal(original.error_code, 'http_error')
      assert.equal((await s.queued(endpoint.id)).length, 1, 'its retry is queued')

      const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${original.id}/redeliver`)
      assert.equal(res.statusCode, 202, res.body)
      const redeliveryId = res.json().data.delivery.id as string
      const ended = await waitUntil(async () => {
        const rows = await s.deliveries(endpoint.id)
        const old = rows.find((r) => r.id === original.id)!
        return old.status !== 'pending' && rows
      }, 'the original to stop being pending')
      const byId = new Map(ended.map((r) => [r.id, r]))
      assert.equal(byId.get(redeliveryId)!.status, 'succeeded')
      const old = byId.get(original.id)!
      assert.deepEqual(
        [
          old.status,
          old.superseded_by,
          old.next_attempt_at,
          old.error_code,
          old.attempts,
          old.response_status,
        ],
        ['failed', redeliveryId, null, 'http_error', 1, 500],
      )
      assert.deepEqual(await s.queued(endpoint.id), [], 'no attempt left in the queue')
      const listed = (await listDeliveries(s.t, s.tenant.liveKey)).find(
        (d) => d.id === original.id,
      ) as Delivery & {
        superseded_by: string | null
      }
      assert.equal(listed.superseded_by, redeliveryId)
      assert.equal(listed.next_attempt_at, null)

      // Past the retry's time (and its jitter), still only the first attempt and the redelivery.
      await sleep(retryMs * 1.1 + 1000)
      assert.equal(s.receiver.received.length, 2)
    })

    test('a redelivery that fails leaves the retry of the entry it repeats in place', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 503 }) })
      const { endpoint } = await s.endpoint('/both-fail')
      await s.dispatch({ retryDelaysMs: [60_000] })
      await s.order()
      const original = await s.settled(endpoint.id, (r) => r.status === 'pending' && r.attempts === 1)
      const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${original.id}/redeliver`)
      assert.equal(res.statusCode, 202, res.body)
      const redeliveryId = res.json().data.delivery.id as string
      await waitUntil(async () => {
        const row = (await s.deliveries(endpoint.id)).find((r) => r.id === redeliveryId)
        return row?.attempts === 1
      }, 'the redelivery’s failed attempt')
      const old = (await s.deliveries(endpoint.id)).find((r) => r.id === original.id)!
      assert.deepEqual([old.status, old.superseded_by], ['pending', null])
      assert.ok(old.next_attempt_at)
      assert.deepEqual(
        (await s.queued(endpoint.id)).map((q) => q.delivery_id).sort(),
        [original.id, redeliveryId].sort(),
      )
    })
  })
})

describe('replay', () => {
  const setup = useDispatcherApp()

  const REPLAY_KEYS = [
    'created_at',
    'endpoint_id',
    'event_types',
    'finished_at',
    'id',
    'only_failed',
    'queued',
    'since',
    'status',
    'total',
    'until',
  ]

  /**
   * `n` events of an organization written in one statement, as the outbox
   * writes them (body included, each of its own order), recorded 1 ms apart
   * from `start`; data carries `external_order_id` SEED-<prefix>-<i>.
   */
  async function seedEvents(
    t: TestApp,
    orgId: string,
    n: number,
    start: Date,
    opts: { type?: string; environment?: string; prefix?: string } = {},
  ): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
    insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
    select id, ${orgId}::uuid, ${opts.environment ?? 'live'}::text, ${opts.type ?? 'order.received'}::text,
           (data->>'order_id')::uuid, data, json_build_object('id', id, 'type', ${opts.type ?? 'order.received'}::text,
             'created_at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'api_version', 'v1', 'data', data)::text, at
    from (
      select uuid_v7() as id, ${start}::timestamptz + i * interval '1 millisecond' as at,
             json_build_object('order_id', gen_random_uuid(),
                               'external_order_id', ${`SEED-${opts.prefix ?? 'x'}-`}::text || i) as data
      from generate_series(1, ${n}::int) i
    ) s
    order by at
    returning id`.execute(t.db)
    return rows.map((r) => r.id)
  }

  /** The seeded number of each request the receiver got (fresh orders' events left out). */
  const seeded = (bodies: Buffer[]) =>
    bodies
      .map(
        (b) => (JSON.parse(b.toString()) as { data: { external_order_id: string } }).data.external_order_id,
      )
      .filter((id) => id.startsWith('SEED-'))
      .map((id) => Number(id.split('-')[2]))

  const replays = (t: TestApp, endpointId: string) =>
    t.db.selectFrom('webhook_replays').selectAll().where('endpoint_id', '=', endpointId).execute()

  const hourAgo = () => new Date(Date.now() - 3600_000)

  describe('webhook replay', () => {
    test('refusals: unknown, foreign and disabled endpoints, bad windows and types; nothing is stored', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/refusals')
      const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
      const since = hourAgo().toISOString()
      const key = s.tenant.liveKey
      await seedEvents(s.t, s.tenant.orgId, 3, hourAgo())

      const other = await s.t.tenant('Other')
      assertError(await s.t.api(other.liveKey, 'POST', path, { since }), 404, 'not_found')
      assertError(await s.t.api(s.tenant.testKey, 'POST', path, { since }), 404, 'not_found')
      assertError(
        await s.t.api(key, 'POST', `/v1/webhook-endpoints/${UNKNOWN_ID}/replay`, { since }),
        404,
        'not_found',
      )
      const narrow = await s.t.createKey(s.tenant.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
      assertError(await s.t.api(narrow.key, 'POST', path, { since }), 403, 'insufficient_scope')
      assertError(await s.t.api(key, 'GET', path), 404, 'not_found')

      assertValidation(await s.t.api(key, 'POST', path, {}), [['required', 'since']])
      assertValidation(await s.t.api(key, 'POST', path, { since: 'yesterday' }), [
        ['invalid_format', 'since'],
      ])
      assertValidation(await s.t.api(key, 'POST', path, { since, event_types: ['order.received', 'ping'] }), [
        ['invalid_format', 'event_types.1'],
      ])
      assertValidation(await s.t.api(key, 'POST', path, { since, event_types: [] }), [
        ['too_few', 'event_types'],
      ])
      assertValidation(await s.t.api(key, 'POST', path, { since, only_failed: 'yes' }), [
        ['invalid_type', 'only_failed'],
      ])
      assertValidation(await s.t.api(key, 'POST', path, { since, from: since }), [['unknown_field', 'from']])
      assertValidation(await s.t.api(key, 'POST', path, { since, until: since }), [
        ['invalid_format', 'until'],
      ])
      assert.deepEqual(await replays(s.t, endpoint.id), [])

      assert.equal((await s.t.api(key, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode, 200)
      assertValidation(await s.t.api(key, 'POST', path, { since }), [['invalid_format', 'id']])
      assert.deepEqual(await replays(s.t, endpoint.id), [])
      assert.deepEqual(await s.deliveries(endpoint.id), [])
    })

    test('chooses the window, the types and only the failed events; one running replay per endpoint (409); fed when a worker runs', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/choose')
      const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
      const key = s.tenant.liveKey
      const start = hourAgo()
      const received = await seedEvents(s.t, s.tenant.orgId, 4, start, { prefix: 'r' })
      const [cancelled] = await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() + 10), {
        type: 'order.cancelled',
        prefix: 'c',
      })
      // Outside the window, of another environment, another organization, and a ping: never chosen.
      await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() - 60_000), { prefix: 'early' })
      await seedEvents(s.t, s.tenant.orgId, 1, start, { environment: 'test', prefix: 'test' })
      await seedEvents(s.t, (await s.t.tenant('Elsewhere')).orgId, 1, start, { prefix: 'other' })
      await seedEvents(s.t, s.tenant.orgId, 1, start, { type: 'ping', prefix: 'ping' })
      // Earlier deliveries to this endpoint: received[0] failed, received[1] failed then succeeded, received[2] pending.
      const log = (eventId: string, status: string) =>
        s.t.db
          .insertInto('webhook_deliveries')
          .values({
            id: crypto.randomUUID(),
            event_id: eventId,
            endpoint_id: endpoint.id,
            organization_id: s.tenant.orgId,
            environment: 'live',
            event_type: 'order.received',
            status: status as 'failed',
            next_attempt_at: null,
            created_at: start,
          })
          .execute()
      await log(received[0]!, 'failed')
      await log(received[1]!, 'failed')
      await log(received[1]!, 'succeeded')
      await log(received[2]!, 'pending')
      await log(cancelled!, 'failed')

      const since = new Date(start.getTime() - 1).toISOString()
      const until = new Date(start.getTime() + 60_000).toISOString()
      const onlyFailed = await s.t.api(key, 'POST', path, {
        since,
        until,
        event_types: ['order.received'],
        only_failed: true,
      })
      assert.equal(onlyFailed.statusCode, 202, onlyFailed.body)
      const replay = onlyFailed.json().data.replay
      assert.deepEqual(Object.keys(replay).sort(), REPLAY_KEYS)
      assert.deepEqual(
        [
          replay.status,
          replay.total,
          replay.queued,
          replay.since,
          replay.until,
          replay.event_types,
          replay.only_failed,
        ],
        ['running', 1, 0, since, until, ['order.received'], true],
      )
      // No worker yet: it stays running, and a second replay of the endpoint is refused.
      assertError(await s.t.api(key, 'POST', path, { since }), 409, 'replay_in_progress')
      assert.equal((await replays(s.t, endpoint.id)).length, 1)

      await s.dispatch()
      await waitUntil(
        async () => (await s.t.api(key, 'GET', path)).json().data.replay.status === 'completed',
        'the replay',
      )
      const done = (await s.t.api(key, 'GET', path)).json().data.replay
      assert.deepEqual([done.id, done.total, done.queued], [replay.id, 1, 1])
      assert.ok(done.finished_at)
      await s.receiver.waitFor(1)
      assert.deepEqual(
        s.receiver.received.map((r) => r.headers['x-service-event-id']),
        [received[0]],
      )
      const entry = (await s.deliveries(endpoint.id)).find((d) => d.replay_id === replay.id)!
      assert.equal(entry.event_id, received[0])

      // All order events of the window, in recorded order.
      const all = await s.t.api(key, 'POST', path, { since, until })
      assert.equal(all.statusCode, 202, all.body)
      assert.equal(all.json().data.replay.total, 5)
      await s.receiver.waitFor(6)
      const ids = s.receiver.received.slice(1).map((r) => r.headers['x-service-event-id'])
      assert.deepEqual(new Set(ids), new Set([...received, cancelled]))
    })

    test('replays only the types the endpoint’s enabled_events take', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/filtered')
      const key = s.tenant.liveKey
      const patched = await s.t.api(key, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
        enabled_events: ['order.cancelled'],
      })
      assert.equal(patched.statusCode, 200, patched.body)
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, 3, start, { prefix: 'r' })
      const [cancelled] = await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() + 10), {
        type: 'order.cancelled',
        prefix: 'c',
      })
      const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
      const asked = await s.t.api(key, 'POST', path, { since: new Date(start.getTime() - 1).toISOString() })
      assert.equal(asked.statusCode, 202, asked.body)
      assert.equal(asked.json().data.replay.total, 1)
      await s.dispatch()
      await s.receiver.waitFor(1)
      assert.deepEqual(
        s.receiver.received.map((r) => r.headers['x-service-event-id']),
        [cancelled],
      )
    })

    test('more than 10 000 matching events: 422 with the count, nothing stored', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/too-many')
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, 10_001, start)
      const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
        since: start.toISOString(),
      })
      const error = assertValidation(res, [['too_many', 'since']])
      assert.match(error.message, /10001 events match; a replay sends at most 10000: narrow the window/)
      assert.match(error.errors[0].message, /10001 events match/)
      assert.deepEqual(await replays(s.t, endpoint.id), [])
      const { n } = await s.t.db
        .selectFrom('webhook_replay_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      assert.equal(Number(n), 0)
    })

    test('a test endpoint’s replay matches nothing: pings are never replayed', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/test-env', { key: s.tenant.testKey })
      assert.equal(
        (await s.t.api(s.tenant.testKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).statusCode,
        202,
      )
      const res = await s.t.api(s.tenant.testKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
        since: hourAgo().toISOString(),
      })
      assert.equal(res.statusCode, 202, res.body)
      const replay = res.json().data.replay
      assert.deepEqual([replay.status, replay.total, replay.queued], ['completed', 0, 0])
      assert.ok(replay.finished_at)
    })

    test('deleting the endpoint cancels its running replay', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/cancel')
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, 5, start)
      const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
      const res = await s.t.api(s.tenant.liveKey, 'POST', path, { since: start.toISOString() })
      assert.equal(res.json().data.replay.status, 'running')
      assert.equal(
        (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode,
        200,
      )
      const after = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
      assert.deepEqual([after.status, after.total, after.queued], ['cancelled', 5, 0])
      const left = await s.t.db
        .selectFrom('webhook_replay_events')
        .select('seq')
        .where('replay_id', '=', after.id)
        .execute()
      assert.deepEqual(left, [])
    })

    test('operator: replay and its progress through /admin/v1', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/operator')
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, 3, start)
      const res = await s.t.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`, {
        since: start.toISOString(),
      })
      assert.equal(res.statusCode, 202, res.body)
      assert.equal(res.json().data.replay.total, 3)
      await s.dispatch()
      await s.receiver.waitFor(3)
      const got = await s.t.admin('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`)
      assert.equal(got.statusCode, 200)
      await waitUntil(
        async () =>
          (await s.t.admin('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`)).json().data.replay
            .status === 'completed',
        'the replay to complete',
      )
      assertError(
        await s.t.admin('POST', `/admin/v1/webhook-endpoints/${UNKNOWN_ID}/replay`, {
          since: hourAgo().toISOString(),
        }),
        404,
        'not_found',
      )
    })

    test('two workers feed one replay: every event queued once, in recorded order', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/two')
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, 400, start)
      await s.twoWorkers({ replayAhead: 8 })
      const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
        since: start.toISOString(),
      })
      assert.equal(res.json().data.replay.total, 400)
      await s.receiver.waitFor(400, 60_000)
      const entries = (await s.deliveries(endpoint.id)).filter(
        (d) => d.replay_id === res.json().data.replay.id,
      )
      assert.equal(entries.length, 400, 'one log entry per event')
      assert.equal(new Set(entries.map((e) => e.event_id)).size, 400)
      const arrived = seeded(s.receiver.received.map((r) => r.body))
      assert.equal(new Set(arrived).size, 400)
    })

    // bench:webhooks-replay does the same with 10 000 events and times it.
    test('400 events replayed while orders arrive: the orders’ first attempts do not wait for the backlog (within 1 s on a quiet machine), every replayed event arrives in recorded order', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/big')
      const total = 400
      const start = hourAgo()
      await seedEvents(s.t, s.tenant.orgId, total, start)
      await s.dispatch()
      // A warm worker (its connection to the receiver open) before anything is measured.
      await s.order()
      await s.receiver.waitFor(1)
      const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
      const res = await s.t.api(s.tenant.liveKey, 'POST', path, {
        since: start.toISOString(),
        until: new Date(start.getTime() + 60_000).toISOString(),
      })
      assert.equal(res.statusCode, 202, res.body)
      assert.equal(res.json().data.replay.total, total)
      const requested = Date.now()

      // Orders while the replay runs.
      const orders: string[] = []
      for (;;) {
        const replay = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
        if (replay.status !== 'running' || orders.length >= 40) break
        orders.push(await s.order())
        await new Promise((r) => setTimeout(r, 100))
      }
      assert.ok(orders.length >= 1, 'an order arrived during the replay')
      await s.receiver.waitFor(1 + total + orders.length, 60_000)
      // Delivery is at least once: a copy may have counted above before the last fresh event came.
      const freshIds = () =>
        new Set(
          s.receiver.received
            .slice(1)
            .map((r) => JSON.parse(r.body.toString()) as { id: string; data: { external_order_id: string } })
            .filter((e) => !e.data.external_order_id.startsWith('SEED-'))
            .map((e) => e.id),
        ).size
      await waitUntil(() => freshIds() >= orders.length, 'every fresh order’s event', 60_000)

      // Each fresh event's first attempt (delivery is at least once: a later copy does not count).
      const firsts = new Map<string, number>()
      for (const r of s.receiver.received.slice(1)) {
        const event = JSON.parse(r.body.toString()) as {
          id: string
          created_at: string
          data: { external_order_id: string }
        }
        if (event.data.external_order_id.startsWith('SEED-') || firsts.has(event.id)) continue
        firsts.set(event.id, r.at - Date.parse(event.created_at))
      }
      assert.equal(firsts.size, orders.length)
      const delays = [...firsts.values()]
      // Within 1 s, or, on a machine so loaded that the replay itself slows down,
      // well within the time the replay took: never behind the backlog.
      const replayed = s.receiver.received.filter((r) => r.body.toString().includes('"SEED-'))
      const drainMs = replayed.at(-1)!.at - requested
      assert.ok(
        Math.max(...delays) < Math.max(1000, drainMs / 2),
        `fresh events' first attempts after ${delays.join(', ')} ms; the replay took ${drainMs} ms`,
      )

      const all = seeded(s.receiver.received.map((r) => r.body))
      const seen = new Set<number>()
      const arrived = all.filter((n) => !seen.has(n) && Boolean(seen.add(n)))
      assert.equal(arrived.length, total, 'every replayed event arrived')
      const entries = await s.t.db
        .selectFrom('webhook_deliveries')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('event_id').distinct().as('events')])
        .where('replay_id', '=', res.json().data.replay.id)
        .executeTakeFirstOrThrow()
      assert.deepEqual([Number(entries.n), Number(entries.events)], [total, total], 'one log entry per event')
      // In recorded order, up to the attempts the worker sends at once.
      let highest = 0
      let displaced = 0
      for (const n of arrived) {
        highest = Math.max(highest, n)
        displaced = Math.max(displaced, highest - n)
      }
      assert.ok(displaced <= REPLAY_AHEAD, `an event arrived ${displaced} places late`)
      const replay = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
      assert.deepEqual([replay.status, replay.queued], ['completed', total])
    })
  })
})

describe('retry now', () => {
  /**
   * A failing endpoint in the dashboard API: its answers say when its next
   * probe runs and that its deliveries wait for it, and Retry now sends one
   * probe at once (owners, developers and operators; audited).
   */
  const setup = useDispatcherApp()

  /** Retries a minute apart: a probe within seconds is Retry now's, not the schedule's. */
  const MINUTE = [60_000, 60_000, 60_000, 60_000]

  const eventId = (r: { headers: Record<string, string | string[] | undefined> }) =>
    String(r.headers['x-service-event-id'])

  describe('a failing endpoint in the dashboard', () => {
    test('the endpoint, its log, a delivery, the order timeline and a sample say when the next probe runs', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 503 }) })
      const { endpoint } = await s.endpoint('/down')
      const viewer = await memberOf(s.t, s.tenant.orgId, 'viewer')
      const developer = await memberOf(s.t, s.tenant.orgId, 'developer')
      const get = async (path: string) => {
        const res = await viewer.client.call('GET', path)
        assert.equal(res.statusCode, 200, res.body)
        return res.json().data
      }
      const healthy = await get(`/webhook-endpoints/${endpoint.id}?environment=live`)
      assert.equal(healthy.endpoint.next_probe_at, null, 'not failing: no probe')

      await s.dispatch({ retryDelaysMs: MINUTE })
      await s.order()
      await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
      const orderId = await s.order()
      const probeAt = (await s.endpointRow(endpoint.id)).next_probe_at!.toISOString()
      assert.ok(Date.parse(probeAt) > Date.now() + 50_000, `the next probe about a minute ahead: ${probeAt}`)

      const one = (await get(`/webhook-endpoints/${endpoint.id}?environment=live`)).endpoint
      assert.equal(one.next_probe_at, probeAt)
      const list = await get('/webhook-endpoints?environment=live')
      assert.equal(list[0].next_probe_at, probeAt)

      const log = (await get(`/webhook-deliveries?environment=live&endpoint_id=${endpoint.id}`)) as {
        id: string
        attempts: number
        next_attempt_at: string
        endpoint_next_probe_at: string | null
      }[]
      assert.equal(log.length, 2)
      const [waiting, failed] = log
      // The second order's delivery: never attempted, its own time long past, and waiting for the probe.
      assert.equal(waiting!.attempts, 0)
      assert.ok(Date.parse(waiting!.next_attempt_at) < Date.now())
      assert.deepEqual(
        log.map((d) => d.endpoint_next_probe_at),
        [probeAt, probeAt],
      )
      assert.equal(failed!.attempts, 1)
      const detail = await get(`/webhook-deliveries/${waiting!.id}?environment=live`)
      assert.equal(detail.delivery.endpoint_next_probe_at, probeAt)
      assert.deepEqual(detail.attempts, [])

      const timeline = (await get(`/orders/${orderId}/timeline`)) as {
        deliveries: { id: string; endpoint_next_probe_at: string | null }[]
      }[]
      assert.deepEqual(
        timeline.flatMap((e) => e.deliveries.map((d) => [d.id, d.endpoint_next_probe_at])),
        [[waiting!.id, probeAt]],
      )

      const sample = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/sample?environment=live`,
        { type: 'order.received' },
      )
      assert.equal(sample.statusCode, 202, sample.body)
      assert.equal(sample.json().data.endpoint_next_probe_at, probeAt)
      const ping = await developer.client.call(
        'POST',
        `/webhook-endpoints/${endpoint.id}/test?environment=live`,
      )
      assert.equal(ping.statusCode, 202, ping.body)
      assert.equal(ping.json().data.endpoint_next_probe_at, probeAt)

      // A redelivery goes when due, breaker or not: its entry waits for no probe.
      const redelivered = await developer.client.call(
        'POST',
        `/webhook-deliveries/${failed!.id}/redeliver?environment=live`,
      )
      assert.equal(redelivered.statusCode, 202, redelivered.body)
      const redelivery = await get(
        `/webhook-deliveries/${redelivered.json().data.delivery.id}?environment=live`,
      )
      assert.equal(redelivery.delivery.endpoint_next_probe_at, null)
      // Only the first delivery and the redelivery were attempted (once the redelivery's result is recorded).
      const redeliveryId = redelivered.json().data.delivery.id
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).find((d) => d.id === redeliveryId)?.attempts === 1,
        'the redelivery to be attempted',
      )
      assert.equal(s.receiver.received.length, 2)
      assert.deepEqual(
        (await s.deliveries(endpoint.id)).filter((d) => d.attempts > 0).map((d) => d.id),
        [failed!.id, redeliveryId],
        'the waiting deliveries were not attempted',
      )
    })

    test('Retry now: one probe at once (not while one is on its way), audited; when it succeeds the waiting deliveries follow', async (ctx) => {
      let down = true
      let hang = false
      const s = await setup(ctx, {
        respond: () => ({ status: down ? 503 : 204, ...(hang ? { delayMs: 1500 } : {}) }),
      })
      const { endpoint } = await s.endpoint('/hook')
      const viewer = await memberOf(s.t, s.tenant.orgId, 'viewer')
      const developer = await memberOf(s.t, s.tenant.orgId, 'developer')
      const retry = (client: typeof viewer.client) =>
        client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`)
      // One attempt at a time to the endpoint, so arrival order is sending order.
      await s.dispatch({ retryDelaysMs: MINUTE, endpointConcurrency: 1 })
      await s.order()
      await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
      await s.order()
      await s.order()
      const scheduled = (await s.endpointRow(endpoint.id)).next_probe_at!

      // Viewers may not; nothing changes.
      assertError(await retry(viewer.client), 403, 'role_required')
      assert.deepEqual((await s.endpointRow(endpoint.id)).next_probe_at, scheduled)

      // Still down: one probe goes at once, the delivery that failed; it hangs, and a second Retry now changes nothing.
      hang = true
      const first = await retry(developer.client)
      assert.equal(first.statusCode, 202, first.body)
      assert.equal(first.json().data.probe, 'started')
      assert.ok(Date.parse(first.json().data.endpoint.next_probe_at) <= Date.now())
      await s.receiver.waitFor(2)
      const again = await retry(developer.client)
      assert.equal(again.statusCode, 202, again.body)
      assert.equal(again.json().data.probe, 'under_way')
      await waitUntil(
        async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 2,
        'its failure',
      )
      hang = false
      assert.equal(s.receiver.received.length, 2, 'one probe, nothing besides')
      const rows = await s.deliveries(endpoint.id)
      assert.deepEqual(
        rows.map((r) => [r.status, r.attempts]),
        [
          ['pending', 2],
          ['pending', 0],
          ['pending', 0],
        ],
      )
      const next = (await s.endpointRow(endpoint.id)).next_probe_at!
      assert.ok(next.getTime() > Date.now() + 50_000, 'the failed probe set the next one by the schedule')

      // Fixed: Retry now, and everything arrives within seconds, not at the next probe a minute away.
      down = false
      const fixed = await retry(developer.client)
      assert.equal(fixed.json().data.probe, 'started')
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
        'every delivery to succeed after Retry now',
      )
      assert.ok(Date.now() < next.getTime())
      const done = await s.deliveries(endpoint.id)
      assert.deepEqual(
        done.map((r) => r.attempts),
        [3, 1, 1],
      )
      assert.deepEqual(s.receiver.received.slice(2).map(eventId), [
        done[0]!.event_id,
        done[1]!.event_id,
        done[2]!.event_id,
      ])
      const closed = await s.endpointRow(endpoint.id)
      assert.deepEqual([closed.consecutive_failures, closed.next_probe_at], [0, null])

      // Not failing any more: nothing to retry, nothing changed.
      assertError(await retry(developer.client), 422, 'validation_failed')

      const audit = await developer.client.call('GET', '/audit-log?limit=100')
      const entries = (
        audit.json().data as {
          action: string
          actor: string
          subject: string
          details: Record<string, unknown>
        }[]
      ).filter((e) => e.action === 'webhook_endpoint.retried_now')
      assert.equal(entries.length, 2, 'the two Retry nows that started a probe')
      assert.deepEqual(
        entries.map((e) => [e.actor, e.subject, e.details.endpoint_id, e.details.delivery_id]),
        [
          [developer.email, s.receiver.url('/hook'), endpoint.id, done[0]!.id],
          [developer.email, s.receiver.url('/hook'), endpoint.id, done[0]!.id],
        ],
      )
    })

    test('Retry now in the console, by an operator, at an instance without a worker; another organization, a disabled endpoint', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 503 }) })
      const { endpoint } = await s.endpoint('/console')
      const owner = await memberOf(s.t, s.tenant.orgId, 'owner')
      const operator = await operatorOf(s.t)
      // The only worker is another instance's (on PostgreSQL): the request's instance wakes it through the database.
      await s.dispatch({ retryDelaysMs: MINUTE }, await s.instance())
      await s.order()
      await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')

      const listed = await operator.client.call(
        'GET',
        `/operator/organizations/${s.tenant.orgId}/webhook-endpoints`,
      )
      assert.equal(
        listed.json().data[0].next_probe_at,
        (await s.endpointRow(endpoint.id)).next_probe_at!.toISOString(),
      )
      const path = `/operator/webhook-endpoints/${endpoint.id}/retry-now`
      assertError(await owner.client.call('POST', path), 403, 'role_required')
      const res = await operator.client.call('POST', path)
      assert.equal(res.statusCode, 202, res.body)
      assert.equal(res.json().data.probe, 'started')
      await s.receiver.waitFor(2)
      const log = await operator.client.call('GET', '/operator/audit-log?limit=20')
      const entry = log
        .json()
        .data.find((e: { action: string }) => e.action === 'webhook_endpoint.retried_now')
      assert.equal(entry.actor, operator.email)
      assert.equal(entry.organization_id, s.tenant.orgId)

      // Another organization's member: 404, as for any of its endpoints.
      const stranger = await memberOf(s.t, (await s.t.tenant()).orgId, 'owner')
      assertError(
        await stranger.client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`),
        404,
        'not_found',
      )
      const removed = await owner.client.call('DELETE', `/webhook-endpoints/${endpoint.id}?environment=live`)
      assert.equal(removed.statusCode, 200, removed.body)
      assertError(
        await owner.client.call('POST', `/webhook-endpoints/${endpoint.id}/retry-now?environment=live`),
        422,
        'validation_failed',
      )
    })
  })
})
