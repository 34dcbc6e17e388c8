import { createServer } from 'node:net'
import type { Resolver } from '../../src/modules/webhooks/worker/ssrf.ts'
import { loopbackResolver } from './https-receiver.ts'

/** The receiver's host names on loopback, plus `wrong-name.test`, which its certificate does not cover. */
export const resolverWithWrongName: Resolver = async (host) =>
  host === 'wrong-name.test' ? ['127.0.0.1'] : loopbackResolver(host)

/** A TCP port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise<void>((r) => server.close(() => r()))
  return port
}
