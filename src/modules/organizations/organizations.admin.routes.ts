import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { closed, op, opCreate } from '../../http/admin-route-config.ts'
import { Text } from '../../http/schemas.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import type { OrganizationService } from './organizations.service.ts'

/** /admin/v1 organizations: create and list. */
export function organizationsAdminRoutes(deps: { organizations: OrganizationService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/organizations',
      {
        config: opCreate,
        schema: { body: Type.Object({ name: Text({ minLength: 1, maxLength: 255 }) }, closed) },
      },
      async (request, reply) => {
        reply.code(201)
        return {
          data: { organization: await deps.organizations.create(request.body.name, OPERATOR_TOKEN_ACTOR) },
        }
      },
    )

    app.get('/organizations', { config: op }, async () => ({ data: await deps.organizations.list() }))
  }
}
