import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: Buffer
}

export type Handler = (req: Seen, res: ServerResponse, n: number) => void

/** A local HTTP server whose answers each test scripts; every request is recorded with its body. */
export async function startFakeServer(initial: Handler = (_req, res) => res.end()) {
  let handler = initial
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const record = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      }
      seen.push(record)
      handler(record, res, seen.length)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    handle(next: Handler) {
      handler = next
      seen.length = 0
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export const json = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-from-server', ...headers })
  res.end(JSON.stringify(body))
}
