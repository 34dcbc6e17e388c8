import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { signature, useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { closedPort } from '../../helpers/webhook-targets.ts'

/** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
const setup = useDispatcherApp()

describe('webhook dispatcher: retries and outcomes', () => {
  test('retries follow the configured delays; each retry is signed afresh over the same body and event id', async (ctx) => {
    const s = await setup(ctx, { respond: (_req, n) => (n <= 2 ? { status: 500 } : { status: 204 }) })
    const { endpoint } = await s.endpoint('/hook')
    // Delays of a second or more, so the Unix-seconds t must differ between attempts.
    const delays = [1000, 1200]
    await s.dispatch({ retryDelaysMs: delays })
    await s.order()
    await s.receiver.waitFor(3, 10_000)
    const [a, b, c] = s.receiver.received
    for (const [i, gap] of [b!.at - a!.at, c!.at - b!.at].entries()) {
      assert.ok(gap >= delays[i]!, `gap ${i + 1} is ${gap} ms, at least the delay of ${delays[i]} ms`)
      // At most 10 % jitter plus scheduling slack.
      assert.ok(
        gap <= delays[i]! * 1.1 + 1000,
        `gap ${i + 1} is ${gap} ms, about the delay of ${delays[i]} ms`,
      )
    }
    const sigs = [a!, b!, c!].map(signature)
    assert.ok(sigs[0]!.t < sigs[1]!.t && sigs[1]!.t < sigs[2]!.t, 'every attempt has a newer t')
    assert.equal(new Set(sigs.map((x) => x.v1)).size, 3, 'every attempt has a different v1')
    assert.ok(a!.body.equals(b!.body) && b!.body.equals(c!.body), 'the same body bytes every time')
    const eventId = a!.headers['x-service-event-id']
    assert.ok(eventId)
    assert.deepEqual(
      [b!, c!].map((r) => r.headers['x-service-event-id']),
      [eventId, eventId],
    )
    assert.equal(JSON.parse(a!.body.toString()).id, eventId)
    // The body is the one stored with the event when it was written.
    const stored = await s.t.db
      .selectFrom('events')
      .select('body')
      .where('id', '=', String(eventId))
      .executeTakeFirstOrThrow()
    assert.equal(a!.body.toString('utf8'), stored.body)

    const row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
    assert.equal(row.status, 'succeeded')
    assert.equal(row.attempts, 3)
    assert.equal(row.error_code, null)
    assert.equal(row.next_attempt_at, null)
    assert.equal(row.response_status, 204)
    assert.equal(row.event_id, eventId)
    const ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.consecutive_failures, 0)
    assert.ok(ep.last_success_at && ep.last_failure_at && ep.last_success_at >= ep.last_failure_at)
  })

  test('the log and the endpoint carry the instants of the attempt, to the millisecond', async (ctx) => {
    const s = await setup(ctx, {
      respond: (req) => (req.url === '/down' ? { status: 500 } : { status: 204 }),
    })
    const down = (await s.endpoint('/down')).endpoint
    const up = (await s.endpoint('/up')).endpoint
    const delay = 60_000
    await s.dispatch({ retryDelaysMs: [delay] })
    const before = Date.now()
    await s.order()
    const failed = await s.settled(down.id, (r) => r.last_attempt_at !== null)
    const ok = await s.settled(up.id, (r) => r.status === 'succeeded')
    const after = Date.now()
    // Each row against its own request: the two are sent concurrently, in either order.
    const arrivedAt = (url: string) => s.receiver.received.find((r) => r.url === url)!.at
    const [downAt, upAt] = [arrivedAt('/down'), arrivedAt('/up')]
    for (const [row, sentAt] of [
      [failed, downAt!],
      [ok, upAt!],
    ] as const) {
      const started = row.last_attempt_at!.getTime()
      assert.ok(
        before <= started && started <= sentAt,
        `last_attempt_at ${started} in [${before}, ${sentAt}]`,
      )
    }
    const downRow = await s.endpointRow(down.id)
    const upRow = await s.endpointRow(up.id)
    const failedAt = downRow.last_failure_at!.getTime()
    const succeededAt = upRow.last_success_at!.getTime()
    assert.ok(
      failed.last_attempt_at!.getTime() <= failedAt && failedAt <= after,
      'last_failure_at: when it ended',
    )
    assert.ok(
      ok.last_attempt_at!.getTime() <= succeededAt && succeededAt <= after,
      'last_success_at: when it ended',
    )
    // The retry is due the configured delay (plus at most 10 % jitter) after the failure.
    const due = failed.next_attempt_at!.getTime() - failedAt
    assert.ok(delay <= due && due <= delay * 1.1, `next attempt ${due} ms after the failure`)
  })

  test('permanent failure after the last delay; a later success resets consecutive_failures', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 503, body: 'down for maintenance' }) })
    const { endpoint } = await s.endpoint('/hook')
    const delays = [50, 100, 200]
    await s.dispatch({ retryDelaysMs: delays })
    await s.order()
    await s.receiver.waitFor(4)
    const row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
    const gaps = s.receiver.received.slice(1).map((r, i) => r.at - s.receiver.received[i]!.at)
    for (const [i, gap] of gaps.entries()) {
      assert.ok(
        gap >= delays[i]! && gap <= delays[i]! * 1.1 + 500,
        `gap ${i + 1}: ${gap} ms for ${delays[i]} ms`,
      )
    }
    assert.equal(row.status, 'failed')
    assert.equal(row.attempts, delays.length + 1)
    assert.equal(row.next_attempt_at, null)
    assert.equal(row.error_code, 'http_error')
    assert.equal(row.response_status, 503)
    assert.equal(row.response_snippet, 'down for maintenance')
    assert.deepEqual(await s.queued(endpoint.id), [], 'nothing left to attempt')

    // The public log says the same.
    const log = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.equal(log.statusCode, 200)
    const [entry] = log.json().data
    assert.equal(entry.status, 'failed')
    assert.equal(entry.attempts, 4)
    assert.equal(entry.next_attempt_at, null)
    assert.equal(entry.error_code, 'http_error')
    assert.equal(entry.response_status, 503)

    let ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.consecutive_failures, 4)
    assert.equal(ep.is_active, true)
    assert.ok(ep.last_failure_at)
    assert.equal(ep.last_success_at, null)
    await sleep(400)
    assert.equal(s.receiver.received.length, 4, 'no attempt after the last one')

    s.receiver.setHandler(() => ({ status: 200, body: 'ok' }))
    await s.order()
    await waitUntil(async () => (await s.endpointRow(endpoint.id)).last_success_at, 'a success')
    ep = await s.endpointRow(endpoint.id)
    assert.equal(ep.consecutive_failures, 0)
    assert.ok(ep.last_success_at)
    const rows = await s.deliveries(endpoint.id)
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts, r.error_code, r.response_snippet]),
      [
        ['failed', 4, 'http_error', 'down for maintenance'],
        ['succeeded', 1, null, 'ok'],
      ],
    )
    const endpoints = await s.t.api(s.tenant.liveKey, 'GET', '/v1/webhook-endpoints')
    assert.equal(endpoints.json().data[0].consecutive_failures, 0)
    assert.equal(endpoints.json().data[0].last_success_at, ep.last_success_at!.toISOString())
  })

  test('response snippets: the first 1024 characters (a surrogate pair counts as one), NUL stored as U+FFFD, and the batch is recorded', async (ctx) => {
    // '/syntax' holds what an array literal or a careless escaper would mangle.
    const syntax = '{"ok":true, "path":"C:\\tmp\\x"}\nNULL,\t\'{}\' \\"'
    const bodies: Record<string, string> = {
      '/nul': 'before\u0000after',
      '/syntax': syntax,
      '/null-word': 'NULL',
      '/cut': `${'a'.repeat(1023)}\u{1F600}tail`,
      // Far more than a snippet: the worker stops reading, the attempt still succeeded.
      '/long': `${'é'.repeat(1024)}${'x'.repeat(200_000)}`,
    }
    const s = await setup(ctx, { respond: (req) => ({ status: 200, body: bodies[req.url]! }) })
    const endpoints = Object.fromEntries(
      await Promise.all(
        Object.keys(bodies).map(async (path) => [path, (await s.endpoint(path)).endpoint.id]),
      ),
    ) as Record<string, string>
    await s.dispatch()
    await s.order()
    const snippet = async (path: string) =>
      (await s.settled(endpoints[path]!, (r) => r.status === 'succeeded')).response_snippet
    assert.equal(await snippet('/nul'), 'before\uFFFDafter')
    // 1 024 characters, the emoji (two UTF-16 units) the 1 024th.
    assert.equal(await snippet('/cut'), `${'a'.repeat(1023)}\u{1F600}`)
    assert.equal(await snippet('/long'), 'é'.repeat(1024))
    assert.equal(await snippet('/syntax'), syntax)
    assert.equal(await snippet('/null-word'), 'NULL', 'the word NULL is text, not a missing snippet')
  })

  test('no answer within timeoutMs is a timeout', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 3000 }) })
    const { endpoint } = await s.endpoint('/slow')
    const timeoutMs = 500
    await s.dispatch({ timeoutMs, retryDelaysMs: [60_000] })
    await s.order()
    await s.receiver.waitFor(1)
    const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
    const recordedAfter = Date.now() - s.receiver.received[0]!.at
    assert.equal(row.error_code, 'timeout')
    assert.equal(row.response_status, null)
    assert.equal(row.status, 'pending', 'a retry is scheduled')
    assert.equal(row.attempts, 1)
    assert.ok(row.next_attempt_at && row.next_attempt_at.getTime() - Date.now() > 50_000)
    assert.ok(
      row.duration_ms !== null && row.duration_ms >= timeoutMs - 50 && row.duration_ms < timeoutMs + 1000,
      `duration ${row.duration_ms}`,
    )
    assert.ok(recordedAfter < timeoutMs + 1500, `recorded ${recordedAfter} ms after the request arrived`)
  })

  test('a TLS handshake that never completes is a timeout too (the deadline covers connect and TLS)', async (ctx) => {
    const sockets: Socket[] = []
    const silent: Server = createServer((socket) => {
      sockets.push(socket)
    })
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    ctx.after(() => {
      for (const socket of sockets) socket.destroy()
      silent.close()
    })
    const port = (silent.address() as { port: number }).port
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('', { url: `https://webhook.test:${port}/hook` })
    const timeoutMs = 500
    const started = Date.now()
    await s.dispatch({ timeoutMs, retryDelaysMs: [60_000] })
    await s.order()
    const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
    assert.ok(sockets.length >= 1, 'the connection was opened')
    assert.equal(row.error_code, 'timeout')
    assert.ok(Date.now() - started < timeoutMs + 1500)
  })

  test('301 and 302 are failed attempts and are not followed', async (ctx) => {
    const s = await setup(ctx, {
      respond: (req) =>
        req.url === '/r301' || req.url === '/r302'
          ? {
              status: req.url === '/r301' ? 301 : 302,
              headers: { location: `https://webhook.test:${s.receiver.port}/moved` },
              body: 'moved',
            }
          : { status: 200 },
    })
    const e301 = (await s.endpoint('/r301')).endpoint
    const e302 = (await s.endpoint('/r302')).endpoint
    await s.dispatch({ retryDelaysMs: [60_000] })
    await s.order()
    const r301 = await s.settled(e301.id, (r) => r.error_code !== null)
    const r302 = await s.settled(e302.id, (r) => r.error_code !== null)
    await sleep(300)
    assert.deepEqual(s.receiver.received.map((r) => r.url).sort(), ['/r301', '/r302'])
    assert.deepEqual(
      [r301, r302].map((r) => [r.error_code, r.response_status, r.attempts, r.status]),
      [
        ['http_error', 301, 1, 'pending'],
        ['http_error', 302, 1, 'pending'],
      ],
    )
  })

  test('connection refused is a connection_error', async (ctx) => {
    const s = await setup(ctx)
    const port = await closedPort()
    const { endpoint } = await s.endpoint('', { url: `https://webhook.test:${port}/hook` })
    await s.dispatch({ retryDelaysMs: [60_000] })
    await s.order()
    const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
    assert.equal(row.error_code, 'connection_error')
    assert.equal(row.response_status, null)
    assert.equal(row.attempts, 1)
  })

  test('an untrusted certificate is a tls_error', async (ctx) => {
    const s = await setup(ctx)
    // The certificate is generated inside this process, so no CA file Node loaded
    // at startup (NODE_EXTRA_CA_CERTS included) can contain it.
    const extra = process.env.NODE_EXTRA_CA_CERTS
    if (extra) assert.ok(!readFileSync(extra, 'utf8').includes(s.receiver.ca.trim()))
    const { endpoint } = await s.endpoint('/hook')
    // No ca option: only Node's own trust store.
    await s.dispatch({ ca: undefined, retryDelaysMs: [60_000] })
    await s.order()
    const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
    assert.equal(row.error_code, 'tls_error')
    assert.equal(row.response_status, null)
    assert.equal(s.receiver.received.length, 0, 'no request was sent')
  })

  test('a certificate for another name is a tls_error', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('', { url: s.receiver.url('/hook', 'wrong-name.test') })
    await s.dispatch({ retryDelaysMs: [60_000] })
    await s.order()
    const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
    assert.equal(row.error_code, 'tls_error')
    assert.equal(s.receiver.received.length, 0)
  })
})
