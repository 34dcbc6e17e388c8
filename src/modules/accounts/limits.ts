/** The dashboard's account limits, stated by the error catalog and docs/dashboard.md. */

/** An invitation link is valid this long, once. */
export const INVITATION_TTL_MS = 7 * 86_400_000

/** A password reset link is valid this long, once. */
export const PASSWORD_RESET_TTL_MS = 3_600_000

/** A session ends after this long without a request... */
export const SESSION_IDLE_MS = 12 * 3_600_000
/** ...and this long after sign-in, however active. */
export const SESSION_ABSOLUTE_MS = 7 * 86_400_000
/** last_seen_at is written at most this often per session (not on every request). */
export const SESSION_TOUCH_MS = 60_000

/** Sign-in attempts per 60-second window (the rate limiter's): per account from one address, and per address. */
export const SIGN_IN_LIMITS = { perAccountAndAddress: 10, perAddress: 30 } as const

export const PASSWORD_MIN = 12
export const PASSWORD_MAX = 200
