import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'
import { AppError, listenLocally, localWebhooks } from '../../../http/errors.ts'

/**
 * Webhook targets must be public: every address a host resolves to is checked,
 * and any private or reserved one refuses the URL (loopback, RFC 1918,
 * link-local and cloud metadata, CGNAT, unique-local, multicast, unspecified,
 * IPv4-mapped/translated IPv6 by their embedded IPv4, documentation and other
 * special ranges). Only ipaddr.js's "unicast" range passes, unless an address
 * lies inside WEBHOOK_ALLOW_PRIVATE_CIDRS.
 */
export type Resolver = (hostname: string) => Promise<string[]>

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address)

/** Parsed CIDRs of private ranges a service allows webhooks to reach. */
export type AllowedRanges = [ipaddr.IPv4 | ipaddr.IPv6, number][]

export function parseCidrs(cidrs: readonly string[]): AllowedRanges {
  return cidrs.map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr)
    } catch {
      throw new Error(`WEBHOOK_ALLOW_PRIVATE_CIDRS: "${cidr}" is not a CIDR`)
    }
  })
}

/** The IPv4 address an IPv6 address embeds (mapped, NAT64, 6to4, Teredo...), if any. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address()
  const range = address.range()
  const bytes = address.toByteArray()
  if (range === 'rfc6052' || range === 'rfc6145') return new ipaddr.IPv4(bytes.slice(12, 16))
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6))
  if (range === 'teredo') return new ipaddr.IPv4(bytes.slice(12, 16).map((b) => b ^ 0xff))
  return undefined
}

const IETF_RESERVED_V6 = ipaddr.IPv6.parseCIDR('::/8')

export function isBlockedAddress(raw: string, allowed: AllowedRanges): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    address = ipaddr.parse(raw)
  } catch {
    return true
  }
  const inAllowList = (a: ipaddr.IPv4 | ipaddr.IPv6) =>
    allowed.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits))
  if (inAllowList(address)) return false
  if (address.kind() === 'ipv6') {
    const v4 = embeddedIpv4(address as ipaddr.IPv6)
    if (v4) return inAllowList(v4) ? false : v4.range() !== 'unicast'
    // ::/8 is reserved; it holds the deprecated IPv4-compatible form ::a.b.c.d,
    // which ipaddr.js calls unicast and some stacks tunnel to a.b.c.d.
    if ((address as ipaddr.IPv6).match(IETF_RESERVED_V6)) return true
  }
  return address.range() !== 'unicast'
}

/**
 * Validates a webhook URL and resolves its host: https only, no credentials,
 * a host that resolves, no blocked address. Returns the addresses to pin.
 */
export async function checkWebhookUrl(
  raw: string,
  options: { resolver: Resolver; allowed: AllowedRanges; serviceUrl: string },
): Promise<{ url: URL; addresses: string[] }> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new AppError('webhook_url_invalid', {
      field: 'url',
      message: 'The URL is not a valid absolute URL.',
    })
  }
  if (url.protocol === 'http:') {
    throw new AppError('webhook_url_invalid', {
      field: 'url',
      message: `Webhook URLs must use https. ${listenLocally(options.serviceUrl)}.`,
    })
  }
  if (url.protocol !== 'https:') {
    throw new AppError('webhook_url_invalid', { field: 'url', message: 'Webhook URLs must use https.' })
  }
  if (url.username || url.password) {
    throw new AppError('webhook_url_invalid', {
      field: 'url',
      message: 'Webhook URLs may not carry credentials (user:password@).',
    })
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  let addresses: string[]
  if (ipaddr.isValid(host)) {
    addresses = [ipaddr.parse(host).toString()]
  } else {
    try {
      addresses = [...new Set(await options.resolver(host))]
    } catch {
      addresses = []
    }
    if (addresses.length === 0) {
      throw new AppError('webhook_url_invalid', {
        field: 'url',
        message: `The host ${host} does not resolve.`,
      })
    }
  }
  const blocked = addresses.filter((a) => isBlockedAddress(a, options.allowed))
  if (blocked.length > 0) {
    throw new AppError('webhook_target_blocked', {
      field: 'url',
      message: `The host resolves to a private or reserved address (${blocked.join(', ')}). ${localWebhooks(options.serviceUrl)}`,
    })
  }
  return { url, addresses }
}
