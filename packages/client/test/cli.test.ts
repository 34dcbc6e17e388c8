import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import { type AddressInfo, createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { USER_AGENT } from '../../../src/modules/webhooks/worker/http-attempt.ts'
import { verifyWebhook } from '../src/index.ts'
import { json, type Seen, startFakeServer } from './fake-server.ts'

/**
 * `order-intake listen` and `trigger` against a fake service that speaks the
 * listen protocol (an SSE stream, a refused reconnect, resumption with
 * Last-Event-ID), forwarding to a local handler that checks what a registered
 * endpoint would get.
 */
const CLI = new URL('../src/cli.ts', import.meta.url).pathname
const KEY = 'svc_test_cliKey000000000000000000000000000000'

/** The CLI with the test key; a variable set to undefined in `env` is left out. */
function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ORDER_INTAKE_API_KEY: KEY, ...env }
  for (const [name, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[name]
  const child = spawn(process.execPath, [CLI, ...args], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  return { child, output: () => out, exited }
}

async function until(what: string, check: () => boolean, details: () => string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${details()}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

const body = (id: string, type: string) =>
  JSON.stringify({
    id,
    type,
    created_at: '2026-11-25T21:02:32.235Z',
    api_version: 'v1',
    data: { order_id: '01a21484-667a-72a7-b00d-dea4caa7e8df', external_order_id: 'Grüße-1' },
  })
const frame = (res: ServerResponse, lines: string[]) => res.write(`${lines.join('\n')}\n\n`)
const EVENT_1 = body('01a21484-6b2a-703d-bbf2-11ae752a5ad1', 'order.received')
const SAMPLE = body('01a21484-6b2a-703d-bbf2-11ae752a5ad2', 'order.cancelled')
const EVENT_3 = body('01a21484-6b2a-703d-bbf2-11ae752a5ad3', 'order.received')

describe('order-intake listen', () => {
  let service: Awaited<ReturnType<typeof startFakeServer>>
  let handler: Awaited<ReturnType<typeof startFakeServer>>
  before(async () => {
    handler = await startFakeServer((_req, res, n) => {
      res.writeHead(n === 2 ? 500 : 200)
      res.end('ok')
    })
    service = await startFakeServer()
  })
  after(async () => {
    await service.close()
    await handler.close()
  })

  test('forwards each event signed, resumes with Last-Event-ID after a drop and a refusal, stops on Ctrl-C', async () => {
    const streams: Seen[] = []
    service.handle((req, res, n) => {
      streams.push(req)
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
        frame(res, [
          'event: ready',
          'data: {"environment":"test","events":["order.received","order.cancelled"]}',
        ])
        res.write(': keepalive\n\n')
        frame(res, ['id: cursor-1', 'event: order.received', `data: ${EVENT_1}`])
        // The service goes away once the first event is out.
        setTimeout(() => res.socket!.destroy(), 300)
      } else if (n === 2) {
        json(res, 503, { error: { code: 'service_unavailable', message: 'starting', doc_url: 'x' } })
      } else if (n === 3) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        frame(res, ['event: ready', 'data: {"environment":"test","events":null}'])
        frame(res, ['event: order.cancelled', `data: ${SAMPLE}`])
        frame(res, ['id: cursor-3', 'event: order.received', `data: ${EVENT_3}`])
        setTimeout(() => res.end(), 300)
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        frame(res, ['event: ready', 'data: {"environment":"test","events":null}'])
      }
    })
    const cli = runCli([
      'listen',
      '--forward-to',
      `${handler.url}/webhooks?from=cli`,
      '--base-url',
      service.url,
      '--events',
      'order.received,order.cancelled',
    ])
    try {
      await until('four stream connections', () => streams.length >= 4, cli.output)
      await until('three forwarded events', () => handler.seen.length >= 3, cli.output)
    } finally {
      cli.child.kill('SIGINT')
    }
    assert.equal(await cli.exited, 0, cli.output())

    for (const s of streams) {
      assert.equal(s.method, 'GET')
      assert.equal(s.url, '/v1/webhook-events/stream?events=order.received%2Corder.cancelled')
      assert.equal(s.headers.authorization, `Bearer ${KEY}`)
      assert.equal(s.headers.accept, 'text/event-stream')
    }
    assert.deepEqual(
      streams.slice(0, 4).map((s) => s.headers['last-event-id']),
      [undefined, 'cursor-1', 'cursor-1', 'cursor-3'],
      'a sample without id does not move the resume point',
    )

    const secret = /signing secret for this session is (whsec_[A-Za-z0-9]{43})\b/.exec(cli.output())?.[1]
    assert.ok(secret, cli.output())
    assert.deepEqual(
      handler.seen.map((r) => r.body.toString('utf8')),
      [EVENT_1, SAMPLE, EVENT_3],
      'bodies forwarded byte for byte',
    )
    for (const req of handler.seen) {
      assert.equal(req.method, 'POST')
      assert.equal(req.url, '/webhooks?from=cli')
      assert.equal(req.headers['content-type'], 'application/json')
      assert.equal(req.headers['user-agent'], USER_AGENT)
      const event = await verifyWebhook(req.body, req.headers['x-service-signature'] as string, secret)
      assert.equal(req.headers['x-service-event-id'], event.id)
      assert.equal(req.headers['x-service-event-type'], event.type)
      await assert.rejects(
        verifyWebhook(req.body, req.headers['x-service-signature'] as string, 'whsec_other'),
      )
      // The Standard Webhooks set, as a registered endpoint gets it, verifies with the same secret.
      assert.equal(req.headers['webhook-id'], event.id)
      assert.equal(
        `t=${req.headers['webhook-timestamp']}`,
        String(req.headers['x-service-signature']).split(',')[0],
      )
      const standard = new Webhook(secret).verify(req.body.toString('utf8'), {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      })
      assert.deepEqual(standard, event)
    }
    const lines = cli.output().split('\n')
    for (const [raw, status] of [
      [EVENT_1, 200],
      [SAMPLE, 500],
      [EVENT_3, 200],
    ] as const) {
      const { id, type } = JSON.parse(raw)
      assert.ok(
        lines.some((l) => new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z  ${type}  ${id}  -> ${status}$`).test(l)),
        `a line for ${type} ${id} with ${status}:\n${cli.output()}`,
      )
    }
    assert.match(cli.output(), /Ready: test events \(order\.received, order\.cancelled\)/)
    assert.match(cli.output(), /503 service_unavailable/)
  })

  test('a refusal that reconnecting cannot fix ends the command with the error', async () => {
    service.handle((_req, res) =>
      json(res, 403, {
        error: { code: 'insufficient_scope', message: 'needs webhooks:manage', doc_url: 'x' },
      }),
    )
    const cli = runCli(['listen', '--forward-to', handler.url, '--base-url', service.url])
    assert.equal(await cli.exited, 1)
    assert.equal(service.seen.length, 1)
    assert.match(cli.output(), /refused the session: 403 insufficient_scope: needs webhooks:manage/)
  })

  test('a service it cannot reach is named on every retry; the default address says how to name another', async () => {
    const closed = createServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const { port } = closed.address() as AddressInfo
    closed.close()
    const base = `http://127.0.0.1:${port}`
    const cli = runCli(['listen', '--forward-to', handler.url, '--base-url', base])
    try {
      await until('a retry line', () => /Cannot reach/.test(cli.output()), cli.output)
    } finally {
      cli.child.kill('SIGINT')
    }
    assert.equal(await cli.exited, 0)
    assert.match(cli.output(), new RegExp(`^Connecting to ${base}$`, 'm'))
    assert.match(
      cli.output(),
      new RegExp(`^Cannot reach ${base} \\(fetch failed: ECONNREFUSED\\); trying again in 1 s$`, 'm'),
    )
    assert.doesNotMatch(cli.output(), /Stream lost/)

    const byDefault = runCli(['listen', '--forward-to', handler.url], { ORDER_INTAKE_BASE_URL: undefined })
    try {
      await until('the address line', () => /Connecting to/.test(byDefault.output()), byDefault.output)
    } finally {
      byDefault.child.kill('SIGINT')
    }
    await byDefault.exited
    assert.match(
      byDefault.output(),
      /^Connecting to http:\/\/localhost:3000 \(the default: --base-url or ORDER_INTAKE_BASE_URL names the service\)$/m,
    )
  })

  test('a handler that is down is reported on the event line, and the stream goes on', async () => {
    service.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      frame(res, ['event: ready', 'data: {"environment":"live","events":null}'])
      frame(res, ['id: c1', 'event: order.received', `data: ${EVENT_1}`])
    })
    const closed = createServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const { port } = closed.address() as AddressInfo
    closed.close()
    const cli = runCli(['listen', '--forward-to', `http://127.0.0.1:${port}/hook`, '--base-url', service.url])
    try {
      await until('the event line', () => / -> failed: /.test(cli.output()), cli.output)
    } finally {
      cli.child.kill('SIGINT')
    }
    assert.equal(await cli.exited, 0)
    assert.match(
      cli.output(),
      /order\.received {2}01a21484-6b2a-703d-bbf2-11ae752a5ad1 {2}-> failed: .*ECONNREFUSED/,
    )
  })
})

describe('order-intake trigger', () => {
  let service: Awaited<ReturnType<typeof startFakeServer>>
  before(async () => {
    service = await startFakeServer()
  })
  after(() => service.close())

  test('posts the type and prints how many sessions it reached; an error exits 1 with its code', async () => {
    service.handle((req, res) =>
      json(res, 202, { data: { type: JSON.parse(req.body.toString()).type, sessions: 2 } }),
    )
    const ok = runCli(['trigger', 'order.received', '--base-url', service.url])
    assert.equal(await ok.exited, 0, ok.output())
    assert.equal(ok.output().trim(), 'Triggered order.received: sent to 2 listen sessions.')
    const req = service.seen[0]!
    assert.deepEqual(
      [req.method, req.url, req.headers.authorization],
      ['POST', '/v1/webhook-events/trigger', `Bearer ${KEY}`],
    )
    assert.deepEqual(JSON.parse(req.body.toString()), { type: 'order.received' })

    // The service's answer to an unknown type (test/modules/webhooks/listen/listen.test.ts): the
    // valid types are in errors[], which the CLI prints under the error line.
    const valid = 'type must be one of "order.received", "order.cancelled", "ping"'
    service.handle((_req, res) =>
      json(res, 422, {
        error: {
          code: 'validation_failed',
          message: 'The request is invalid.',
          field: 'type',
          doc_url: 'x',
          errors: [{ code: 'invalid_format', field: 'type', message: valid }],
        },
      }),
    )
    const bad = runCli(['trigger', 'order.nope', '--base-url', service.url])
    assert.equal(await bad.exited, 1)
    assert.equal(bad.output().trim(), `422 validation_failed: The request is invalid. (type)\n  ${valid}`)
  })

  test('without a key or a type it says what is missing', async () => {
    const noType = runCli(['trigger', '--base-url', service.url])
    assert.equal(await noType.exited, 2)
    assert.match(noType.output(), /trigger needs an event type/)
    const child = spawn(process.execPath, [CLI, 'listen', '--forward-to', 'http://x'], {
      env: { ...process.env, ORDER_INTAKE_API_KEY: '' },
    })
    let out = ''
    child.stderr.on('data', (d) => (out += d))
    assert.equal(await new Promise((done) => child.once('exit', done)), 2)
    assert.match(out, /An API key is needed/)
  })
})
