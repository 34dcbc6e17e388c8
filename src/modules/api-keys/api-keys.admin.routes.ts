import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { closed, OrgParams, op, opCreate } from '../../http/admin-route-config.ts'
import { SCOPE_LINES, SCOPES } from '../../http/principal.ts'
import { StringEnum, Text, Timestamp } from '../../http/schemas.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import type { ApiKeyService } from './api-keys.service.ts'

/** /admin/v1 API keys: create, list and revoke an organization's keys. */
export function apiKeysAdminRoutes(deps: { apiKeys: ApiKeyService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/organizations/:org_id/api-keys',
      {
        config: opCreate,
        schema: {
          params: OrgParams,
          body: Type.Object(
            {
              environment: StringEnum(ENVIRONMENTS),
              scopes: Type.Array(StringEnum(SCOPES, { description: SCOPE_LINES.join(' ') }), {
                maxItems: SCOPES.length * 2,
              }),
              name: Type.Optional(Type.Union([Text({ maxLength: 255 }), Type.Null()])),
              expires_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
            },
            closed,
          ),
        },
      },
      async (request, reply) => {
        const { environment, scopes, name, expires_at } = request.body
        const created = await deps.apiKeys.create(
          {
            organizationId: request.params.org_id,
            environment,
            scopes,
            name,
            expiresAt: expires_at ? new Date(expires_at) : null,
          },
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(201)
        return { data: { api_key: created.apiKey, key: created.key } }
      },
    )

    app.get(
      '/organizations/:org_id/api-keys',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.apiKeys.list(request.params.org_id) }),
    )

    app.delete(
      '/api-keys/:key_id',
      { config: op, schema: { params: Type.Object({ key_id: Type.String() }) } },
      async (request) => {
        const key = await deps.apiKeys.revoke(request.params.key_id, { actor: OPERATOR_TOKEN_ACTOR })
        return { data: { id: key.id, revoked_at: key.revoked_at } }
      },
    )
  }
}
