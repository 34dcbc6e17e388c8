import type { SwaggerOptions } from '@fastify/swagger'
import type { ErrorContext } from './error-handler.ts'
import { ERROR_CODES } from './errors.ts'
import { rateLimitHeaderDocs } from './schemas.ts'

function errorTable({ publicBaseUrl, texts }: ErrorContext): string {
  const rows = ERROR_CODES.map((code) => {
    const e = texts[code]
    const status = e.kind === 'error' ? String(e.status) : '422 (inside errors[])'
    return `| [\`${code}\`](${publicBaseUrl}/developers/errors/${code}) | ${status} | ${e.message} |`
  })
  return ['| Code | HTTP | Meaning |', '|---|---|---|', ...rows].join('\n')
}

/**
 * The OpenAPI 3.1 document served at /v1/openapi.json, generated from the same
 * TypeBox schemas that validate requests. Operator routes are left out: they
 * are not part of the public API.
 */
export function openApiOptions(context: ErrorContext & { rateLimitPerMinute: number }): SwaggerOptions {
  const { publicBaseUrl } = context
  const rateLimitHeaders = rateLimitHeaderDocs(context.rateLimitPerMinute)
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Order Intake and Production Status API',
        version: 'v1',
        description: [
          'Orders in, production status out. Every request needs `Authorization: Bearer <API_KEY>` (keys `svc_test_...` or `svc_live_...`).',
          'Success bodies wrap results in `data`; failures carry a single `error` object. Every response to a valid key carries the X-RateLimit headers.',
          '',
          '## Error codes',
          errorTable(context),
        ].join('\n'),
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'svc_test_... or svc_live_... API key' },
        },
      },
      tags: [
        { name: 'system', description: 'Key check' },
        { name: 'orders', description: 'Order intake and polling' },
      ],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const config = (route.config ?? {}) as { auth?: string; scopes?: string[] }
      if (url.startsWith('/admin/') || config.auth === 'operator') {
        return { schema: { ...schema, hide: true }, url }
      }
      if (config.auth === 'none') return { schema, url }
      const transformed: Record<string, unknown> = { ...schema, security: [{ apiKey: [] }] }
      const scopes = config.scopes ?? []
      transformed.description = [
        schema?.description,
        `Scope: ${scopes.length ? scopes.map((s) => `\`${s}\``).join(', ') : 'none'}.`,
      ]
        .filter(Boolean)
        .join('\n\n')
      return { schema: transformed, url }
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Record<string, unknown> }).openapiObject
      // Rate-limit headers on every response of every authenticated operation
      // except 401, which never carries them.
      const paths = (doc.paths ?? {}) as Record<
        string,
        Record<string, { security?: unknown; responses?: Record<string, Record<string, unknown>> }>
      >
      for (const methods of Object.values(paths)) {
        for (const op of Object.values(methods)) {
          if (!op.security || !op.responses) continue
          for (const [status, response] of Object.entries(op.responses)) {
            if (status !== '401') response.headers = { ...(response.headers as object), ...rateLimitHeaders }
            if (status === '429') {
              ;(response.headers as Record<string, unknown>)['Retry-After'] = {
                schema: { type: 'integer' },
                description: 'Seconds until the window ends.',
              }
            }
          }
        }
      }
      return doc
    },
  }
}
