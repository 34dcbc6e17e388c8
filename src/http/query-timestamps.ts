import type { FastifyRequest } from 'fastify'
import { AppError } from './errors.ts'

/**
 * A preValidation hook for timestamp query parameters:
 * `?updated_since=2026-11-22T12:00:00+02:00` typed into a URL arrives as
 * "...12:00:00 02:00", because form decoding reads `+` as a space. A space can
 * never be meant there, so it is read back as the `+` the client wrote.
 */
export function restorePlusInOffsets(...names: string[]) {
  return async function restorePlus(request: FastifyRequest) {
    const query = request.query as Record<string, unknown>
    for (const name of names) {
      const value = query[name]
      if (typeof value === 'string') query[name] = value.replace(/^(\S+T[\d:.]+) (\d\d(:?\d\d)?)$/, '$1+$2')
    }
  }
}

/**
 * A log's `created_since` (inclusive) and `created_until` (exclusive) as
 * instants; an empty or backwards window is 422 naming created_until.
 */
export function createdWindow(query: {
  created_since?: string | undefined
  created_until?: string | undefined
}): {
  since?: Date
  until?: Date
} {
  const since = query.created_since === undefined ? undefined : new Date(query.created_since)
  const until = query.created_until === undefined ? undefined : new Date(query.created_until)
  if (since && until && until.getTime() <= since.getTime()) {
    throw AppError.validation([
      {
        code: 'invalid_format',
        field: 'created_until',
        message: 'created_until must be later than created_since',
      },
    ])
  }
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) }
}
