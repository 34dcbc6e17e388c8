import type { SwaggerOptions } from '@fastify/swagger'
import Type, { type TSchema } from 'typebox'
import type { ErrorContext } from './error-handler.ts'
import { ERROR_CODES, type ErrorCode } from './errors.ts'
import { DEFAULT_BODY_LIMIT } from './json-body.ts'
import { finishDocument, type OpenApiDocument, type WebhooksSection } from './openapi-document.ts'
import { SCOPE_LINES } from './principal.ts'
import { ERROR_CODES_KEY } from './schemas.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What the document shows of a request its schemas do not validate (the
     * signed upload PUT reads its query and raw body itself).
     */
    openapi?: {
      querystring?: TSchema
      body?: TSchema
      consumes?: string[]
      /** Responses the document shows instead of the route's (a stream the serializer never sees). */
      response?: Record<number, unknown>
    }
  }
}

/** GET /v1/openapi.json, described by itself. */
export const OPENAPI_ROUTE_SCHEMA = {
  operationId: 'getOpenApiDocument',
  tags: ['system'],
  summary: 'This document: the whole contract of the API, webhooks included',
  description: 'OpenAPI 3.1, generated from the schemas that validate requests. Needs no key.',
  response: {
    200: Type.Object({}, { additionalProperties: true, description: 'The OpenAPI document.' }),
  },
}

const bytesInWords = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`

function responseCodes(response: unknown): Record<string, ErrorCode[]> {
  const entries = Object.entries((response ?? {}) as Record<string, Record<string, unknown>>)
  return Object.fromEntries(
    entries.flatMap(([status, r]) =>
      r[ERROR_CODES_KEY] ? [[status, r[ERROR_CODES_KEY] as ErrorCode[]]] : [],
    ),
  )
}

function errorTable({ publicBaseUrl, texts }: ErrorContext): string {
  const rows = ERROR_CODES.map((code) => {
    const e = texts[code]
    const status = e.kind === 'error' ? String(e.status) : '422 (inside errors[])'
    return `| [\`${code}\`](${publicBaseUrl}/developers/errors/${code}) | ${status} | ${e.message} |`
  })
  return ['| Code | HTTP | Meaning |', '|---|---|---|', ...rows].join('\n')
}

const INTRODUCTION = [
  'Orders in, production status out. Every request needs `Authorization: Bearer <API_KEY>` (keys `svc_test_...` or `svc_live_...`) except this document, the error pages and the signed upload PUT.',
  'Success bodies wrap results in `data`; failures carry a single `error` object (schema `ErrorResponse`) whose `code` is stable. Ids are UUIDs (version 7, time-ordered); timestamps are ISO 8601 UTC with milliseconds. No string, in a query parameter or a body, may hold a NUL character or a lone UTF-16 surrogate (`invalid_format`), but a filename, which is sanitized.',
  'Every response carries `X-Request-Id` (yours, if you sent one). Every response to a valid key, except 401, carries the `X-RateLimit-*` headers; a 429 adds `Retry-After`.',
  'Changes are pushed as signed webhooks: the `webhooks` section describes each event type, its body and its headers.',
]

/** The key and what each scope permits; each operation names the scope it needs. */
const KEY_DESCRIPTION = [
  'An API key: `svc_test_...` reads and writes the test environment, `svc_live_...` the live one. Its scopes (none implies another):',
  ...SCOPE_LINES.map((line) => `- ${line}`),
].join('\n')

/**
 * The OpenAPI 3.1 document served at /v1/openapi.json, generated from the same
 * TypeBox schemas that validate requests. Operator routes are left out: they
 * are not part of the public API.
 */
export function openApiOptions(
  context: ErrorContext & { rateLimitPerMinute: number; webhooks: WebhooksSection },
): SwaggerOptions {
  const { publicBaseUrl } = context
  // The error codes of each operation's responses, by operationId and status.
  const errorCodes = new Map<string, Record<string, ErrorCode[]>>()
  // Operations whose body may be left out (@fastify/swagger marks every body required).
  const optionalBodies = new Set<string>()
  // The body limit of each operation, for its 413 answer.
  const bodyLimits = new Map<string, number>()
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Order Intake and Production Status API',
        version: 'v1',
        description: [...INTRODUCTION, '', '## Error codes', errorTable(context)].join('\n\n'),
        contact: { name: 'The service operator; the API reference and guides are at /docs on this service' },
        license: { name: 'Proprietary: use under the service operator\u2019s terms' },
      },
      // A variable, so that a tool can point a generated client at any installation.
      servers: [
        {
          url: '{base_url}',
          description: 'The service (its PUBLIC_BASE_URL); paths carry the /v1 prefix.',
          variables: { base_url: { default: publicBaseUrl, description: 'The service\u2019s address.' } },
        },
      ],
      // Every operation needs a key unless it says `security: []`.
      security: [{ apiKey: [] }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: KEY_DESCRIPTION },
        },
      },
      tags: [
        { name: 'system', description: 'Key check and this document' },
        { name: 'orders', description: 'Order intake and polling' },
        { name: 'uploads', description: 'Files for order items: a signed slot, then a PUT of the bytes' },
        { name: 'webhooks', description: 'Endpoints that receive events, and the log of deliveries' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const config = route.config ?? {}
      // The dashboard's API serves the dashboard only: not part of the public contract.
      if (
        url.startsWith('/admin/') ||
        url.startsWith('/dashboard') ||
        config.auth === 'operator' ||
        config.auth === 'session'
      ) {
        return { schema: { ...schema, hide: true }, url }
      }
      const documented = {
        ...schema,
        ...config.openapi,
        response: { ...(schema?.response as object), ...config.openapi?.response },
      } as Record<string, unknown>
      errorCodes.set(String(documented.operationId), responseCodes(documented.response))
      if (config.jsonBody === 'optional') optionalBodies.add(String(documented.operationId))
      bodyLimits.set(String(documented.operationId), route.bodyLimit ?? DEFAULT_BODY_LIMIT)
      if (config.auth === 'none') return { schema: { ...documented, security: [] }, url }
      const scopes = config.scopes ?? []
      documented.security = [{ apiKey: [] }]
      documented.description = [
        schema?.description,
        `Scope: ${scopes.length ? scopes.map((s) => `\`${s}\``).join(', ') : 'none'}.`,
      ]
        .filter(Boolean)
        .join('\n\n')
      return { schema: documented, url }
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: OpenApiDocument }).openapiObject
      for (const op of Object.values(doc.paths).flatMap((methods) => Object.values(methods))) {
        if (op.requestBody && optionalBodies.has(op.operationId ?? '')) op.requestBody.required = false
      }
      const finished = finishDocument(doc, context, errorCodes, context.webhooks, context.rateLimitPerMinute)
      for (const op of Object.values(finished.paths).flatMap((methods) => Object.values(methods))) {
        const tooLarge = op.responses['413']
        const limit = bodyLimits.get(op.operationId ?? '')
        if (
          tooLarge &&
          limit &&
          errorCodes.get(op.operationId ?? '')?.['413']?.includes('request_too_large')
        ) {
          tooLarge.description += `\n\nThis operation takes a body of at most ${limit} bytes (${bytesInWords(limit)}).`
        }
      }
      return finished
    },
  }
}
