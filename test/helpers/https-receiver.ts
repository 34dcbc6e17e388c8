import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import selfsigned from 'selfsigned'

/** Host names the test certificate is valid for; tests resolve them to 127.0.0.1. */
export const RECEIVER_HOSTS = ['webhook.test', 'hooks.example.test', 'localhost']

let certificate: Promise<{ key: string; cert: string }> | undefined

/** One self-signed certificate per test process (generating RSA keys is slow). */
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= selfsigned
    .generate([{ name: 'commonName', value: 'webhook.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      notAfterDate: new Date(Date.now() + 7 * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: true },
        {
          name: 'subjectAltName',
          altNames: [
            ...RECEIVER_HOSTS.map((value) => ({ type: 2 as const, value })),
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    })
    .then((pems: { private: string; cert: string }) => ({ key: pems.private, cert: pems.cert }))
  return certificate
}

export interface ReceivedRequest {
  method: string
  url: string
  headers: Record<string, string | string[] | undefined>
  /** The raw body bytes, exactly as sent. */
  body: Buffer
  at: number
}

export interface Reply {
  status: number
  body?: string
  headers?: Record<string, string>
  /** Milliseconds before answering. */
  delayMs?: number
}

/**
 * A local HTTPS webhook receiver. `respond` decides each answer (default 200);
 * every request is recorded with its raw body.
 */
export async function startReceiver(
  respond: (req: ReceivedRequest, n: number) => Reply = () => ({ status: 200 }),
) {
  const { key, cert } = await testCertificate()
  const received: ReceivedRequest[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  let handler = respond
  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const record: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      }
      received.push(record)
      const reply = handler(record, received.length)
      const send = () => {
        if (res.destroyed) return
        res.writeHead(reply.status, reply.headers ?? {})
        res.end(reply.body ?? '')
      }
      if (reply.delayMs) setTimeout(send, reply.delayMs)
      else send()
      for (const w of [...waiters]) {
        if (received.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve()
        }
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    ca: cert,
    received,
    url: (path = '/hook', host = 'webhook.test') => `https://${host}:${port}${path}`,
    setHandler(next: typeof respond) {
      handler = next
    },
    /** Resolves when at least `count` requests have arrived (rejects after timeoutMs). */
    waitFor(count: number, timeoutMs = 10_000): Promise<void> {
      if (received.length >= count) return Promise.resolve()
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} requests, got ${received.length}`)),
          timeoutMs,
        )
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
      })
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/** A resolver that maps the test host names to loopback. */
export const loopbackResolver = async (host: string): Promise<string[]> => {
  if (RECEIVER_HOSTS.includes(host)) return ['127.0.0.1']
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
}
