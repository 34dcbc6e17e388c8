import { AppError } from '../../http/errors.ts'
import type { RateLimiter } from '../../http/rate-limit.ts'
import { sha256Hex } from '../../lib/secrets.ts'
import { SIGN_IN_LIMITS } from './limits.ts'

/**
 * Counts one sign-in attempt, before the password is checked, or throws
 * 429 sign_in_throttled. Per address (spraying many accounts from one place),
 * then per account and address (guessing one account's password): a count per
 * account alone let anyone lock a chosen account out from anywhere.
 */
export async function throttleSignIn(limiter: RateLimiter, email: string, address: string): Promise<void> {
  for (const [key, limit] of [
    [`signin:address:${address}`, SIGN_IN_LIMITS.perAddress],
    [`signin:account-address:${sha256Hex(email)}:${address}`, SIGN_IN_LIMITS.perAccountAndAddress],
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
