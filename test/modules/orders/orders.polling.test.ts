import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createTestApp, manualClock, orderBody, type TestApp } from '../../helpers/app.ts'

interface Order {
  id: string
  external_order_id: string
  is_test: boolean
  updated_at: string
  items: { production_status: string | null }[]
}

const START = new Date('2026-11-22T10:00:00.000Z')

describe('GET /v1/orders and GET /v1/orders/:id (polling)', () => {
  const clock = manualClock(START)
  let t: TestApp

  before(async () => {
    t = await createTestApp({ clock })
  })
  after(() => t.close())

  async function createOrders(key: string, count: number): Promise<Order[]> {
    const orders: Order[] = []
    for (let n = 0; n < count; n++) {
      const res = await t.api(key, 'POST', '/v1/orders', orderBody())
      assert.equal(res.statusCode, 201, res.body)
      orders.push(res.json().data.order)
    }
    return orders
  }

  async function list(key: string, query: Record<string, string | number> = {}) {
    const qs = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString()
    const res = await t.api(key, 'GET', `/v1/orders${qs ? `?${qs}` : ''}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json() as { data: Order[]; next_cursor: string | null }
    assert.deepEqual(Object.keys(body).sort(), ['data', 'next_cursor'])
    return body
  }

  /** Follows next_cursor until it is null; `between` runs after every page. */
  async function walk(
    key: string,
    query: Record<string, string | number>,
    between?: (page: number) => Promise<void>,
  ): Promise<Order[][]> {
    const pages: Order[][] = []
    let cursor: string | null = null
    do {
      const body = await list(key, cursor === null ? query : { ...query, cursor })
      pages.push(body.data)
      cursor = body.next_cursor
      if (cursor !== null) assert.equal(typeof cursor, 'string')
      assert.ok(pages.length <= 100, 'the cursor never reached the last page')
      await between?.(pages.length)
    } while (cursor !== null)
    return pages
  }

  /** The polling order: updated_at, then id, ascending. */
  function sortedForPolling(orders: Order[]): string[] {
    return [...orders]
      .sort((a, b) =>
        a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1,
      )
      .map((o) => o.id)
  }

  function validationField(res: Awaited<ReturnType<TestApp['api']>>) {
    assert.equal(res.statusCode, 422, res.body)
    const { error } = res.json()
    assert.equal(error.code, 'validation_failed')
    assert.equal(typeof error.message, 'string')
    assert.match(error.doc_url, /\/developers\/errors\/validation_failed$/)
    assert.ok(Array.isArray(error.errors) && error.errors.length >= 1)
    return error as { field?: string; errors: { code: string; field: string }[] }
  }

  test('25 orders sharing one updated_at, paged by 7: each exactly once, ordered by id', async () => {
    clock.set(new Date('2026-11-22T10:00:00.000Z'))
    const { testKey } = await t.tenant('Same Instant')
    const created = await createOrders(testKey, 25)
    assert.equal(new Set(created.map((o) => o.updated_at)).size, 1, 'the clock did not move')

    const pages = await walk(testKey, { limit: 7 })
    assert.deepEqual(
      pages.map((p) => p.length),
      [7, 7, 7, 4],
    )
    const seen = pages.flat().map((o) => o.id)
    assert.equal(new Set(seen).size, seen.length, 'an order was returned twice')
    assert.deepEqual(seen, created.map((o) => o.id).sort())
  })

  test('a page boundary inside a group of equal updated_at values drops and repeats nothing', async () => {
    const { testKey } = await t.tenant('Groups')
    const created: Order[] = []
    // Three instants with 4, 5 and 3 orders each; limit 3 cuts through every group.
    for (const [at, count] of [
      ['2026-11-22T11:00:00.000Z', 4],
      ['2026-11-22T11:00:00.001Z', 5],
      ['2026-11-22T11:05:00.000Z', 3],
    ] as const) {
      clock.set(new Date(at))
      created.push(...(await createOrders(testKey, count)))
    }
    const pages = await walk(testKey, { limit: 3 })
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 3, 3],
    )
    assert.deepEqual(
      pages.flat().map((o) => o.id),
      sortedForPolling(created),
    )
    // Sorted ascending by updated_at across the whole walk.
    const stamps = pages.flat().map((o) => o.updated_at)
    assert.deepEqual(stamps, [...stamps].sort())
  })

  test('limit defaults to 50; next_cursor is null on the last page and when nothing matches', async () => {
    clock.set(new Date('2026-11-22T12:00:00.000Z'))
    const { testKey } = await t.tenant('Default Limit')
    const empty = await list(testKey)
    assert.deepEqual(empty, { data: [], next_cursor: null })

    const created = await createOrders(testKey, 52)
    const first = await list(testKey)
    assert.equal(first.data.length, 50)
    assert.equal(typeof first.next_cursor, 'string')
    const second = await list(testKey, { cursor: first.next_cursor! })
    assert.equal(second.data.length, 2)
    assert.equal(second.next_cursor, null)
    assert.deepEqual(
      [...first.data, ...second.data].map((o) => o.id),
      sortedForPolling(created),
    )

    // Exactly limit orders left: one full page and no further cursor.
    const exact = await list(testKey, { limit: 52 })
    assert.equal(exact.data.length, 52)
    assert.equal(exact.next_cursor, null)
    const max = await list(testKey, { limit: 100 })
    assert.equal(max.data.length, 52)
    const one = await list(testKey, { limit: 1 })
    assert.equal(one.data.length, 1)
    assert.equal(typeof one.next_cursor, 'string')
  })

  test('orders created while a poller walks the pages are not repeated and appear at the end', async () => {
    clock.set(new Date('2026-11-22T13:00:00.000Z'))
    const { liveKey } = await t.tenant('Busy Shop')
    const before = await createOrders(liveKey, 10)
    const added: Order[] = []
    const pages = await walk(liveKey, { limit: 4 }, async (page) => {
      // One order at the same instant, one a little later.
      if (page > 2) return
      added.push(...(await createOrders(liveKey, 1)))
      clock.advance(250)
      added.push(...(await createOrders(liveKey, 1)))
    })
    const seen = pages.flat().map((o) => o.id)
    assert.equal(new Set(seen).size, seen.length, 'an order was returned twice')
    assert.deepEqual(seen, sortedForPolling([...before, ...added]))
    assert.deepEqual(seen.slice(0, 10), sortedForPolling(before))
  })

  /** An order of about `mb` MB: items of 50 personalization fields of 5000 characters. */
  function largeOrderBody(mb: number) {
    const text = 'x'.repeat(5000)
    return orderBody({
      items: Array.from({ length: Math.max(1, Math.round((mb * 1024 * 1024) / (50 * 5000))) }, (_, i) => ({
        sku: `SKU-${i}`,
        name: `Item ${i}`,
        quantity: 1,
        personalization: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`f${k}`, text])),
      })),
    })
  }

  test('a page ends early, with next_cursor, once its orders pass 8 MB; each order once', async () => {
    clock.set(new Date('2026-11-22T13:30:00.000Z'))
    const { liveKey, orgId } = await t.tenant('Large Orders')
    const created: Order[] = []
    for (const mb of [3, 3, 3, 9, 0.25]) {
      const res = await t.api(liveKey, 'POST', '/v1/orders', largeOrderBody(mb))
      assert.equal(res.statusCode, 201, res.body.slice(0, 300))
      created.push(res.json().data.order)
      clock.advance(1000)
    }
    const pages = await walk(liveKey, { limit: 100 })
    // 3 + 3 MB fit the budget, a third 3 MB does not; a 9 MB order is a page of its
    // own (a page always holds one order), and the small one after it does not join it.
    assert.deepEqual(
      pages.map((p) => p.length),
      [2, 1, 1, 1],
    )
    assert.deepEqual(
      pages.flat().map((o) => o.id),
      created.map((o) => o.id),
    )
    const sizes = pages.map((p) => JSON.stringify(p).length)
    assert.ok(Math.max(...sizes) < 10 * 1024 * 1024, `page sizes ${sizes}`)
    // The operator's list of the organization pages by the same budget (newest first).
    const operatorPages: string[][] = []
    let cursor: string | null = null
    do {
      const res = await t.admin(
        'GET',
        `/admin/v1/organizations/${orgId}/orders?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      )
      assert.equal(res.statusCode, 200, res.body.slice(0, 300))
      const body = res.json() as { data: { id: string }[]; next_cursor: string | null }
      operatorPages.push(body.data.map((o) => o.id))
      cursor = body.next_cursor
    } while (cursor !== null && operatorPages.length < 10)
    assert.deepEqual(operatorPages, [
      [created[4]!.id],
      [created[3]!.id],
      [created[2]!.id, created[1]!.id],
      [created[0]!.id],
    ])
  })

  test('updated_since is inclusive and accepts Z and offsets', async () => {
    const { testKey } = await t.tenant('Since')
    clock.set(new Date('2026-11-22T14:00:00.000Z'))
    const [early] = await createOrders(testKey, 1)
    clock.set(new Date('2026-11-22T14:30:00.000Z'))
    const atBoundary = await createOrders(testKey, 2)
    clock.set(new Date('2026-11-22T15:00:00.000Z'))
    const [late] = await createOrders(testKey, 1)
    assert.equal(atBoundary[0]!.updated_at, '2026-11-22T14:30:00.000Z')

    const ids = async (since: string) => (await list(testKey, { updated_since: since })).data.map((o) => o.id)
    const fromBoundary = sortedForPolling([...atBoundary, late!])

    assert.deepEqual(await ids('2026-11-22T14:30:00.000Z'), fromBoundary)
    assert.deepEqual(await ids('2026-11-22T14:30:00Z'), fromBoundary)
    assert.deepEqual(await ids('2026-11-22T16:30:00.000+02:00'), fromBoundary)
    assert.deepEqual(await ids('2026-11-22T09:30:00-05:00'), fromBoundary)
    assert.deepEqual(await ids('2026-11-22T14:30:00.001Z'), [late!.id])
    assert.deepEqual(await ids('2026-11-22T16:30:00.001+02:00'), [late!.id])
    assert.deepEqual(await ids('2026-11-22T16:29:59.999+02:00'), fromBoundary)
    // URL-encoded "+" (%2B) is the offset; an offset without a colon is ISO 8601 too.
    assert.deepEqual(await ids('2026-11-22T16:30:00+0200'), fromBoundary)
    assert.deepEqual(await ids('2026-11-22T13:59:59.999Z'), sortedForPolling([early!, ...atBoundary, late!]))
    // A "+" typed into the URL unencoded arrives as a space and is read back as "+".
    const raw = await t.api(testKey, 'GET', '/v1/orders?updated_since=2026-11-22T16:30:00.001+02:00')
    assert.equal(raw.statusCode, 200)
    assert.deepEqual(
      raw.json().data.map((o: { id: string }) => o.id),
      [late!.id],
    )
    assert.deepEqual(await list(testKey, { updated_since: '2026-11-22T15:00:00.001Z' }), {
      data: [],
      next_cursor: null,
    })

    // updated_since and the cursor together: the walk stays inside the window.
    const pages = await walk(testKey, { updated_since: '2026-11-22T14:30:00.000Z', limit: 1 })
    assert.deepEqual(
      pages.flat().map((o) => o.id),
      fromBoundary,
    )
  })

  test('invalid limit: 422 validation_failed naming limit', async () => {
    const { testKey } = await t.tenant('Bad Limit')
    for (const [value, code] of [
      ['0', 'too_small'],
      ['101', 'too_large'],
      ['-1', 'too_small'],
      ['abc', 'invalid_type'],
      ['1.5', 'invalid_type'],
    ]) {
      const res = await t.api(testKey, 'GET', `/v1/orders?limit=${value}`)
      const error = validationField(res)
      assert.equal(error.field, 'limit', `limit=${value}`)
      assert.deepEqual(
        error.errors.map((e) => [e.code, e.field]),
        [[code, 'limit']],
        `limit=${value}`,
      )
    }
  })

  test('invalid updated_since: 422 validation_failed naming updated_since', async () => {
    const { testKey } = await t.tenant('Bad Since')
    for (const value of [
      'yesterday',
      '2026-13-01T00:00:00Z',
      '2026-11-22T25:00:00Z',
      '',
      '1700000000',
      // No zone: ambiguous, not "Z or an offset".
      '2026-11-22T12:00:00',
      // RFC 3339 shapes that Date or PostgreSQL cannot hold must be a 422, never a 500.
      '2026-11-22T12:00:00+02',
      '2016-12-31T23:59:60Z',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59-05:00',
    ]) {
      const res = await t.api(testKey, 'GET', `/v1/orders?updated_since=${encodeURIComponent(value)}`)
      const error = validationField(res)
      assert.equal(error.field, 'updated_since', `updated_since=${value}`)
      assert.equal(error.errors[0]!.field, 'updated_since')
      assert.equal(error.errors[0]!.code, 'invalid_format')
    }
  })

  test('invalid cursor: 422 validation_failed naming cursor', async () => {
    const { testKey } = await t.tenant('Bad Cursor')
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
    for (const value of [
      'abc',
      'not a cursor!',
      b64('yesterday|not-a-uuid'),
      b64(`2026-11-22T10:00:00.000Z|${randomUUID()}|extra`),
      b64(`garbage|${randomUUID()}`),
      b64('2026-11-22T10:00:00.000Z'),
      'x'.repeat(600),
    ]) {
      const res = await t.api(testKey, 'GET', `/v1/orders?cursor=${encodeURIComponent(value)}`)
      const error = validationField(res)
      assert.equal(error.field, 'cursor', `cursor=${value}`)
      assert.equal(error.errors[0]!.field, 'cursor')
    }
  })

  test('an unknown query parameter is rejected, not ignored', async () => {
    const { testKey } = await t.tenant('Typo')
    const res = await t.api(testKey, 'GET', '/v1/orders?updated_after=2026-11-22T10:00:00Z')
    const error = validationField(res)
    assert.equal(error.field, 'updated_after')
    assert.equal(error.errors[0]!.code, 'unknown_field')
  })

  test('a key sees only its own organization and environment', async () => {
    clock.set(new Date('2026-11-22T16:00:00.000Z'))
    const a = await t.tenant('Tenant A')
    const b = await t.tenant('Tenant B')
    const aTest = await createOrders(a.testKey, 3)
    const aLive = await createOrders(a.liveKey, 2)
    const bTest = await createOrders(b.testKey, 2)
    const bLive = await createOrders(b.liveKey, 3)

    const walkIds = async (key: string) => (await walk(key, { limit: 2 })).flat()
    const seenATest = await walkIds(a.testKey)
    assert.deepEqual(
      seenATest.map((o) => o.id),
      sortedForPolling(aTest),
    )
    assert.ok(seenATest.every((o) => o.is_test === true))
    // Test orders have no production: every item's production_status is null.
    assert.ok(
      seenATest.every((o) => o.items.length > 0 && o.items.every((i) => i.production_status === null)),
    )

    const seenALive = await walkIds(a.liveKey)
    assert.deepEqual(
      seenALive.map((o) => o.id),
      sortedForPolling(aLive),
    )
    assert.ok(seenALive.every((o) => o.is_test === false))
    assert.ok(
      seenALive.every((o) => o.items.length > 0 && o.items.every((i) => i.production_status === 'pending')),
    )

    assert.deepEqual(
      (await walkIds(b.testKey)).map((o) => o.id),
      sortedForPolling(bTest),
    )
    assert.deepEqual(
      (await walkIds(b.liveKey)).map((o) => o.id),
      sortedForPolling(bLive),
    )

    // A cursor made from another tenant's page does not leak that tenant's orders.
    const bPage = await list(b.liveKey, { limit: 1 })
    const crossed = await list(a.liveKey, { cursor: bPage.next_cursor! })
    assert.ok(crossed.data.every((o) => aLive.some((x) => x.id === o.id)))
  })

  test('the list and GET /v1/orders/:id return the same order', async () => {
    clock.set(new Date('2026-11-22T17:00:00.000Z'))
    const { liveKey } = await t.tenant('Single')
    const [created] = await createOrders(liveKey, 1)
    const res = await t.api(liveKey, 'GET', `/v1/orders/${created!.id}`)
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['data'])
    assert.deepEqual(Object.keys(body.data), ['order'])
    assert.deepEqual(body.data.order, created)
    const listed = await list(liveKey)
    assert.deepEqual(listed.data, [created])
  })

  test('GET /v1/orders/:id of another organization, the other environment, unknown or malformed: 404', async () => {
    clock.set(new Date('2026-11-22T18:00:00.000Z'))
    const a = await t.tenant('Owner')
    const b = await t.tenant('Stranger')
    const [aLive] = await createOrders(a.liveKey, 1)
    const [aTest] = await createOrders(a.testKey, 1)

    const cases: [string, string][] = [
      [b.liveKey, aLive!.id],
      [b.testKey, aTest!.id],
      [a.testKey, aLive!.id],
      [a.liveKey, aTest!.id],
      [a.liveKey, randomUUID()],
      [a.liveKey, 'not-a-uuid'],
      [a.liveKey, `${aLive!.id}x`],
      [a.liveKey, '12345'],
    ]
    for (const [key, id] of cases) {
      const res = await t.api(key, 'GET', `/v1/orders/${encodeURIComponent(id)}`)
      assert.equal(res.statusCode, 404, `${id}: ${res.body}`)
      const { error } = res.json()
      assert.equal(error.code, 'not_found')
      assert.equal(typeof error.message, 'string')
      assert.match(error.doc_url, /\/developers\/errors\/not_found$/)
    }
    // The owner still gets both.
    assert.equal((await t.api(a.liveKey, 'GET', `/v1/orders/${aLive!.id}`)).statusCode, 200)
    assert.equal((await t.api(a.testKey, 'GET', `/v1/orders/${aTest!.id}`)).statusCode, 200)
  })

  test('both endpoints need orders:read, checked before the lookup', async () => {
    const a = await t.tenant('Scoped')
    const [order] = await createOrders(a.liveKey, 1)
    const other = await t.tenant('Other Scoped')
    const writeOnly = await t.createKey((await t.createOrganization('Write Only')).id, {
      environment: 'live',
      scopes: ['orders:write'],
    })
    const sameOrgWriteOnly = await t.createKey(a.orgId, { environment: 'live', scopes: ['orders:write'] })
    for (const key of [writeOnly.key, sameOrgWriteOnly.key]) {
      for (const url of ['/v1/orders', `/v1/orders/${order!.id}`, `/v1/orders/${randomUUID()}`]) {
        const res = await t.api(key, 'GET', url)
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`)
        assert.equal(res.json().error.code, 'insufficient_scope')
        assert.match(res.json().error.message, /orders:read/)
      }
    }
    // With the scope, a foreign id is 404.
    assert.equal((await t.api(other.liveKey, 'GET', `/v1/orders/${order!.id}`)).statusCode, 404)
  })
})
