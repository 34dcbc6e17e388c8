import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, manualClock, orderBody, type TestApp } from '../../helpers/app.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import {
  createEndpoint,
  DELIVERY_KEYS,
  type Delivery,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

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
    assert.equal((await ids(`?order_id=${orders[0]}&endpoint_id=${b}&event_type=order.cancelled`)).length, 1)

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
