import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Webhook } from 'standardwebhooks'
import { readEvents } from '../src/cli/sse.ts'
import {
  OrderIntakeClient,
  OrderIntakeConnectionError,
  OrderIntakeError,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  webhookHeaders,
} from '../src/index.ts'
import { json, startFakeServer } from './fake-server.ts'
import { SIGNATURE_VECTORS } from './vectors.ts'

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

describe('@order-intake/client as published', () => {
  const pkg = fileURLToPath(new URL('../', import.meta.url))

  test('dist/ (built by the prepare script at install) exports what src/ exports', async () => {
    assert.ok(existsSync(join(pkg, 'dist/index.js')), 'dist/ is built by npm ci (prepare)')
    assert.ok(existsSync(join(pkg, 'dist/index.d.ts')))
    const built = await import(join(pkg, 'dist/index.js'))
    const source = await import('../src/index.ts')
    assert.deepEqual(Object.keys(built).sort(), Object.keys(source).sort())
    const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))
    // The library needs nothing at run time; the CLI reads event streams with eventsource-parser
    // (dependency-free); the declarations read the document's types with openapi-typescript-helpers
    // (types only), so a project that uses the client's types installs it.
    assert.deepEqual(manifest.dependencies ?? {}, {
      'eventsource-parser': '^3.1.1',
      'openapi-typescript-helpers': '^0.1.0',
    })
    for (const f of readdirSync(join(pkg, 'dist'), { recursive: true, encoding: 'utf8' })) {
      if (!f.endsWith('.d.ts')) continue
      for (const [, name] of readFileSync(join(pkg, 'dist', f), 'utf8').matchAll(/from '([^'.][^']*)'/g)) {
        assert.ok(name?.startsWith('node:') || name! in manifest.dependencies, `${f} needs ${name}`)
      }
    }
    assert.equal(manifest.bin['order-intake'], 'dist/cli.js')
    assert.ok(existsSync(join(pkg, manifest.exports['.'].types)))
  })

  test('the library part uses nothing of Node and no package (it runs in browsers); only the CLI does', () => {
    const files = readdirSync(join(pkg, 'dist'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.js') && f !== 'cli.js' && !f.startsWith('cli/'),
    )
    assert.ok(files.includes('index.js') && files.includes('webhooks.js'))
    for (const f of files) {
      const code = readFileSync(join(pkg, 'dist', f), 'utf8')
      assert.doesNotMatch(code, /from ['"]node:|require\(|\bprocess\.|\bBuffer\b/, f)
      assert.doesNotMatch(code, /from ['"][^'".]/, `${f} imports a package`)
    }
  })

  test("the CLI runs on the machine's own Node (20 here) as well as on the project's", () => {
    const nodes = [process.execPath, ...['/usr/bin/node', '/usr/local/bin/node'].filter(existsSync)]
    for (const node of nodes) {
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()
      assert.ok(Number(/^v(\d+)/.exec(version)?.[1]) >= 20, `${node} ${version}`)
      const help = spawnSync(node, [join(pkg, 'dist/cli.js'), '--help'], { encoding: 'utf8' })
      assert.equal(help.status, 0, `${node} ${version}: ${help.stderr}`)
      assert.match(help.stdout, /order-intake listen --forward-to/)
      const lib = spawnSync(
        node,
        [
          '--input-type=module',
          '-e',
          `import('${join(pkg, 'dist/index.js')}').then(async (m) => console.log(await m.signWebhook('{}', 'whsec_x', 1)))`,
        ],
        { encoding: 'utf8' },
      )
      assert.equal(lib.status, 0, `${node} ${version}: ${lib.stderr}`)
      assert.match(lib.stdout, /^t=1,v1=[0-9a-f]{64}\n$/)
    }
  })
})

describe('readEvents: the event streams the CLI reads', () => {
  async function parse(chunks: string[]) {
    async function* source() {
      for (const c of chunks) yield new TextEncoder().encode(c)
    }
    const out = []
    for await (const e of readEvents(source())) out.push(e)
    return out
  }

  test('SSE frames: any line ending, split anywhere (even inside CRLF or a UTF-8 character), comments skipped', async () => {
    const text =
      ': keepalive\r\n\r\nid: c-1\r\nevent: order.received\r\ndata: {"n":"Grüße"}\r\n\r\nevent: ping\rdata: a\rdata: b\rretry: 2000\r\r'
    const bytes = new TextEncoder().encode(text)
    const expected = [
      { event: 'order.received', data: '{"n":"Grüße"}', id: 'c-1', retry: undefined },
      { event: 'ping', data: 'a\nb', id: undefined, retry: 2000 },
    ]
    assert.deepEqual(await parse([text]), expected)
    for (let cut = 1; cut < bytes.length; cut++) {
      async function* split() {
        yield bytes.slice(0, cut)
        yield bytes.slice(cut)
      }
      const out = []
      for await (const e of readEvents(split())) out.push(e)
      assert.deepEqual(out, expected, `cut at byte ${cut}`)
    }
    assert.deepEqual(
      await parse(['data: no blank line at the end\n']),
      [],
      'an unfinished frame is not dispatched',
    )
  })
})

describe('webhook signatures', () => {
  const { tolerance, vectors } = SIGNATURE_VECTORS

  describe('verifyWebhook: the published test vectors', () => {
    test('the file covers each failure the docs name', () => {
      const reasons = new Set(vectors.flatMap((v) => (v.expected.valid ? [] : [v.expected.reason])))
      assert.deepEqual([...reasons].sort(), [
        'malformed_header',
        'missing_header',
        'no_v1_signature',
        'signature_mismatch',
        'timestamp_in_future',
        'timestamp_too_old',
      ])
      assert.ok(vectors.filter((v) => v.expected.valid).length >= 4)
    })

    for (const v of vectors) {
      test(v.name, async () => {
        const verify = () => verifyWebhook(v.body, v.header, v.secret, { tolerance, now: v.now })
        if (v.expected.valid) {
          const event = await verify()
          assert.equal(event.id, v.expected.event_id)
          assert.equal(event.type, v.expected.event_type)
          assert.deepEqual(event, JSON.parse(v.body))
          // Bytes in, the same answer: what a server framework hands over.
          const fromBytes = await verifyWebhook(new TextEncoder().encode(v.body), v.header, v.secret, {
            tolerance,
            now: v.now,
          })
          assert.equal(fromBytes.id, v.expected.event_id)
        } else {
          const reason = v.expected.reason
          await assert.rejects(
            verify,
            (err) => err instanceof WebhookVerificationError && err.reason === reason,
          )
        }
      })
    }

    test('signWebhook makes the header of every single-signature valid vector', async () => {
      for (const v of vectors.filter((v) => v.expected.valid && /^t=\d+,v1=[0-9a-f]{64}$/.test(v.header))) {
        assert.equal(await signWebhook(v.body, v.secret, v.timestamp), v.header, v.name)
      }
    })

    test('a null or undefined header is missing_header; tolerance defaults to 300 s of the real clock', async () => {
      const v = vectors[0]!
      for (const header of [null, undefined]) {
        await assert.rejects(
          verifyWebhook(v.body, header, v.secret),
          (err) => err instanceof WebhookVerificationError && err.reason === 'missing_header',
        )
      }
      const now = Math.floor(Date.now() / 1000)
      const fresh = await signWebhook(v.body, v.secret, now - 299)
      assert.equal(
        (await verifyWebhook(v.body, fresh, v.secret)).id,
        v.expected.valid ? v.expected.event_id : '',
      )
      const old = await signWebhook(v.body, v.secret, now - 302)
      await assert.rejects(verifyWebhook(v.body, old, v.secret), /ago/)
      assert.ok(await verifyWebhook(v.body, old, v.secret, { tolerance: 600 }))
    })

    test('a signed body that is not JSON is refused as invalid_json', async () => {
      const header = await signWebhook('not json', 'whsec_x', 1000)
      await assert.rejects(
        verifyWebhook('not json', header, 'whsec_x', { now: 1000 }),
        (err) => err instanceof WebhookVerificationError && err.reason === 'invalid_json',
      )
    })
  })

  describe('verifyWebhook with the request headers: X-Service-Signature or Standard Webhooks', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwV4x2d7JzBNs'
    const body = vectors[0]!.body
    const id = JSON.parse(body).id as string
    const nowS = () => Math.floor(Date.now() / 1000)
    /** The Standard Webhooks set as the reference library signs it. */
    const standard = (key = secret, msgId = id, at = new Date()) => ({
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign(msgId, at, body),
    })
    const reason = async (headers: Parameters<typeof verifyWebhook>[1], key = secret) => {
      try {
        await verifyWebhook(body, headers, key)
        return 'valid'
      } catch (err) {
        assert.ok(err instanceof WebhookVerificationError)
        return err.reason
      }
    }

    test('the Standard Webhooks set alone verifies, as Node, fetch or a plain object holds it', async () => {
      const headers = standard()
      assert.deepEqual(await verifyWebhook(body, headers, secret), JSON.parse(body))
      assert.deepEqual(await verifyWebhook(body, new Headers(headers), secret), JSON.parse(body))
      const capitalized = {
        'Webhook-Id': headers['webhook-id'],
        'Webhook-Timestamp': headers['webhook-timestamp'],
        'Webhook-Signature': headers['webhook-signature'],
      }
      assert.equal(await reason(capitalized), 'valid')
      assert.equal(
        await reason(headers, 'whsec_TWZLUTlyOEdLWXFyVHdqVVBEOElMUFpJbzJMYUxhU3c'),
        'signature_mismatch',
      )
    })

    test('X-Service-Signature in the headers verifies too, and decides when both sets are there', async () => {
      const signature = await signWebhook(body, secret)
      assert.equal(await reason({ 'x-service-signature': signature }), 'valid')
      assert.equal(await reason({ ...standard(), 'x-service-signature': signature }), 'valid')
      const wrong = await signWebhook(body, 'whsec_other')
      assert.equal(await reason({ ...standard(), 'x-service-signature': wrong }), 'signature_mismatch')
      assert.equal(await reason({}), 'missing_header')
      assert.equal(await reason(new Headers()), 'missing_header')
    })

    test('each broken Standard Webhooks set gets its reason', async () => {
      const good = standard()
      assert.equal(
        await reason({ ...good, 'webhook-id': `${id}x` }),
        'signature_mismatch',
        'the id is signed',
      )
      assert.equal(await reason({ ...good, 'webhook-timestamp': String(nowS() + 1) }), 'signature_mismatch')
      const { 'webhook-timestamp': _t, ...noTimestamp } = good
      assert.equal(await reason(noTimestamp), 'missing_header')
      const { 'webhook-id': _i, ...noId } = good
      assert.equal(await reason(noId), 'missing_header')
      assert.equal(await reason({ ...good, 'webhook-timestamp': 'soon' }), 'malformed_header')
      assert.equal(await reason({ ...good, 'webhook-signature': 'garbage' }), 'malformed_header')
      const v2 = good['webhook-signature'].replace(/^v1,/, 'v2,')
      assert.equal(await reason({ ...good, 'webhook-signature': v2 }), 'no_v1_signature')
      assert.equal(await reason(standard(secret, id, new Date(Date.now() - 301_000))), 'timestamp_too_old')
      assert.equal(await reason(standard(secret, id, new Date(Date.now() + 301_000))), 'timestamp_in_future')
    })

    test('during a rotation two space-separated signatures: a receiver of either secret verifies', async () => {
      const previous = 'whsec_Vb7nK2pQ9xR4tW1yZ6cF3hJ8mL0sD5gA2eU7iO4rT9u'
      const at = new Date()
      const both = {
        ...standard(secret, id, at),
        'webhook-signature': `${new Webhook(secret).sign(id, at, body)} ${new Webhook(previous).sign(id, at, body)}`,
      }
      assert.equal(await reason(both, secret), 'valid')
      assert.equal(await reason(both, previous), 'valid')
      assert.equal(
        await reason(both, 'whsec_q3ZL0v8mXc1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR1tY'),
        'signature_mismatch',
      )
    })

    test('webhookHeaders signs both sets with one t; the standardwebhooks library verifies its set', async () => {
      const t = nowS()
      const headers = await webhookHeaders(body, secret, { id, timestamp: t })
      assert.deepEqual(Object.keys(headers).sort(), [
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
        'x-service-signature',
      ])
      assert.equal(headers['x-service-signature'], await signWebhook(body, secret, t))
      assert.equal(headers['webhook-timestamp'], String(t))
      assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/)
      assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body))
    })

    test('a secret with - or _ (made before secrets were alphanumeric) is read as base64url', async () => {
      const legacy = 'whsec_q3ZL0v8m-c1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR_tY'
      const headers = await webhookHeaders(body, legacy, { id, timestamp: nowS() })
      assert.throws(() => new Webhook(legacy), /incorrect characters/, 'the library needs standard base64')
      const converted = `whsec_${legacy.slice(6).replace(/-/g, '+').replace(/_/g, '/')}`
      assert.deepEqual(new Webhook(converted).verify(body, headers), JSON.parse(body))
      const { 'x-service-signature': _s, ...standardOnly } = headers
      assert.equal(await reason(standardOnly, legacy), 'valid')
      assert.equal(await reason(standardOnly, converted), 'valid')
    })
  })
})
