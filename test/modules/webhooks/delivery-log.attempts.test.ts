import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { describe, test } from 'node:test'
import Fastify from 'fastify'
import { loggerOptions } from '../../../src/http/logging.ts'
import { ISO_MS } from '../../helpers/app.ts'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { closedPort } from '../../helpers/webhook-targets.ts'

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
      attempts.map((a) => [a.attempt, a.response_status, a.response_snippet, a.error_code, a.error_message]),
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
      failures.map((l) => [l.level, l.endpoint_id, l.delivery_id, l.attempt, l.error_code, l.error_message]),
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
    const [attempt] = (await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries/${row.id}`)).json().data
      .attempts as Attempt[]
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
