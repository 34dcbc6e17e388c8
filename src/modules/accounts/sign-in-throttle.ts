import ipaddr from 'ipaddr.js'
import { AppError } from '../../http/errors.ts'
import type { RateLimiter } from '../../http/rate-limit.ts'
import { sha256Hex } from '../../lib/secrets.ts'
import { SIGN_IN_LIMITS } from './limits.ts'

/**
 * Where sign-in attempts come from, as the throttles count them: an IPv4 address
 * (IPv4-mapped IPv6 included) as itself, an IPv6 address by its /64, which one
 * subscriber usually holds whole and could otherwise walk through.
 */
export function throttledAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4)
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`
}

/**
 * Counts one sign-in attempt, before the password is checked, or throws
 * 429 sign_in_throttled. Per address (spraying many accounts from one place),
 * then per account and address (guessing one account's password): a count per
 * account alone let anyone lock a chosen account out from anywhere.
 */
export async function throttleSignIn(limiter: RateLimiter, email: string, address: string): Promise<void> {
  const from = throttledAddress(address)
  for (const [key, limit] of [
    [`signin:address:${from}`, SIGN_IN_LIMITS.perAddress],
    [`signin:account-address:${sha256Hex(email)}:${from}`, SIGN_IN_LIMITS.perAccountAndAddress],
  ] as const) {
    const decision = await limiter.hit(key, limit)
    if (!decision.allowed) {
      throw new AppError('sign_in_throttled', {
        message: `Too many sign-in attempts; try again in ${decision.resetSeconds} seconds.`,
        headers: { 'retry-after': String(decision.resetSeconds) },
      })
    }
  }
}
