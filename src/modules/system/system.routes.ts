import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import Type from 'typebox'
import type { Database } from '../../db/database.ts'
import type { ErrorContext } from '../../http/error-handler.ts'
import { AppError, ERROR_CATALOG, type ErrorCode } from '../../http/errors.ts'
import { AUTHENTICATED_ERRORS, errorResponses } from '../../http/schemas.ts'
import { renderErrorIndex, renderErrorPage } from './error-pages.ts'

export const API_VERSION = 'v1'

const PingResponse = Type.Object({
  data: Type.Object({
    organization: Type.Object({ name: Type.String() }),
    environment: Type.String({ enum: ['test', 'live'] }),
    scopes: Type.Array(Type.String()),
    key_prefix: Type.String({ description: 'Leading part of the key.' }),
    api_version: Type.String(),
  }),
})

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
          response: { 200: PingResponse, ...errorResponses(...AUTHENTICATED_ERRORS) },
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
export function systemRoutes(deps: { db: Database; errors: ErrorContext }) {
  return async function routes(app: FastifyInstance) {
    const hidden = { hide: true }
    app.get('/healthz', { config: { auth: 'none' }, schema: hidden }, async () => ({
      data: { status: 'ok' },
    }))

    app.get('/readyz', { config: { auth: 'none' }, schema: hidden }, async () => {
      try {
        await sql`select 1`.execute(deps.db)
      } catch {
        throw new AppError('service_unavailable', { message: 'The database is not reachable.' })
      }
      return { data: { status: 'ready' } }
    })

    app.get('/developers/errors', { config: { auth: 'none' }, schema: hidden }, async (_request, reply) => {
      return reply.type('text/html; charset=utf-8').send(renderErrorIndex(deps.errors))
    })

    app.get<{ Params: { code: string } }>(
      '/developers/errors/:code',
      { config: { auth: 'none' }, schema: hidden },
      async (request, reply) => {
        const code = request.params.code
        if (!Object.hasOwn(ERROR_CATALOG, code))
          throw new AppError('not_found', { message: 'No such error code.' })
        return reply.type('text/html; charset=utf-8').send(renderErrorPage(code as ErrorCode, deps.errors))
      },
    )
  }
}
