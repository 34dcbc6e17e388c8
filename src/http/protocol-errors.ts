import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type ErrorContext, errorBody } from './error-handler.ts'
import { AppError, type ErrorCode } from './errors.ts'

/**
 * The answers Fastify and Node give on their own, before a request reaches a
 * route, in the error shape like every other answer:
 * - a path that cannot be decoded (`%ZZ`) or whose parameter is longer than
 *   the router takes (MAX_PARAM_LENGTH): 404 not_found, as an id that cannot
 *   exist; a valid key is counted and gets its rate-limit headers;
 * - HTTP that cannot be parsed: 400 malformed_request; headers over Node's
 *   16 KB: 431 headers_too_large; a request that stopped arriving: 408
 *   request_timeout (no request exists yet, so no key either);
 * - an HTTP/1.1 request without `Host`: 400 malformed_request, before the key
 *   (Node's own check, `requireHostHeader`, answers with an empty body);
 * - `Expect` other than 100-continue: 417 expectation_failed, after the key;
 * - a request while the service shuts down: 503 service_unavailable.
 */

/** The longest path parameter the router takes: ids are far shorter. */
export const MAX_PARAM_LENGTH = 200

const CLOSE = { connection: 'close' }

const CLIENT_ERRORS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
}

/** Options for Fastify(): frameworkErrors and clientErrorHandler. */
export function protocolErrorOptions(context: ErrorContext) {
  return {
    frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
      const badPath = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      void answer(request, reply, new AppError(badPath ? 'not_found' : 'internal_error'), context)
    },
    clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
      if (error.code === 'ECONNRESET' || socket.destroyed) return
      // As Node does: answer only if no response has begun on this connection.
      const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
      if (socket.writable && !inFlight?.headersSent) {
        const appError = new AppError(CLIENT_ERRORS[error.code ?? ''] ?? 'malformed_request')
        const body = JSON.stringify(errorBody(appError, context))
        socket.write(
          `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
            'Content-Type: application/json; charset=utf-8\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n` +
            `X-Request-Id: ${randomUUID()}\r\n` +
            `Connection: close\r\n\r\n${body}`,
        )
      }
      socket.destroy()
    },
    // Our own onRequest hooks answer in the error shape instead (handleShutdown, handleMissingHost).
    return503OnClosing: false,
  }
}

/** A reply outside the routes: counts a valid key (rate-limit headers) like the not-found handler. */
async function answer(request: FastifyRequest, reply: FastifyReply, error: AppError, context: ErrorContext) {
  try {
    await request.server.countKeyIfValid(request, reply)
  } catch (err) {
    error = err instanceof AppError ? err : new AppError('internal_error')
  }
  if (error.headers) reply.headers(error.headers)
  reply.appError = error
  reply
    .header('x-request-id', request.id)
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, context))
}

/** Options of Node's server: the Host check is ours (handleMissingHost), so its answer has a body. */
export const SERVER_OPTIONS = { requireHostHeader: false }

/** HTTP/1.1 requires Host (RFC 9112, 3.2); HTTP/1.0 may leave it out, as Node allows. */
export function handleMissingHost(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return
    throw new AppError('malformed_request', {
      message: 'The request is not valid HTTP: an HTTP/1.1 request needs a Host header.',
      headers: CLOSE,
    })
  })
}

const UNMET_EXPECTATION = Symbol('unmet expectation')

/**
 * Node answers an `Expect` other than 100-continue with a bare 417 unless told
 * otherwise: such requests go through the routes instead and get 417 after
 * authentication (registered after the auth hook, so a valid key is counted).
 */
export function handleExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (req, res) => {
    ;(req as unknown as Record<symbol, boolean>)[UNMET_EXPECTATION] = true
    app.routing(req, res)
  })
  app.addHook('onRequest', async (request) => {
    if (request.is404 || !(request.raw as unknown as Record<symbol, boolean>)[UNMET_EXPECTATION]) return
    throw new AppError('expectation_failed', { headers: CLOSE })
  })
}

/** While the service shuts down, requests that still arrive on open connections get 503. */
export function handleShutdown(app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async () => {
    if (closing)
      throw new AppError('service_unavailable', { message: 'The service is shutting down.', headers: CLOSE })
  })
}
