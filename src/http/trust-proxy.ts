import type { FastifyServerOptions } from 'fastify'
import type { TrustProxy } from '../config.ts'

/**
 * Fastify's `trustProxy` for TRUST_PROXY: `request.ip` is then the client's
 * address for the audit log, the sign-in throttles and the request logs alike.
 * Off, X-Forwarded-For is ignored. A hop count is a function: Fastify 5 turns a
 * bare number into "trust nothing", since a count cannot tell the proxy from a
 * client that reaches the port directly (docs/operations.md says so too).
 */
export function trustProxyOption(setting: TrustProxy = false): FastifyServerOptions['trustProxy'] {
  if (setting === false) return false
  if (typeof setting === 'number') return (_address: string, hop: number) => hop < setting
  return [...setting]
}
