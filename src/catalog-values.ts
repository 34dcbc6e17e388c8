import { maxHeaderSize, type ServerOptions } from 'node:http'
import type { Config } from './config.ts'
import type { CatalogValues } from './http/error-values.ts'
import { DEFAULT_BODY_LIMIT, ORDER_BODY_LIMIT } from './http/json-body.ts'
import { MAX_PARAM_LENGTH } from './http/protocol-errors.ts'
import { WINDOW_MS } from './http/rate-limit.ts'
import type { Timeouts } from './http/timeouts.ts'
import { INVITATION_TTL_MS, PASSWORD_RESET_TTL_MS, SIGN_IN_LIMITS } from './modules/accounts/limits.ts'
import { MAX_UPLOAD_BYTES } from './modules/uploads/storage/storage.ts'
import { SVG_LIMITS } from './modules/uploads/svg-limits.ts'
import { SVG_SANITIZER_DEFAULTS } from './modules/uploads/svg-pool.ts'
import { LISTEN_LEASE_MS, MAX_LISTEN_STREAMS } from './modules/webhooks/listen/listen.service.ts'
import { MAX_ACTIVE_ENDPOINTS } from './modules/webhooks/webhooks.service.ts'

/**
 * The limits the error catalog states, taken from where each is set: the
 * configuration, the server's options and the constants the code enforces.
 */
export function catalogValues(
  config: Pick<Config, 'rateLimitPerMinute' | 'uploadUrlTtlS'>,
  timeouts: Timeouts,
  http: ServerOptions | undefined,
): CatalogValues {
  return {
    rateLimitPerMinute: config.rateLimitPerMinute,
    rateLimitWindowS: WINDOW_MS / 1000,
    orderBodyBytes: ORDER_BODY_LIMIT,
    defaultBodyBytes: DEFAULT_BODY_LIMIT,
    headerBytes: http?.maxHeaderSize ?? maxHeaderSize,
    headersTimeoutMs: timeouts.headersMs,
    bodyTimeoutMs: timeouts.bodyMs,
    uploadGraceMs: timeouts.uploadGraceMs,
    uploadMinBytesPerSecond: timeouts.uploadMinBytesPerSecond,
    maxUploadBytes: MAX_UPLOAD_BYTES,
    uploadUrlTtlS: config.uploadUrlTtlS,
    maxActiveEndpoints: MAX_ACTIVE_ENDPOINTS,
    maxListenStreams: MAX_LISTEN_STREAMS,
    listenLeaseS: LISTEN_LEASE_MS / 1000,
    maxParamLength: MAX_PARAM_LENGTH,
    signInPerAccountAndAddress: SIGN_IN_LIMITS.perAccountAndAddress,
    signInPerAddress: SIGN_IN_LIMITS.perAddress,
    invitationTtlDays: INVITATION_TTL_MS / 86_400_000,
    passwordResetTtlMinutes: PASSWORD_RESET_TTL_MS / 60_000,
    svg: {
      ...SVG_LIMITS,
      timeLimitMs: SVG_SANITIZER_DEFAULTS.timeLimitMs,
      memoryLimitMb: SVG_SANITIZER_DEFAULTS.memoryLimitMb,
    },
  }
}
