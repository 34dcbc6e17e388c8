import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { secretsEqual } from '../lib/secrets.ts'
import { ATTR, annotateActiveSpan } from '../telemetry/tracing.ts'
import { AppError } from './errors.ts'
import type { KeyAuthenticator, Principal, Scope } from './principal.ts'
import { type RateLimiter, rateLimitHeaders } from './rate-limit.ts'

/**
 * How a route is authenticated, declared in its `config`:
 * - `{ auth: 'key', scopes: [...] }` public API key with every listed scope;
 * - `{ auth: 'operator' }` the operator token (/admin/v1);
 * - `{ auth: 'none' }` open (OpenAPI document, error pages, health, signed PUT);
 * - `{ auth: 'session' }` a dashboard session cookie, checked by the dashboard's
 *   own plugin (with its CSRF check and the route's `role`).
 * Routes that take a JSON body say `jsonBody: true` (`'optional'` when the
 * body may be left out altogether); those that create
 * something say `creates: true` (a refused request then says nothing was created).
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: 'key' | 'operator' | 'none' | 'session'
    scopes?: Scope[]
    jsonBody?: boolean | 'optional'
    creates?: boolean
    /**
     * `'statement'`: the route's own database statement checks that the key
     * is not revoked (and answers invalid_api_key if it is), so a key from
     * memory is not checked again first: one round trip fewer on POST /v1/orders.
     */
    keyConfirmedBy?: 'statement'
  }
  interface FastifyRequest {
    principal: Principal | undefined
    /** The key, taken from memory unchecked, turned out revoked: the answer is invalid_api_key, whatever failed. */
    keyRevoked: boolean
  }
  interface FastifyInstance {
    /** Counts a valid key and sets its rate-limit headers; answers outside the routes use it. */
    countKeyIfValid(request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
}

export interface AuthDeps {
  apiKeys: KeyAuthenticator
  rateLimiter: RateLimiter
  operatorToken: string
  /** The methods a path is served with (allowed-methods.ts): none for an unknown path. */
  methodsOf: (url: string) => string[]
}

/** A request with no body at all: no Content-Type wanted then. */
const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0')

// The scheme is case-insensitive (RFC 9110, section 11.1): `bearer` works too.
const BEARER = /^Bearer +(\S+) *$/i

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (typeof header !== 'string') return undefined
  return BEARER.exec(header)?.[1]
}

/**
 * What a refused Authorization header got wrong in its form, from the header
 * alone: never from the key store, so unknown, revoked and expired keys keep
 * one and the same answer.
 */
export function authorizationHint(header: unknown, secret: 'API_KEY' | 'OPERATOR_TOKEN'): string {
  const expected = `Send \`Authorization: Bearer <${secret}>\`.`
  if (typeof header !== 'string' || header.trim() === '')
    return `No Authorization header was sent. ${expected}`
  const match = BEARER.exec(header)
  const what = secret === 'API_KEY' ? 'key' : 'token'
  if (!match) {
    const scheme = /^([A-Za-z][\w.~+/-]*)( +\S)?/.exec(header.trim())
    let problem = `The Authorization header has no \`Bearer \` before the ${what}.`
    if (scheme?.[1]?.toLowerCase() === 'bearer') {
      problem = scheme[2]
        ? `The Authorization header must hold \`Bearer\`, one space and the ${what}, and nothing after it.`
        : `The Authorization header holds \`Bearer\` without a ${what}.`
    } else if (scheme?.[2]) {
      problem = `The Authorization header uses the scheme \`${scheme[1]}\`; only \`Bearer\` is accepted.`
    }
    return `${problem} ${expected}`
  }
  if (secret === 'API_KEY' && !/^svc_(test|live)_/.test(match[1]!)) {
    return 'API keys start with `svc_test_` or `svc_live_`.'
  }
  return ''
}

export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  app.decorateRequest('principal', undefined)
  app.decorateRequest('keyRevoked', false)

  /** Authenticates and counts the request; sets the rate-limit headers on every valid-key response. */
  async function authenticateKey(request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
    const principal = await deps.apiKeys.authenticate(bearer(request))
    // A key from memory is checked now, unless the route's statement checks it.
    if (principal && !principal.confirmed && request.routeOptions.config.keyConfirmedBy !== 'statement') {
      principal.confirmed = await deps.apiKeys.confirm(principal)
    }
    if (!principal || (!principal.confirmed && request.routeOptions.config.keyConfirmedBy !== 'statement')) {
      throw new AppError('invalid_api_key', {
        hint: authorizationHint(request.headers.authorization, 'API_KEY'),
      })
    }
    request.principal = principal
    annotateActiveSpan({
      [ATTR.organization]: principal.organizationId,
      [ATTR.environment]: principal.environment,
    })
    let decision: Awaited<ReturnType<RateLimiter['hit']>>
    try {
      decision = await deps.rateLimiter.hit(principal.keyId)
    } catch (err) {
      request.log.error({ err }, 'rate limiter unavailable')
      throw new AppError('service_unavailable')
    }
    reply.headers(rateLimitHeaders(decision))
    if (!decision.allowed) {
      throw new AppError('rate_limited', {
        message: `More than ${decision.limit} requests per minute on this API key; retry after ${decision.resetSeconds} seconds.`,
        headers: { 'retry-after': String(decision.resetSeconds) },
      })
    }
    return principal
  }

  /**
   * Routes that need no key still count a valid one and give it its rate-limit
   * headers (every response to a valid key carries them); a bad key is ignored.
   */
  async function countKeyIfValid(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!bearer(request)?.startsWith('svc_')) return
    try {
      await authenticateKey(request, reply)
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'invalid_api_key')) throw err
    }
  }

  app.decorate('countKeyIfValid', countKeyIfValid)

  // A route that checks its key in its own statement may fail before it gets
  // there (validation, scope, rate limit): a revoked key still gets the 401 of
  // any bad key, without rate-limit headers (the error handler answers it).
  app.addHook('onError', async (request, reply, error) => {
    const principal = request.principal
    const invalidKey = error instanceof AppError && error.code === 'invalid_api_key'
    if (principal && !principal.confirmed && !invalidKey) {
      request.keyRevoked = !(await deps.apiKeys.confirm(principal))
    }
    if (request.keyRevoked || invalidKey) {
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
        reply.removeHeader(name)
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config
    // Unknown paths land on the not-found handler, which authenticates on its own.
    if (request.is404) return
    switch (config.auth) {
      case 'session':
        return
      case 'none':
        await countKeyIfValid(request, reply)
        return
      case 'operator': {
        const token = bearer(request)
        if (!token || !secretsEqual(token, deps.operatorToken)) {
          const hint = authorizationHint(request.headers.authorization, 'OPERATOR_TOKEN')
          throw new AppError('invalid_operator_token', { hint })
        }
        return
      }
      default: {
        const principal = await authenticateKey(request, reply)
        const missing = (config.scopes ?? []).filter((s) => !principal.scopes.includes(s))
        if (missing.length > 0) {
          throw new AppError('insufficient_scope', {
            message: `This API key lacks the required scope${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.`,
          })
        }
      }
    }
  })

  // A JSON body needs Content-Type application/json (any case, parameters allowed).
  app.addHook('preParsing', async (request) => {
    const { jsonBody } = request.routeOptions.config
    if (!jsonBody) return
    const type = request.headers['content-type']
    if (jsonBody === 'optional' && type === undefined && !hasBody(request)) return
    const mediaType = typeof type === 'string' ? type.split(';')[0]!.trim().toLowerCase() : ''
    if (mediaType !== 'application/json') {
      throw new AppError('invalid_json', {
        message: 'The request body must be JSON sent with Content-Type: application/json.',
      })
    }
  })

  // A body that may be left out is validated as {} when it is.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.jsonBody === 'optional' && request.body === undefined) request.body = {}
  })

  // Unknown path: 404 in the error shape with or without a key; a known path
  // with another method: 405 with Allow, alike.
  app.setNotFoundHandler(async (request, reply) => {
    await countKeyIfValid(request, reply)
    const allowed = deps.methodsOf(request.url)
    // A route of this method that found nothing (a missing file) is a plain 404.
    if (allowed.length === 0 || allowed.includes(request.method)) throw new AppError('not_found')
    throw new AppError('method_not_allowed', {
      hint: `It accepts ${allowed.join(', ')}.`,
      headers: { allow: allowed.join(', ') },
    })
  })
}
