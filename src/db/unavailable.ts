/**
 * Failures that mean a dependency (PostgreSQL, the embedded database while it
 * closes, Redis) cannot serve right now, as opposed to a bug: the request may
 * succeed when resent, and the answer is 503 service_unavailable.
 */

// SQLSTATE classes 08 (connection exception) and 53 (insufficient resources:
// disk full, out of memory, too_many_connections 53300).
const UNAVAILABLE_CLASSES = ['08', '53']
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '57P05', // idle_session_timeout
  '57014', // query_canceled: statement_timeout
  '55P03', // lock_not_available: lock_timeout
  '25P03', // idle_in_transaction_session_timeout
  '58000', // system_error (I/O)
  '58030', // io_error
])

// Socket and DNS failures of node:net, as the drivers pass them on.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
])

// node-postgres, pg-pool, Kysely, PGlite and ioredis say it in words only.
const UNAVAILABLE_MESSAGES =
  /^(Query read timeout|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|driver has already been destroyed|PGlite is closed|Command timed out|Connection is closed|Stream isn't writeable|Reached the max retries per request limit)/

function isPostgresError(err: object): err is { code: string; severity: string } {
  return typeof (err as { severity?: unknown }).severity === 'string' && 'code' in err
}

/** True when err (or an error it wraps) says a dependency is unreachable, too slow or going away. */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    if (isPostgresError(err)) {
      return UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2))
    }
    if (NETWORK_CODES.has(code)) return true
  }
  if (err instanceof Error && UNAVAILABLE_MESSAGES.test(err.message)) return true
  // Node reports a refused connection to every address of a host as an AggregateError.
  if (err instanceof AggregateError && err.errors.some((e) => isUnavailable(e, depth + 1))) return true
  return isUnavailable((err as { cause?: unknown }).cause, depth + 1)
}

/**
 * True when the connection that raised err can no longer be trusted: anything
 * but an ordinary statement error. A timed-out query may still be running on
 * the server, and a response lost on the way leaves the protocol out of step.
 */
export function breaksConnection(err: unknown): boolean {
  if (!err || typeof err !== 'object') return true
  if (!isPostgresError(err)) return true
  return err.severity === 'FATAL' || err.severity === 'PANIC' || err.code.startsWith('08')
}
