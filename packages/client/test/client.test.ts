import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { OrderIntakeClient, OrderIntakeConnectionError, OrderIntakeError } from '../src/index.ts'
import { json, startFakeServer } from './fake-server.ts'

type Fake = Awaited<ReturnType<typeof startFakeServer>>

const order = (id: string, updated_at: string) => ({ id, updated_at, external_order_id: id, items: [] })
const orderBody = {
  external_order_id: 'WEB-1',
  customer: { name: 'Ada' },
  items: [{ name: 'Poster', quantity: 1 }],
}
const validation = {
  error: {
    code: 'validation_failed',
    message: 'Some fields are invalid; nothing was created.',
    doc_url: 'http://svc/developers/errors/validation_failed',
    field: 'currency',
    errors: [{ code: 'invalid_format', message: 'ISO 4217', field: 'currency' }],
  },
}

describe('OrderIntakeClient against a scripted server', () => {
  let fake: Fake
  let client: OrderIntakeClient
  before(async () => {
    fake = await startFakeServer()
    client = new OrderIntakeClient({ apiKey: 'svc_test_k', baseUrl: `${fake.url}/v1/`, timeoutMs: 2000 })
  })
  after(() => fake.close())

  test('create: 201 and 200 are both success, with warnings and which one it was', async () => {
    const warnings = [{ code: 'item_product_unmatched', field: 'items[0].sku', message: 'no product' }]
    fake.handle((_req, res, n) => {
      const data = { order: order('o1', '2026-11-25T10:00:00.000Z'), warnings: n === 1 ? warnings : [] }
      json(res, n === 1 ? 201 : 200, { data })
    })
    const first = await client.orders.create(orderBody)
    assert.deepEqual([first.status, first.created, first.warnings], [201, true, warnings])
    assert.equal(first.requestId, 'req-from-server')
    const again = await client.orders.create(orderBody)
    assert.deepEqual([again.status, again.created, again.warnings], [200, false, []])
    const req = fake.seen[0]!
    assert.equal(req.method, 'POST')
    assert.equal(req.url, '/v1/orders')
    assert.equal(req.headers.authorization, 'Bearer svc_test_k')
    assert.equal(req.headers['content-type'], 'application/json')
    assert.deepEqual(JSON.parse(req.body.toString()), orderBody)
  })

  test('429: waits Retry-After seconds and sends the same request again', async () => {
    fake.handle((_req, res, n) => {
      if (n === 1)
        json(
          res,
          429,
          { error: { code: 'rate_limited', message: 'slow down', doc_url: 'x' } },
          { 'retry-after': '1' },
        )
      else json(res, 201, { data: { order: order('o1', '2026-11-25T10:00:00.000Z'), warnings: [] } })
    })
    const started = Date.now()
    const created = await client.orders.create(orderBody)
    assert.ok(Date.now() - started >= 1000, 'waited the second Retry-After asked for')
    assert.equal(created.status, 201)
    assert.equal(fake.seen.length, 2)
    assert.deepEqual(fake.seen[1]!.body, fake.seen[0]!.body)
    assert.equal(
      fake.seen[1]!.headers['x-request-id'],
      fake.seen[0]!.headers['x-request-id'],
      'one request id per call',
    )
  })

  test('422: thrown at once as OrderIntakeError with every field of the error object', async () => {
    fake.handle((_req, res) => json(res, 422, validation))
    const err = await client.orders.create(orderBody).catch((e: unknown) => e)
    assert.ok(err instanceof OrderIntakeError)
    assert.equal(fake.seen.length, 1, 'a 422 is never resent')
    assert.deepEqual(
      [err.status, err.code, err.message, err.field, err.docUrl, err.requestId],
      [
        422,
        'validation_failed',
        validation.error.message,
        'currency',
        validation.error.doc_url,
        'req-from-server',
      ],
    )
    assert.deepEqual(err.errors, validation.error.errors)
  })

  test('500 and 503 are resent for POST /v1/orders (duplicate protection makes it safe), then given up', async () => {
    fake.handle((_req, res, n) => {
      if (n <= 2)
        json(res, n === 1 ? 500 : 503, { error: { code: 'internal_error', message: 'x', doc_url: 'x' } })
      else json(res, 200, { data: { order: order('o1', '2026-11-25T10:00:00.000Z'), warnings: [] } })
    })
    assert.equal((await client.orders.create(orderBody)).status, 200)
    assert.equal(fake.seen.length, 3)

    const once = new OrderIntakeClient({ apiKey: 'k', baseUrl: fake.url, maxRetries: 1 })
    fake.handle((_req, res) =>
      json(res, 503, { error: { code: 'service_unavailable', message: 'x', doc_url: 'x' } }),
    )
    await assert.rejects(
      once.orders.get('o1'),
      (e) => e instanceof OrderIntakeError && e.code === 'service_unavailable',
    )
    assert.equal(fake.seen.length, 2)
  })

  test('a lost answer: a safe call is sent again, an unsafe one is not', async () => {
    fake.handle((_req, res, n) => {
      if (n === 1) res.socket!.destroy()
      else json(res, 200, { data: { order: order('o1', '2026-11-25T10:00:00.000Z') } })
    })
    assert.equal((await client.orders.get('o1')).id, 'o1')
    assert.equal(fake.seen.length, 2)

    fake.handle((_req, res) => res.socket!.destroy())
    const err = await client
      .request('POST', '/v1/webhook-endpoints', { body: { url: 'https://x' } })
      .catch((e) => e)
    assert.ok(err instanceof OrderIntakeConnectionError)
    assert.equal(err.attempts, 1)
    assert.equal(fake.seen.length, 1, 'registering an endpoint twice is not harmless: not resent')
  })

  test('an answer that is not the error object keeps its status and says so', async () => {
    fake.handle((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' })
      res.end('<h1>Bad gateway</h1>')
    })
    const err = await client.request('GET', '/v1/ping').catch((e) => e)
    assert.ok(err instanceof OrderIntakeError)
    assert.deepEqual([err.status, err.code], [502, 'unexpected_response'])
    assert.match(err.message, /Bad gateway/)
  })
})

describe('orders.all and orders.changes', () => {
  let fake: Fake
  let client: OrderIntakeClient
  /** The server's orders, sorted by (updated_at, id); pages of `limit` with a cursor that is the offset. */
  let rows: { id: string; updated_at: string }[] = []
  before(async () => {
    fake = await startFakeServer((req, res) => {
      const url = new URL(req.url, 'http://x')
      const since = url.searchParams.get('updated_since')
      const limit = Number(url.searchParams.get('limit') ?? 50)
      const from = Number(url.searchParams.get('cursor') ?? 0)
      const matching = rows.filter((r) => !since || Date.parse(r.updated_at) >= Date.parse(since))
      const data = matching.slice(from, from + limit).map((r) => order(r.id, r.updated_at))
      json(res, 200, { data, next_cursor: from + limit < matching.length ? String(from + limit) : null })
    })
    client = new OrderIntakeClient({ apiKey: 'k', baseUrl: fake.url })
  })
  after(() => fake.close())
  const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 10, 0, s)).toISOString()

  test('all: follows next_cursor to the last page', async () => {
    rows = Array.from({ length: 7 }, (_, i) => ({ id: `o${i}`, updated_at: at(i) }))
    const ids: string[] = []
    for await (const o of client.orders.all({ limit: 3 })) ids.push(o.id)
    assert.deepEqual(ids, ['o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6'])
    assert.deepEqual(
      fake.seen.map((r) => new URL(r.url, 'http://x').searchParams.get('cursor')),
      [null, '3', '6'],
    )
  })

  test('changes: resumes from the checkpoint with overlap, skips what it handed out, sees late commits and new changes', async () => {
    rows = [
      { id: 'a', updated_at: at(0) },
      { id: 'b', updated_at: at(10) },
      { id: 'c', updated_at: at(20) },
    ]
    const run = async (checkpoint?: { updated_since: string | null; seen: string[] }) => {
      const feed = client.orders.changes({ checkpoint, overlapMs: 15_000, limit: 2 })
      const ids: string[] = []
      for await (const o of feed) ids.push(`${o.id}@${o.updated_at.slice(17, 19)}`)
      return { ids, checkpoint: JSON.parse(JSON.stringify(feed.checkpoint)) }
    }
    const first = await run()
    assert.deepEqual(first.ids, ['a@00', 'b@10', 'c@20'])
    assert.equal(first.checkpoint.updated_since, at(20))
    assert.deepEqual(first.checkpoint.seen.sort(), [`b@${at(10)}`, `c@${at(20)}`], 'only the overlap is kept')

    // A change committed late (d at :12, after c), b changed again, a new e.
    rows = [
      { id: 'a', updated_at: at(0) },
      { id: 'd', updated_at: at(12) },
      { id: 'c', updated_at: at(20) },
      { id: 'b', updated_at: at(25) },
      { id: 'e', updated_at: at(30) },
    ]
    fake.seen.length = 0
    const second = await run(first.checkpoint)
    assert.equal(new URL(fake.seen[0]!.url, 'http://x').searchParams.get('updated_since'), at(5))
    assert.deepEqual(second.ids, ['d@12', 'b@25', 'e@30'])

    const third = await run(second.checkpoint)
    assert.deepEqual(third.ids, [], 'nothing changed, nothing handed out twice')
    assert.equal(third.checkpoint.updated_since, at(30))
  })

  test('changes: an order whose loop body threw is handed out again on the next run', async () => {
    rows = [
      { id: 'a', updated_at: at(0) },
      { id: 'b', updated_at: at(1) },
    ]
    const feed = client.orders.changes({ overlapMs: 0 })
    await assert.rejects(async () => {
      for await (const o of feed) if (o.id === 'b') throw new Error('handler failed')
    }, /handler failed/)
    const ids: string[] = []
    for await (const o of client.orders.changes({ checkpoint: feed.checkpoint, overlapMs: 0 })) ids.push(o.id)
    assert.deepEqual(ids, ['b'])
  })
})
