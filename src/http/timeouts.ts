import type { Readable } from 'node:stream'
import { PassThrough, Transform } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { AppError } from './errors.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler reads the raw body itself (the signed upload PUT): no body deadline, see uploadWatchdog. */
    streamedBody?: boolean
  }
}

/**
 * How long a client may take to send a request. Node's own requestTimeout
 * would cut a large upload on a slow line as early as a slow JSON body, so it
 * is off; a JSON body gets a fixed deadline instead and an upload a minimum
 * average rate (docs/decisions/2026-11-25-request-timeouts.md).
 */
export interface Timeouts {
  /** The request line and headers (Node's headersTimeout). */
  headersMs: number
  /** A request body other than an upload, from the end of its headers. */
  bodyMs: number
  /** An idle kept-alive connection closes after this. */
  keepAliveMs: number
  /** An upload owes nothing during this first stretch (connection set-up, a slow start)... */
  uploadGraceMs: number
  /** ...and then must have arrived at this average rate, counted from its start. */
  uploadMinBytesPerSecond: number
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  headersMs: 30_000,
  bodyMs: 60_000,
  keepAliveMs: 72_000,
  uploadGraceMs: 30_000,
  uploadMinBytesPerSecond: 100 * 1024,
}

/** Applies the timeouts that Node enforces itself; call before listening. */
export function configureServerTimeouts(app: FastifyInstance, timeouts: Timeouts): void {
  app.server.requestTimeout = 0
  app.server.headersTimeout = timeouts.headersMs
  app.server.keepAliveTimeout = timeouts.keepAliveMs
}

/**
 * Pipes the request into a stream of ours: an abort or error of the request
 * reaches it (pipe() alone does not pass them on), while destroying ours leaves
 * the request and its socket alone, so a 408 can still be answered.
 */
function feed(request: Readable, into: PassThrough | Transform): void {
  const fail = (err?: Error) => {
    if (!request.readableEnded) into.destroy(err ?? new Error('The request was aborted.'))
  }
  request.once('error', fail)
  request.once('close', () => fail())
  request.pipe(into)
}

/**
 * A body that has not fully arrived `bodyMs` after the headers is refused with
 * 408 request_timeout (and the connection closed), so a client trickling a
 * JSON body cannot hold a connection and its buffer open for long.
 */
export function registerBodyDeadline(app: FastifyInstance, timeouts: Timeouts): void {
  app.addHook('preParsing', async (request, reply, payload) => {
    if (request.routeOptions.config.streamedBody || request.raw.complete) return payload
    const headers = request.headers
    if (!headers['transfer-encoding'] && !(Number(headers['content-length']) > 0)) return payload
    const guarded = new PassThrough()
    // The body parser listens for errors once it reads; until then this one does.
    guarded.on('error', () => {})
    const timer = setTimeout(() => {
      payload.unpipe(guarded)
      reply.header('connection', 'close')
      guarded.destroy(
        new AppError('request_timeout', {
          message: `The request body did not arrive within ${timeouts.bodyMs / 1000} s.`,
        }),
      )
    }, timeouts.bodyMs)
    const stop = () => clearTimeout(timer)
    guarded.once('end', stop)
    guarded.once('close', stop)
    reply.raw.once('close', stop)
    feed(payload, guarded)
    return guarded
  })
}

/**
 * The upload body, passed through a watchdog: after `uploadGraceMs` the bytes
 * received must keep up with `uploadMinBytesPerSecond` since the start, so a
 * 50 MB file may take its time at a modest rate (about 9 minutes at 100 KB/s)
 * while a stalled or trickling upload is stopped with request_timeout.
 */
export function uploadWatchdog(body: Readable, timeouts: Timeouts): Readable {
  const started = performance.now()
  let received = 0
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length
      done(null, chunk)
    },
  })
  // The reader listens for errors once it reads; a PUT refused before that never does.
  counted.on('error', () => {})
  const rate = timeouts.uploadMinBytesPerSecond
  const check = () => {
    const owed = ((performance.now() - started - timeouts.uploadGraceMs) / 1000) * rate
    if (received >= owed) return
    clearInterval(timer)
    body.unpipe(counted)
    counted.destroy(
      new AppError('request_timeout', {
        message: `The upload arrived slower than ${Math.round(rate / 1024)} KB/s on average; nothing was stored.`,
      }),
    )
  }
  const timer = setInterval(check, Math.min(1000, Math.max(10, timeouts.uploadGraceMs / 10)))
  counted.once('close', () => clearInterval(timer))
  counted.once('end', () => clearInterval(timer))
  feed(body, counted)
  return counted
}
