import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { CompiledQuery, sql } from 'kysely'
import { startOrderChangeFolding } from '../../../src/modules/orders/changes/changes.folding.ts'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import type { OrderDeps } from '../../../src/modules/orders/order-aggregates.ts'
import { createOrderLists } from '../../../src/modules/orders/order-lists.service.ts'
import {
  itemsWithJobsQuery,
  type OrderScope,
  updateOrderItem,
} from '../../../src/modules/orders/orders.repo.ts'
import { newestOrdersPageQuery, pollingPageQuery } from '../../../src/modules/orders/orders-pages.repo.ts'
import { PAGE_BUDGET_BYTES } from '../../../src/modules/orders/page-budget.ts'
import { foldWebhookOutcomes } from '../../../src/modules/webhooks/deliveries/daily-outcomes.repo.ts'
import { createTestApp, DIALECT, manualClock, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { PDF, png, uploadFile } from '../../helpers/order-files.ts'
import { pollingReference } from './polling-reference.ts'

describe('polling', () => {
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

      const ids = async (since: string) =>
        (await list(testKey, { updated_since: since })).data.map((o) => o.id)
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
      assert.deepEqual(
        await ids('2026-11-22T13:59:59.999Z'),
        sortedForPolling([early!, ...atBoundary, late!]),
      )
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
})

describe('page plan', () => {
  /**
   * A polling page must cost the same at a million orders as at a thousand: its
   * statements reach orders through the polling index and items and jobs through
   * theirs, never by reading a whole table. Checked with EXPLAIN on a table of a
   * few thousand orders, statistics gathered, on both databases.
   */
  let t: TestApp
  let orgId: string
  before(async () => {
    t = await createTestApp()
    orgId = (await t.createOrganization('Planned Pages')).id
    const other = (await t.createOrganization('Other')).id
    for (const [org, n] of [
      [orgId, 2000],
      [other, 1000],
    ] as const) {
      await sql`
      with o as (
        insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
          total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at,
          content_hash, content_bytes)
        select gen_random_uuid(), ${org}::uuid, 'live', 'api', 'seed-' || g, 'pending', 'EUR', 10,
          'Customer ' || g, null, null, ts, ts, ts, md5(g::text), 100
        from generate_series(1, ${n}::int) g
        cross join lateral (select timestamptz '2026-11-01' + g * interval '1 second' as ts) t
        returning id, updated_at
      ), i as (
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price, product_id,
          personalization, files)
        select gen_random_uuid(), o.id, ${org}::uuid, p, 'SKU-' || p, 'Item', 1, 9.90, null, '{}'::json, '[]'::json
        from o cross join generate_series(0, 2) p
        returning id, order_id
      ), po as (
        insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
        select gen_random_uuid(), o.id, 'pending', false, o.updated_at, o.updated_at from o
        returning id, order_id
      )
      insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
      select gen_random_uuid(), po.id, i.id, 'pending', now(), now() from i join po using (order_id)`.execute(
        t.db,
      )
    }
    // Files the orders' items could name (an item's files are read by the upload's id).
    await sql`
    insert into uploads (id, organization_id, environment, filename, storage_key, size_bytes, content_type,
      created_at, url_expires_at, stored_at, referenced_at)
    select gen_random_uuid(), ${orgId}::uuid, 'live', 'file-' || g || '.png', 'key-' || g, 100, 'image/png',
      now(), now(), now(), now()
    from generate_series(1, 2000) g`.execute(t.db)
    await sql`analyze`.execute(t.db)
  })
  after(() => t.close())

  interface PlanNode {
    'Node Type': string
    'Relation Name'?: string
    'Index Name'?: string
    Plans?: PlanNode[]
  }

  /** Every node of the statement's plan: type, and the table or index it reads. */
  async function planOf(compiled: CompiledQuery): Promise<string[]> {
    const result = await t.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
    )
    const raw = result.rows[0]!['QUERY PLAN']
    const root = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan as PlanNode
    const nodes: string[] = []
    const walk = (n: PlanNode) => {
      nodes.push([n['Node Type'], n['Index Name'] ?? n['Relation Name']].filter(Boolean).join(' '))
      for (const child of n.Plans ?? []) walk(child)
    }
    walk(root)
    return nodes
  }

  const scope = () => ({ organizationId: orgId, environment: 'live' as const })

  test('a polling page is one statement reading orders through the polling index, items, jobs and uploads through theirs', async () => {
    for (const page of [
      { scope: scope(), updatedSince: undefined, after: undefined },
      { scope: scope(), updatedSince: new Date('2026-11-01T00:10:00Z'), after: undefined },
      {
        scope: scope(),
        updatedSince: undefined,
        after: { at: new Date('2026-11-01T00:20:00Z'), id: '00000000-0000-0000-0000-000000000000' },
      },
    ]) {
      const nodes = await planOf(pollingPageQuery({ ...page, limit: 100, budgetBytes: PAGE_BUDGET_BYTES }))
      for (const index of [
        /^Index (Only )?Scan orders_polling_idx$/,
        /order_items_order_idx$/,
        /^Index (Only )?Scan production_jobs_order_item_id_key$/,
        /^Index (Only )?Scan uploads_pkey$/,
      ]) {
        assert.ok(
          nodes.some((n) => index.test(n)),
          `${index}: ${nodes.join(' / ')}`,
        )
      }
      assert.ok(!nodes.some((n) => n.startsWith('Seq Scan') || n.startsWith('Hash')), nodes.join(' / '))
    }
  })

  test("the operator's and the dashboard's pages read items and their jobs through their indexes", async () => {
    const orders = await t.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', orgId)
      .orderBy('id')
      .limit(100)
      .execute()
    const nodes = await planOf(itemsWithJobsQuery(orders.map((o) => o.id)).compile(t.db))
    assert.ok(
      nodes.some((n) => /order_items_order_idx$/.test(n)),
      nodes.join(' / '),
    )
    assert.ok(
      nodes.some((n) => /^Index (Only )?Scan production_jobs_order_item_id_key$/.test(n)),
      nodes.join(' / '),
    )
    assert.ok(!nodes.some((n) => n.startsWith('Seq Scan') || n.startsWith('Hash')), nodes.join(' / '))
  })

  test("Orders' automation filters read the partial indexes that hold only tagged, held and rush orders", async () => {
    // A few orders the rules touched among the thousands they did not.
    await sql`
    update orders set tags = '{large}'
    where id in (select id from orders where organization_id = ${orgId}::uuid order by id limit 5)`.execute(
      t.db,
    )
    await sql`
    update production_orders set held_at = created_at, priority = 'rush'
    where order_id in (select id from orders where organization_id = ${orgId}::uuid order by id limit 5)`.execute(
      t.db,
    )
    await sql`analyze`.execute(t.db)
    const page = { scope: scope(), status: undefined, from: undefined, until: undefined, search: undefined }
    for (const [filter, index] of [
      [{ tag: 'large' }, 'orders_tags_idx'],
      [{ held: true }, 'production_orders_held_idx'],
      [{ priority: 'rush' as const }, 'production_orders_rush_due_idx'],
    ] as const) {
      const query = newestOrdersPageQuery(t.db, { ...page, ...filter, before: undefined, limit: 50 })
      const nodes = await planOf(query.compile())
      assert.ok(
        nodes.some((n) => n.endsWith(index)),
        `${JSON.stringify(filter)}: ${nodes.join(' / ')}`,
      )
      assert.ok(!nodes.some((n) => n.startsWith('Seq Scan')), nodes.join(' / '))
      assert.equal((await query.execute()).length, 5)
    }
  })
})

describe('order changes', () => {
  /**
   * Orders and status changes are recorded in order_changes by the order's own
   * statement and folded into the statistics and unmatched skus off the order
   * path; whatever has or has not been folded, and after a fold that died
   * half-way, the figures read are those of a full count.
   */
  let t: TestApp
  before(async () => {
    t = await createTestApp()
  })
  after(() => t.close())

  const fold = () => t.db.transaction().execute((trx) => foldOrderChanges(trx, 3))
  async function foldAll(): Promise<number> {
    let total = 0
    for (let n = await fold(); n; n = await fold()) total += n!
    return total
  }
  const pending = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from order_changes`.execute(t.db)).rows[0]!.n)

  /** What the statistics and unmatched skus answer. */
  async function figures(orgId: string) {
    const stats = await t.admin('GET', `/admin/v1/organizations/${orgId}/stats`)
    assert.equal(stats.statusCode, 200, stats.body)
    const viewer = await memberOf(t, orgId, 'viewer')
    const unmatched = await viewer.client.call('GET', '/products/unmatched-skus')
    assert.equal(unmatched.statusCode, 200, unmatched.body)
    return { stats: stats.json().data, unmatched: unmatched.json().data }
  }

  /** The same figures counted from the orders themselves. */
  async function fullCount(orgId: string) {
    const byStatus = await sql<{ status: string; orders: string; items: string; quantity: string }>`
    select o.status, count(distinct o.id)::text as orders, count(i.id)::text as items,
      coalesce(sum(i.quantity), 0)::text as quantity
    from orders o left join order_items i on i.order_id = o.id
    where o.organization_id = ${orgId}::uuid and o.environment = 'live'
    group by o.status order by o.status`.execute(t.db)
    const skus = await sql<{ sku: string; items: string; orders: string }>`
    select i.sku, count(*)::text as items, count(distinct i.order_id)::text as orders
    from order_items i
    where i.organization_id = ${orgId}::uuid and i.product_id is null and i.sku is not null
    group by i.sku order by i.sku`.execute(t.db)
    return { byStatus: byStatus.rows, skus: skus.rows }
  }

  async function aggregated(orgId: string) {
    const byStatus = await sql<{ status: string; orders: string; items: string; quantity: string }>`
    select status, sum(orders)::text as orders, sum(items)::text as items, sum(quantity)::text as quantity
    from order_daily_stats where organization_id = ${orgId}::uuid
    group by status having sum(orders) <> 0 order by status`.execute(t.db)
    const skus = await sql<{ sku: string; items: string; orders: string }>`
    select sku, sum(items)::text as items, sum(orders)::text as orders
    from unmatched_skus where organization_id = ${orgId}::uuid group by sku order by sku`.execute(t.db)
    return { byStatus: byStatus.rows, skus: skus.rows }
  }

  async function setProductionStatus(orderId: string, status: string) {
    const { id } = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', orderId)
      .executeTakeFirstOrThrow()
    const res = await t.admin('POST', `/admin/v1/production-orders/${id}/status`, { status })
    assert.equal(res.statusCode, 200, res.body)
  }

  const items = (n: number) => [
    { sku: 'MUG', name: 'Mug', quantity: n },
    { sku: `CARD-${n % 2}`, name: 'Card', quantity: 1 },
    { name: 'No sku', quantity: 2 },
  ]

  test('folded or not, and after a fold that died half-way, the figures are a full count of the orders', async () => {
    const org = await t.tenant('Folded Figures')
    const ids: string[] = []
    for (let n = 1; n <= 7; n++) {
      const res = await t.api(n === 7 ? org.testKey : org.liveKey, 'POST', '/v1/orders', {
        ...orderBody({ external_order_id: `fold-${n}`, items: items(n) }),
      })
      assert.equal(res.statusCode, 201, res.body)
      ids.push(res.json().data.order.id)
    }
    await setProductionStatus(ids[0]!, 'in_progress')
    await setProductionStatus(ids[1]!, 'completed')
    await setProductionStatus(ids[1]!, 'completed') // no change: nothing recorded
    await setProductionStatus(ids[2]!, 'cancelled')

    // 7 creations (the test order counts for unmatched skus only) and 3 moves of two rows.
    assert.equal(await pending(), 13)
    const unfolded = await figures(org.orgId)
    assert.equal(unfolded.stats.orders_total, 6)
    assert.deepEqual(unfolded.stats.orders_by_status, {
      pending: 3,
      in_production: 1,
      completed: 1,
      failed: 0,
      cancelled: 1,
    })

    // A fold whose transaction ends without committing (a crash mid-batch) counts nothing.
    await assert.rejects(
      t.db.transaction().execute(async (trx) => {
        assert.equal(await foldOrderChanges(trx, 5), 5)
        throw new Error('the process died here')
      }),
      /died here/,
    )
    assert.equal(await pending(), 13)
    assert.deepEqual(await figures(org.orgId), unfolded)

    // Half folded, then all: the answers never change, and the aggregates end equal to a full count.
    assert.equal(await fold(), 3)
    assert.deepEqual(await figures(org.orgId), unfolded)
    assert.equal(await foldAll(), 10)
    assert.equal(await pending(), 0)
    assert.deepEqual(await figures(org.orgId), unfolded)
    assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))

    // A product takes its sku off, folded or pending.
    await t.api(
      org.liveKey,
      'POST',
      '/v1/orders',
      orderBody({ external_order_id: 'fold-8', items: items(8) }),
    )
    const product = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'MUG',
      name: 'Mug',
    })
    assert.equal(product.statusCode, 201, product.body)
    await foldAll()
    assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))
    assert.equal(
      (await aggregated(org.orgId)).skus.some((s) => s.sku === 'MUG'),
      false,
    )
  })

  test('one fold at a time: a second one finds the lock taken and folds nothing', {
    skip: DIALECT === 'pglite' ? 'the embedded database has one connection: folds cannot overlap' : false,
  }, async () => {
    const org = await t.tenant('Two Folders')
    await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'two-1' }))
    let second: number | null | undefined
    await t.db.transaction().execute(async (trx) => {
      await foldOrderChanges(trx, 1000)
      second = await t.db.transaction().execute((other) => foldOrderChanges(other, 1000))
    })
    assert.equal(second, null)
    assert.equal(await pending(), 0)
    assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))
  })

  test('upkeep: after enough folded rows, order_changes is vacuumed, and statistics gathered when asked (the embedded database)', async () => {
    const org = await t.tenant('Upkeep')
    await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'upkeep-1' }))
    const stat = async (table: string, column: 'analyze' | 'vacuum') =>
      (
        await sql<{ at: Date | null }>`
        select greatest(${sql.ref(`last_${column}`)}, ${sql.ref(`last_auto${column}`)}) as at from pg_stat_user_tables
        where relname = ${table} and schemaname = current_schema()`.execute(t.db)
      ).rows[0]?.at ?? null
    const analyzed = () => stat('orders', 'analyze')
    const before = await analyzed()
    const vacuumedBefore = await stat('order_changes', 'vacuum')
    const folding = startOrderChangeFolding({
      db: t.db,
      vacuumEvery: 1,
      analyzeEvery: 1,
      intervalMs: 60_000,
      onError: assert.ifError,
    })
    try {
      await folding.drain()
    } finally {
      await folding.stop()
    }
    assert.equal(await pending(), 0)
    const after = await analyzed()
    assert.ok(after !== null && (before === null || after > before), `last analyzed ${before} -> ${after}`)
    const vacuumed = await stat('order_changes', 'vacuum')
    assert.ok(
      vacuumed !== null && (vacuumedBefore === null || vacuumed > vacuumedBefore),
      `vacuumed ${vacuumedBefore} -> ${vacuumed}`,
    )
  })

  test('the folding loop also folds the other logs it is given (settled webhook deliveries), in batches', async () => {
    const org = (await t.createOrganization('Folded Outcomes')).id
    for (let n = 0; n < 7; n++) {
      await sql`insert into webhook_outcome_changes (organization_id, environment, day, succeeded, failed)
      values (${org}, 'live', '2026-11-20', 2, ${n % 2})`.execute(t.db)
    }
    const folding = startOrderChangeFolding({
      db: t.db,
      batch: 3,
      intervalMs: 60_000,
      alsoFold: [foldWebhookOutcomes],
      onError: assert.ifError,
    })
    try {
      await folding.drain()
    } finally {
      await folding.stop()
    }
    assert.deepEqual(await t.db.selectFrom('webhook_outcome_changes').selectAll().execute(), [])
    const folded = await sql<{ day: string; succeeded: string; failed: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, succeeded::text, failed::text from webhook_daily_outcomes
    where organization_id = ${org}`.execute(t.db)
    assert.deepEqual(folded.rows, [{ day: '2026-11-20', succeeded: '14', failed: '3' }])
  })
})

describe('pages written by the database', () => {
  /**
   * GET /v1/orders answers the bytes the database writes; they must be those
   * the objects' path wrote (polling-reference.ts) for every field shape an
   * order can have, on every kind of page.
   */
  const clock = manualClock(new Date('2026-11-24T08:00:00.000Z'))
  let t: TestApp
  let reference: ReturnType<typeof pollingReference>
  before(async () => {
    t = await createTestApp({ clock })
    reference = pollingReference(t)
  })
  after(() => t.close())

  type Query = { updated_since?: string; cursor?: string; limit?: number }

  /** The route's answer, byte for byte the reference's, with the same headers; its parsed body. */
  async function samePage(key: string, scope: OrderScope, query: Query) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()
    const res = await t.api(key, 'GET', `/v1/orders${qs ? `?${qs}` : ''}`)
    assert.equal(res.statusCode, 200, res.body)
    const expected = await reference(scope, query)
    sameText(res.body, expected, `page ${qs}`)
    assert.ok(res.rawPayload.equals(Buffer.from(expected, 'utf8')))
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(expected)))
    return JSON.parse(res.body) as { data: { id: string }[]; next_cursor: string | null }
  }

  /** The same text, else where the first difference is. */
  function sameText(actual: string, expected: string, label: string) {
    if (actual === expected) return
    let at = 0
    while (actual[at] === expected[at]) at++
    const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 80))
    assert.fail(
      `${label}: differs at character ${at}\n  actual:   ${around(actual)}\n  expected: ${around(expected)}`,
    )
  }

  /** Every page of a walk from `query`, each compared; the ids seen. */
  async function sameWalk(key: string, scope: OrderScope, query: Query): Promise<string[]> {
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const body = await samePage(key, scope, cursor === null ? query : { ...query, cursor })
      seen.push(...body.data.map((o) => o.id))
      cursor = body.next_cursor
      assert.ok(seen.length <= 1000, 'the walk did not end')
    } while (cursor !== null)
    return seen
  }

  const ESCAPES = '"\\/\b\f\n\r\t\u0001\u001f\u007f\u0080\u00a0\u2028\u2029\ufeff\ufffd'
  const UNICODE = 'Zoë 漢字 😀 ﷽ e\u0301'

  test('every field shape, on every kind of page: the same bytes as the objects serialized', async () => {
    const org = await t.tenant('Byte Shapes')
    const live: OrderScope = { organizationId: org.orgId, environment: 'live' }
    const testScope: OrderScope = { organizationId: org.orgId, environment: 'test' }
    const product = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'LINKED-1',
      name: 'Linked',
    })
    assert.equal(product.statusCode, 201, product.body)
    const front = await uploadFile(t, org.liveKey, png(), 'front.png')
    const back = await uploadFile(t, org.liveKey, PDF, `Zoë "back" ${UNICODE}.pdf`)
    const gone = await uploadFile(t, org.liveKey, png([1, 2, 3]), 'gone.png')

    const personalization = {
      text: `Hello ${UNICODE}`,
      escapes: ESCAPES,
      long: `${'x'.repeat(60)}${ESCAPES}${'y'.repeat(4000)}`,
      [`key ${ESCAPES}`]: 'escaped key',
      名前: UNICODE,
      '10': 'ten',
      '2': 2,
      '01': 'not an index',
      '-1': 'not an index',
      '4294967294': 'last index',
      '4294967295': 'not an index',
      int: 42,
      negative: -5.5,
      fraction: 0.1,
      sum: 0.1 + 0.2,
      huge: 1e21,
      tiny: 1.5e-7,
      large: 2 ** 53 + 2,
      small: 0.000001,
      yes: true,
      no: false,
      nothing: null,
      empty: '',
    }
    const rich = orderBody({
      external_order_id: `rich ${ESCAPES} ${UNICODE}`,
      customer: { name: `Jo ${ESCAPES}`, email: null, phone: '+49 30 123' },
      currency: null,
      items: [
        {
          sku: 'LINKED-1',
          name: `Mug ${UNICODE}`,
          quantity: 3,
          price: 12.5,
          personalization,
          files: [
            { upload_id: front, role: 'front' },
            { upload_id: back },
            { upload_id: gone, role: ESCAPES },
          ],
        },
        { name: 'No sku, no price', quantity: 1 },
        { sku: null, name: 'Null sku, price 0', quantity: 1, price: 0, personalization: {} },
        { sku: 'P-1', name: 'Sum', quantity: 1, price: 0.1 + 0.2 },
        { sku: 'P-2', name: 'Huge', quantity: 1, price: 1e21 },
        { sku: 'P-3', name: 'Tiny', quantity: 1, price: 1.5e-7 },
        { sku: 'P-4', name: 'Digits', quantity: 10_000, price: 123456789.12345679 },
        { sku: 'P-5', name: 'Past 2^53', quantity: 1, price: 2 ** 53 + 1 },
      ],
    })
    delete (rich as { total_amount?: number }).total_amount
    const ids: string[] = []
    const create = async (key: string, body: unknown) => {
      const res = await t.api(key, 'POST', '/v1/orders', body)
      assert.equal(res.statusCode, 201, res.body)
      ids.push(res.json().data.order.id)
      clock.advance(1)
      return res.json().data.order.id as string
    }
    await create(org.liveKey, rich)
    // Numbers as a client may write them: the stored JSON is what the service wrote.
    await create(
      org.liveKey,
      `{"external_order_id":"raw numbers","customer":{"name":"Raw"},"total_amount":1E3,"items":[{"name":"Raw","quantity":1,"price":1.50,"personalization":{"z":-0,"one":1.0,"exp":1E3,"neg":-1e-7,"big":1e300}}]}`,
    )
    await create(
      org.liveKey,
      orderBody({ total_amount: 1e21, currency: 'USD', customer: { name: 'No contact' } }),
    )
    const tiny = await create(
      org.liveKey,
      orderBody({ total_amount: 1e-7, ordered_at: '2026-11-20T10:00:00.5+02:00' }),
    )
    // Orders that share an instant.
    clock.advance(-1)
    const progressing = await create(org.liveKey, orderBody({ total_amount: 0 }))
    clock.advance(-1)
    const held = await create(org.liveKey, orderBody())
    const cancelled = await create(org.liveKey, orderBody())
    const edited = await create(org.liveKey, orderBody())
    const withoutFiles = (rich.items as { files?: unknown }[]).map(({ files: _, ...item }) => item)
    for (let n = 0; n < 3; n++)
      await create(org.testKey, n === 0 ? { ...rich, items: withoutFiles } : orderBody())

    // Production moves, a hold, automation's marks, a dashboard edit, a file gone, microseconds.
    const productionOf = async (orderId: string) =>
      (
        await t.db
          .selectFrom('production_orders')
          .select('id')
          .where('order_id', '=', orderId)
          .executeTakeFirstOrThrow()
      ).id
    for (const [orderId, status] of [
      [progressing, 'in_progress'],
      [cancelled, 'cancelled'],
    ] as const) {
      const res = await t.admin('POST', `/admin/v1/production-orders/${await productionOf(orderId)}/status`, {
        status,
      })
      assert.equal(res.statusCode, 200, res.body)
      clock.advance(5)
    }
    await sql`update production_jobs set status = 'failed'
      where order_item_id = (select id from order_items where order_id = ${progressing}::uuid and position = 1)`.execute(
      t.db,
    )
    await sql`update production_orders set held_at = created_at, priority = 'rush',
      hold = ${JSON.stringify({ rule_id: randomUUID(), name: 'Check', reason: 'big' })}::jsonb
      where order_id = ${held}::uuid`.execute(t.db)
    await sql`update orders set tags = '{large,"with space"}',
      automation = ${JSON.stringify([{ rule_id: randomUUID(), name: 'Rule', actions: [{ type: 'hold' }] }])}::jsonb
      where id = ${held}::uuid`.execute(t.db)
    const [editedItem] = await t.db
      .selectFrom('order_items')
      .select('id')
      .where('order_id', '=', edited)
      .execute()
    await updateOrderItem(t.db, editedItem!.id, {
      quantity: 7,
      personalization: { edited: `yes ${ESCAPES}`, '3': 3, n: 1e-7 },
      files: [{ upload_id: back, role: null }],
    })
    await sql`delete from uploads where id = ${gone}::uuid`.execute(t.db)
    // Numerics with more digits than a double and trailing zeros (JavaScript reads both as a Number).
    await sql`update orders set total_amount = 123456789.123456789123 where id = ${cancelled}::uuid`.execute(
      t.db,
    )
    await sql`update order_items set price = 10.100 where order_id = ${cancelled}::uuid`.execute(t.db)
    await sql`update orders set ordered_at = ordered_at + interval '123.999 milliseconds',
      created_at = created_at + interval '0.999 milliseconds' where id = ${tiny}::uuid`.execute(t.db)

    // Every page of walks with several limits, from the start and from an updated_since.
    const all = await sameWalk(org.liveKey, live, {})
    assert.equal(all.length, 8)
    for (const limit of [1, 2, 3, 7, 8, 100]) {
      assert.deepEqual(await sameWalk(org.liveKey, live, { limit }), all, `limit ${limit}`)
    }
    const since = (await t.api(org.liveKey, 'GET', `/v1/orders/${held}`)).json().data.order.updated_at
    const fromSince = await sameWalk(org.liveKey, live, { updated_since: since, limit: 2 })
    assert.ok(fromSince.length > 0 && fromSince.length < all.length, `${fromSince.length} from ${since}`)
    await sameWalk(org.liveKey, live, { updated_since: '2026-11-24T10:00:00+02:00', limit: 3 })
    // Test orders, and an empty page (nothing since, and past the last order).
    assert.equal((await sameWalk(org.testKey, testScope, { limit: 2 })).length, 3)
    const future = await samePage(org.liveKey, live, { updated_since: '2027-01-01T00:00:00.000Z' })
    assert.deepEqual(future, { data: [], next_cursor: null })
    const last = await samePage(org.liveKey, live, { limit: 7 })
    const end = await samePage(org.liveKey, live, { limit: 1, cursor: last.next_cursor! })
    assert.equal(end.next_cursor, null)
    const other = await t.tenant('Byte Shapes, none')
    await samePage(other.liveKey, { organizationId: other.orgId, environment: 'live' }, {})

    // The byte budget cuts pages alike (the service's own budget lowered).
    const sizes = await t.db
      .selectFrom('orders')
      .select('content_bytes')
      .where('organization_id', '=', org.orgId)
      .execute()
    const first = Math.min(...sizes.map((s) => s.content_bytes)) + 512
    for (const budget of [0, first, first * 2 + 700, first * 4]) {
      const budgeted = createOrderLists(
        { ...({} as OrderDeps), db: t.db, pageBudgetBytes: budget },
        {} as never,
      )
      let cursor: string | undefined
      let pages = 0
      do {
        const query = { limit: 100, ...(cursor ? { cursor } : {}) }
        const body = await budgeted.list(live, query)
        sameText(body, await reference(live, query, budget), `budget ${budget}, page ${pages}`)
        cursor = JSON.parse(body).next_cursor ?? undefined
        pages++
      } while (cursor !== undefined && pages < 20)
      if (budget === 0) assert.equal(pages, 8)
    }
  })
})
