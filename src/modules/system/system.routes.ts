import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { ErrorContext } from '../../http/error-handler.ts'
import { PingResponse } from './system.schemas.ts'
import type { SystemService } from './system.service.ts'

export const API_VERSION = 'v1'

/** GET /v1/ping: needs a valid key, no scope. */
export function pingRoutes() {
  return async function routes(fastify: FastifyInstance) {
    fastify.withTypeProvider<TypeBoxTypeProvider>().get(
      '/ping',
      {
        config: { auth: 'key', scopes: [] },
        schema: {
          operationId: 'ping',
          tags: ['system'],
          summary: 'Check a key: its organization, environment and scopes',
          response: { 200: PingResponse },
        },
      },
      async (request) => {
        const p = request.principal!
        return {
          data: {
            organization: { name: p.organizationName },
            environment: p.environment,
            scopes: p.scopes,
            key_prefix: p.keyPrefix,
            api_version: API_VERSION,
          },
        }
      },
    )
  }
}

/** Open routes: health, readiness and the error reference pages. */
export function systemRoutes(deps: { system: SystemService; errors: ErrorContext }) {
  return async function routes(app: FastifyInstance) {
    const hidden = { hide: true }
    app.get('/healthz', { config: { auth: 'none' }, schema: hidden }, async () => ({
      data: { status: 'ok' },
    }))

    app.get('/readyz', { config: { auth: 'none' }, schema: hidden }, async () => {
      await deps.system.ready()
      return { data: { status: 'ready' } }
    })

    app.get('/developers/errors', { config: { auth: 'none' }, schema: hidden }, async (_request, reply) => {
      return reply.type('text/html; charset=utf-8').send(deps.system.errorIndex(deps.errors))
    })

    app.get<{ Params: { code: string } }>(
      '/developers/errors/:code',
      { config: { auth: 'none' }, schema: hidden },
      async (request, reply) => {
        return reply
          .type('text/html; charset=utf-8')
          .send(deps.system.errorPage(request.params.code, deps.errors))
      },
    )
  }
}
