import type { FastifyRequest } from 'fastify'

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
