import type { FastifyInstance, RouteOptions } from 'fastify'
import { ERROR_CATALOG, type ErrorCode } from './errors.ts'
import { ERROR_CODES_KEY, errorResponses } from './schemas.ts'

/**
 * Errors any request can get before or around its route: HTTP that cannot be
 * parsed, oversized headers, an unmet Expect, a request that stops arriving,
 * a failure of ours, a service shutting down or a database out of reach.
 */
const EVERY_ROUTE: ErrorCode[] = [
  'malformed_request',
  'request_timeout',
  'expectation_failed',
  'headers_too_large',
  'internal_error',
  'service_unavailable',
]

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error codes the route's service can answer with, beyond what src/http derives. */
    errors?: ErrorCode[]
  }
}

type RouteLike = Pick<RouteOptions, 'config' | 'schema' | 'url'>

/**
 * The error codes a route can answer with: what the hooks in src/http raise
 * for its configuration and schemas, plus what its service raises, which the
 * route declares in `config.errors`.
 */
export function routeErrorCodes(route: RouteLike): ErrorCode[] {
  const config = (route.config ?? {}) as {
    auth?: string
    role?: string
    csrf?: boolean
    scopes?: string[]
    jsonBody?: boolean | 'optional'
    errors?: ErrorCode[]
    accounts?: 'member' | 'operator' | 'any'
  }
  const schema = (route.schema ?? {}) as Record<string, unknown>
  const codes = new Set<ErrorCode>(EVERY_ROUTE)
  // An open route still counts a valid key, which may be over its limit.
  codes.add('rate_limited')
  if (config.auth === 'operator') codes.add('invalid_operator_token')
  if (config.auth === 'key' || config.auth === undefined) codes.add('invalid_api_key')
  if (config.scopes?.length) codes.add('insufficient_scope')
  if (config.auth === 'session') codes.add('session_required')
  if (config.role && config.role !== 'viewer') codes.add('role_required')
  // A session route for one kind of account refuses the other (members, operators).
  if (config.auth === 'session' && config.accounts !== 'any') codes.add('role_required')
  if (config.csrf) codes.add('csrf_failed')
  if (config.jsonBody) {
    codes.add('invalid_json')
    codes.add('request_too_large')
  }
  if (schema.body || schema.querystring) codes.add('validation_failed')
  // A path parameter that cannot be decoded or is too long is an id that cannot exist.
  if (schema.params || route.url.includes(':')) codes.add('not_found')
  for (const code of config.errors ?? []) codes.add(code)
  return [...codes].sort((a, b) => ERROR_CATALOG[a].status - ERROR_CATALOG[b].status || a.localeCompare(b))
}

/**
 * Gives every route a response schema for each status its errors use, so the
 * OpenAPI document lists them and they are serialized like every other answer.
 * Codes a route already lists for a status (errorResponses) are kept.
 */
export function registerRouteErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    // A copy: several routes may share one schema object.
    const given = (route.schema ?? {}) as { response?: Record<string, Record<string, unknown>> }
    const response = { ...given.response }
    const listed = Object.values(response).flatMap(
      (r) => (r[ERROR_CODES_KEY] as ErrorCode[] | undefined) ?? [],
    )
    const codes = [...new Set([...routeErrorCodes(route), ...listed])]
    route.schema = { ...given, response: { ...response, ...errorResponses(...codes) } }
  })
}
