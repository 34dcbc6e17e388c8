import { once } from 'node:events'
import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy between the service and a dependency (PostgreSQL, Redis) that can
 * fail the way networks and servers fail:
 * - stall(): bytes in both directions are dropped, on open and new connections
 *   alike (a partition, or a server that stopped answering); resume() forwards
 *   again, but what was dropped stays lost;
 * - reset(): every open connection is reset (RST);
 * - refuse(): the port stops listening (connection refused) and open
 *   connections are reset; accept() listens on the same port again.
 */
export interface TcpProxy {
  readonly port: number
  /** The dependency's URL with its host and port replaced by the proxy's. */
  url(original: string): string
  /** Connections currently open through the proxy. */
  readonly connections: number
  /** Open connections whose client sent something since stall() that was held back. */
  readonly waiting: number
  stall(): void
  resume(): void
  reset(): void
  refuse(): Promise<void>
  accept(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target)
  const upstreamPort = Number(targetPort || (target.startsWith('redis') ? 6379 : 5432))
  let stalled = false
  const pairs = new Set<[Socket, Socket]>()
  const waiting = new Set<[Socket, Socket]>()

  const onConnection = (client: Socket) => {
    const upstream = connect(upstreamPort, hostname)
    const pair: [Socket, Socket] = [client, upstream]
    pairs.add(pair)
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (!stalled && !to.destroyed) to.write(chunk)
        else if (stalled && from === client) waiting.add(pair)
      })
    forward(client, upstream)
    forward(upstream, client)
    const end = () => {
      pairs.delete(pair)
      waiting.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    for (const socket of pair) {
      socket.on('error', end)
      socket.on('close', end)
    }
  }

  let server: Server = createServer(onConnection)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port

  const resetAll = () => {
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy()
      upstream.resetAndDestroy()
    }
    pairs.clear()
    waiting.clear()
  }

  return {
    port,
    url(original) {
      const u = new URL(original)
      u.hostname = '127.0.0.1'
      u.port = String(port)
      return u.toString()
    },
    get connections() {
      return pairs.size
    },
    get waiting() {
      return waiting.size
    },
    stall() {
      stalled = true
    },
    resume() {
      stalled = false
      waiting.clear()
    },
    reset: resetAll,
    async refuse() {
      const closed = new Promise((resolve) => server.close(resolve))
      resetAll()
      await closed
    },
    async accept() {
      server = createServer(onConnection)
      server.listen(port, '127.0.0.1')
      await once(server, 'listening')
    },
    async close() {
      stalled = false
      resetAll()
      if (server.listening) await new Promise((resolve) => server.close(resolve))
    },
  }
}
