import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isUnavailable } from '../db/unavailable.ts'
import { AppError, bodyTooLarge, docUrl, type ErrorCode, type ErrorTexts, withHint } from './errors.ts'
import { EMPTY_BODY } from './json-errors.ts'
import { toValidationEntries } from './validation.ts'

export interface ErrorBody {
  error: {
    code: string
    message: string
    doc_url: string
    field?: string
    errors?: { code: string; message: string; field: string }[]
  }
}

/** Fastify's own failures, mapped onto the catalog. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_CTP_EMPTY_TYPE: 'invalid_json',
  FST_ERR_CTP_INVALID_TYPE: 'invalid_json',
}

/** `bodyLimit`: the limit of the route the request went to, stated in a 413's message. */
export function toAppError(err: FastifyError | AppError | Error, bodyLimit?: number): AppError {
  if (err instanceof AppError) return err
  const fe = err as FastifyError
  if (fe.validation) {
    return AppError.validation(toValidationEntries(fe.validation as never))
  }
  if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('invalid_json', { hint: EMPTY_BODY })
  const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined
  if (mapped) return new AppError(mapped)
  // JSON.parse failures (including stack exhaustion on absurd nesting) arrive as
  // SyntaxError / RangeError with a 400 status from the content-type parser.
  if (fe.statusCode === 400 && (err instanceof SyntaxError || err instanceof RangeError)) {
    return new AppError('invalid_json')
  }
  if (fe.statusCode === 413) return bodyTooLarge(bodyLimit)
  if (fe.statusCode === 404) return new AppError('not_found')
  if (fe.statusCode === 503) return new AppError('service_unavailable')
  // Any other request Fastify refuses before the handler (no such case is known today).
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return new AppError('malformed_request')
  // Database or Redis unreachable, too slow or shutting down: retry-safe, not a bug.
  if (isUnavailable(err)) return new AppError('service_unavailable')
  return new AppError('internal_error')
}

declare module 'fastify' {
  interface FastifyReply {
    /** The error this reply answers with, for the request log and the metrics. */
    appError: AppError | undefined
  }
}

/** What an error answer is stated with: the catalog's texts and the address of its pages. */
export interface ErrorContext {
  publicBaseUrl: string
  texts: ErrorTexts
}

/** `hint`: what the request adds to the catalog's message when the error itself adds nothing. */
export function errorBody(error: AppError, context: ErrorContext, hint?: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.detail ?? withHint(context.texts[error.code].message, error.hint ?? hint),
      doc_url: docUrl(context.publicBaseUrl, error.code),
      ...(error.field !== undefined ? { field: error.field } : {}),
      ...(error.errors ? { errors: error.errors } : {}),
    },
  }
}

/** What a refused request did not do, said after validation_failed's catalog message. */
function outcome(request: FastifyRequest): string | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined
  return request.routeOptions.config.creates ? 'Nothing was created.' : 'Nothing was changed.'
}

export function registerErrorHandler(app: FastifyInstance, context: ErrorContext): void {
  app.decorateReply('appError', undefined)
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const error = request.keyRevoked
      ? new AppError('invalid_api_key', { hint: '' })
      : toAppError(err, request.routeOptions.bodyLimit)
    const body = errorBody(error, context, error.code === 'validation_failed' ? outcome(request) : undefined)
    if (error.code === 'internal_error') {
      request.log.error({ err }, 'unhandled error')
    } else if (error.status >= 500) {
      request.log.warn({ err }, body.error.message)
    }
    if (error.headers) reply.headers(error.headers)
    reply.appError = error
    return reply.code(error.status).type('application/json; charset=utf-8').send(body)
  })
}
