import type { RouteOptions } from 'fastify'
import { ErrorSchema } from '../http/schemas.ts'

type Json = Record<string, unknown>

/** Schemas as OpenAPI shows them: no $id, and the shared ErrorResponse by reference. */
function plain(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plain)
  if (!schema || typeof schema !== 'object') return schema
  const { $id: _id, 'x-error-codes': _codes, ...rest } = schema as Json
  if (rest.$ref === 'ErrorResponse#') return { ...rest, $ref: '#/components/schemas/ErrorResponse' }
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, plain(v)]))
}

/** ErrorResponse with `code` listing only the codes this API answers, not /v1's own. */
function ownCodes(schema: Json, codes: Set<string>): Json {
  const error = (schema.properties as { error: Json & { properties: { code: Json } } }).error
  const code = error.properties.code
  const listed = ((code.enum as string[]) ?? []).filter((c) => codes.has(c))
  return {
    ...schema,
    properties: { error: { ...error, properties: { ...error.properties, code: { ...code, enum: listed } } } },
  }
}

function parameters(schema: unknown, where: 'path' | 'query'): Json[] {
  const { properties = {}, required = [] } = (schema ?? {}) as { properties?: Json; required?: string[] }
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema: plain(s),
  }))
}

/**
 * The dashboard API's own OpenAPI document (GET /dashboard/api/openapi.json),
 * made from the routes' schemas. It is kept apart from /v1/openapi.json: the
 * dashboard API serves the dashboard, with a session cookie, and is not part
 * of the public contract.
 */
export function dashboardOpenApi(options: { cookieName: string; publicBaseUrl: string }) {
  const paths: Record<string, Record<string, Json>> = {}
  // The codes this API answers: its routes' (src/http/route-errors.ts), an unknown path's and a wrong method's.
  const codes = new Set<string>(['not_found', 'method_not_allowed'])
  return {
    /** An onRoute hook of the dashboard plugin: every route it registers. */
    collect(route: RouteOptions) {
      const schema = (route.schema ?? {}) as Json
      if (schema.hide) return
      for (const response of Object.values((schema.response ?? {}) as Record<string, Json>)) {
        for (const code of (response['x-error-codes'] as string[] | undefined) ?? []) codes.add(code)
      }
      const config = (route.config ?? {}) as { auth?: string; role?: string; csrf?: boolean }
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue
        const responses = Object.fromEntries(
          Object.entries((schema.response ?? {}) as Record<string, Json>).map(([status, s]) => [
            status,
            {
              description: String(s.description ?? (Number(status) < 300 ? 'Success.' : 'Error.')),
              // A response that is not JSON (a file) names its media types itself.
              content: s.content ? plain(s.content) : { 'application/json': { schema: plain(s) } },
            },
          ]),
        )
        const notes = [
          config.auth === 'session'
            ? `Needs a session; least role: \`${config.role}\`.`
            : 'Needs no session.',
          config.csrf ? 'Needs `Origin` of the service and `X-CSRF-Token`.' : '',
        ]
        paths[path] = {
          ...paths[path],
          [method.toLowerCase()]: {
            operationId: schema.operationId,
            summary: schema.summary,
            description: notes.filter(Boolean).join(' '),
            tags: schema.tags,
            ...(config.auth === 'session' ? { security: [{ session: [] }] } : { security: [] }),
            parameters: [
              ...parameters(schema.params, 'path'),
              ...parameters(schema.querystring, 'query'),
              ...(config.csrf
                ? [{ name: 'X-CSRF-Token', in: 'header', required: true, schema: { type: 'string' } }]
                : []),
            ],
            ...(schema.body
              ? {
                  requestBody: {
                    required: true,
                    content: { 'application/json': { schema: plain(schema.body) } },
                  },
                }
              : {}),
            responses,
          },
        }
      }
    },
    document() {
      return {
        openapi: '3.1.0',
        info: {
          title: 'Dashboard API',
          version: '1',
          description:
            'The JSON API of the dashboard at /dashboard, authenticated by its session cookie. It serves the dashboard itself and may change with it; integrations use the public API (/v1). No string, in a query parameter or a body, may hold a NUL character or a lone UTF-16 surrogate (422 validation_failed, invalid_format), but a filename, which is sanitized.',
        },
        servers: [{ url: options.publicBaseUrl }],
        components: {
          securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: options.cookieName } },
          schemas: { ErrorResponse: ownCodes(plain(ErrorSchema) as Json, codes) },
        },
        tags: [{ name: 'dashboard', description: 'Sessions, members, invitations and the audit log' }],
        paths,
      }
    },
  }
}
