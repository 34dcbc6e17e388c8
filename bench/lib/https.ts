import { writeFileSync } from 'node:fs'
import type { Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import selfsigned from 'selfsigned'

/**
 * A self-signed certificate for localhost and 127.0.0.1, written to `dir` as
 * key.pem and cert.pem (the service trusts it through NODE_EXTRA_CA_CERTS).
 */
export async function certificate(dir: string): Promise<{ key: string; cert: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  })
  writeFileSync(join(dir, 'key.pem'), pems.private)
  writeFileSync(join(dir, 'cert.pem'), pems.cert)
  return { key: pems.private, cert: pems.cert }
}

/** Listens on a free port of 127.0.0.1; close() drops open connections too. */
export async function listen(server: Server): Promise<{ port: number; close(): void }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
}
