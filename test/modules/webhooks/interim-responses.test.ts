import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, describe, type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createServer, type TLSSocket } from 'node:tls'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { endpointDeliveries } from '../../helpers/dispatcher.ts'
import { loopbackResolver, testCertificate } from '../../helpers/https-receiver.ts'

/**
 * A receiver on raw TLS: for each request on a connection (kept alive), it
 * writes `reply(n)`'s pieces one after another, `gapMs` apart, so interim
 * responses and the final one can arrive in one TCP segment or split anywhere.
 */
async function rawReceiver(reply: (n: number) => string[], gapMs = 20) {
  const { key, cert } = await testCertificate()
  const requests: { at: number; connection: number }[] = []
  const sockets = new Set<TLSSocket>()
  const server = createServer({ key, cert }, (socket: TLSSocket) => {
    sockets.add(socket)
    const connection = sockets.size
    let buffer = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('data', async (data: Buffer) => {
      buffer = Buffer.concat([buffer, data])
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n')
        if (end === -1) return
        const length = Number(/content-length: *(\d+)/i.exec(buffer.subarray(0, end).toString())?.[1] ?? 0)
        if (buffer.length < end + 4 + length) return
        buffer = buffer.subarray(end + 4 + length)
        requests.push({ at: Date.now(), connection })
        for (const piece of reply(requests.length)) {
          await sleep(gapMs)
          if (!socket.destroyed) socket.write(piece)
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    ca: cert,
    requests,
    url: `https://webhook.test:${port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

const final = (status: string, body: string) =>
  `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

let t: TestApp
before(async () => {
  t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
})
after(() => t.close())

/**
 * An endpoint on `receiver` and a worker with one slot trusting it; then
 * `orders` orders, each once the previous one's delivery has its first
 * attempt recorded. Returns the deliveries.
 */
async function deliver(ctx: TestContext, receiver: Awaited<ReturnType<typeof rawReceiver>>, orders = 1) {
  ctx.after(() => receiver.close())
  const tenant = await t.tenant()
  const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url: receiver.url })
  assert.equal(res.statusCode, 201, res.body)
  const endpointId = res.json().data.endpoint.id as string
  const worker = await t.startDispatcher({ ca: receiver.ca, retryDelaysMs: [60_000], concurrency: 1 })
  ctx.after(() => worker.stop(100))
  const deliveries = () => endpointDeliveries(t, endpointId)
  for (let i = 1; i <= orders; i++) {
    const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(created.statusCode, 201, created.body)
    const deadline = Date.now() + 10_000
    for (;;) {
      const rows = await deliveries()
      if (rows.length === i && rows.every((r) => r.attempts > 0)) break
      if (Date.now() > deadline) throw new Error(`delivery ${i} did not settle: ${JSON.stringify(rows)}`)
      await sleep(20)
    }
  }
  return deliveries()
}

describe('webhook dispatcher: interim (1xx) responses before the final one', () => {
  test('100 Continue, unasked for, then 200: the 200 counts, a success at the first attempt', async (ctx) => {
    const receiver = await rawReceiver(() => ['HTTP/1.1 100 Continue\r\n\r\n', final('200 OK', 'thanks')])
    const [row] = await deliver(ctx, receiver)
    assert.equal(row!.status, 'succeeded')
    assert.equal(row!.attempts, 1)
    assert.equal(row!.response_status, 200)
    assert.equal(row!.response_snippet, 'thanks')
    assert.equal(row!.error_code, null)
    assert.equal(receiver.requests.length, 1)
  })

  test('103 Early Hints then 500: a failed attempt with http_error and the final status', async (ctx) => {
    const receiver = await rawReceiver(() => [
      'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n',
      final('500 Internal Server Error', 'broken'),
    ])
    const [row] = await deliver(ctx, receiver)
    assert.equal(row!.status, 'pending', 'a retry is scheduled')
    assert.equal(row!.attempts, 1)
    assert.equal(row!.error_code, 'http_error')
    assert.equal(row!.response_status, 500)
    assert.equal(row!.response_snippet, 'broken')
  })

  test('several interim responses, split anywhere or sent with the final one, on a kept-alive connection', async (ctx) => {
    const pieces = [
      // Split inside the status line, and inside the interim response's end.
      ['HTTP/1.1 10', '0 Continue\r\n\r', '\nHTTP/1.1 102 Processing\r\n\r\n', final('204 No Content', '')],
      // Everything in one piece.
      [`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${final('200 OK', 'ok')}`],
      // No interim response at all, then a final status split early.
      ['HTTP/1.', final('202 Accepted', 'queued').slice(7)],
    ]
    const receiver = await rawReceiver((n) => pieces[n - 1]!)
    const rows = await deliver(ctx, receiver, 3)
    assert.deepEqual(
      rows.map((r) => [r.status, r.response_status, r.response_snippet, r.attempts]),
      [
        ['succeeded', 204, null, 1],
        ['succeeded', 200, 'ok', 1],
        ['succeeded', 202, 'queued', 1],
      ],
    )
    assert.equal(new Set(receiver.requests.map((r) => r.connection)).size, 1, 'one kept-alive connection')
  })
})
