import type { LookupAddress } from 'node:dns'
import { isIPv6 } from 'node:net'

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for the connector that resolves the webhook host to its pinned
 * addresses only, never to a fresh DNS answer: the connection goes to an
 * address checked at creation, while the hostname stays in SNI and the Host
 * header.
 */
export function pinnedLookup(addresses: readonly string[]) {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const family = options.family === 'IPv6' ? 6 : options.family === 'IPv4' ? 4 : options.family
    const fitting = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all
    if (fitting.length === 0) {
      callback(Object.assign(new Error('no pinned address of that family'), { code: 'ENOTFOUND' }), [])
    } else if (options.all) callback(null, fitting)
    else callback(null, fitting[0]!.address, fitting[0]!.family)
  }
}
