import { isUtf8 } from 'node:buffer'
import type { FastifyInstance } from 'fastify'
import { scanBody } from './body-scan.ts'
import { bodyShape } from './body-shape.ts'
import { AppError, MAX_VALIDATION_ENTRIES } from './errors.ts'
import { invalidJson } from './json-errors.ts'
import { validateBody } from './validation.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body as it arrived, for the request log (valid or not). */
    rawJsonBody: Buffer | undefined
  }
}

/** POST /v1/orders and the operator's shop orders: a valid order of long strings reaches this. */
export const ORDER_BODY_LIMIT = 10 * 1024 * 1024
/** Every other endpoint: its largest valid body, every character escaped, fits several times over. */
export const DEFAULT_BODY_LIMIT = 64 * 1024

/**
 * The JSON body parser. Bodies are UTF-8 JSON: invalid UTF-8 is refused
 * (invalid_json) instead of being silently turned into U+FFFD and stored as if
 * the client had sent it. Before JSON.parse, the body is scanned against the
 * route's schema (body-scan.ts), so a body of millions of values costs one
 * linear pass, not seconds of parsing and validation.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.decorateRequest('rawJsonBody', undefined)
  const parseJson = app.getDefaultJsonParser('error', 'error')
  // Checked before; this decoder also drops a leading byte order mark.
  const utf8 = new TextDecoder('utf-8')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw, done) => {
    const body = raw as Buffer
    request.rawJsonBody = body
    const schema = request.routeOptions.schema?.body as object | undefined
    // Some clients send Content-Type: application/json on every POST, bodyless
    // ones too: an empty body is no body where the route does not require one.
    if (body.length === 0 && (!schema || request.routeOptions.config.jsonBody === 'optional')) {
      done(null, undefined)
      return
    }
    if (!isUtf8(body)) {
      done(new AppError('invalid_json', { message: 'The request body is not valid UTF-8.' }), undefined)
      return
    }
    // A body that does not parse gets invalid_json saying where it fails.
    const parsed = (err: Error | null, data?: unknown) => {
      if (!err) return done(null, data)
      invalidJson(body).then((answer) => done(answer, undefined), done)
    }
    // Routes without a body schema ignore the body; their limit keeps parsing it cheap.
    if (!schema) return parseJson(request, utf8.decode(body), parsed)
    scanBody(body, bodyShape(schema), MAX_VALIDATION_ENTRIES).then((scanned) => {
      if (!scanned) return parsed(new AppError('invalid_json'))
      if (!scanned.edited) return parseJson(request, utf8.decode(body), parsed)
      // Something was cut or replaced, so the body is invalid: report on what
      // is left, after the entries for what was cut.
      parseJson(request, utf8.decode(scanned.bytes), (err, data) => {
        if (err) parsed(err)
        else done(validateBody(schema, data, scanned.entries), undefined)
      })
    }, done)
  })
}
