import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { ENVIRONMENTS } from '../../../db/schema.ts'
import { StringEnum } from '../../../http/schemas.ts'
import type { OrganizationService } from '../../organizations/organizations.service.ts'
import type { WebhookService } from '../webhooks.service.ts'
import { WebhookEndpointList } from './endpoints.schemas.ts'

/** The operator's side: an organization's webhook endpoints. */
export function webhookEndpointsAdminRoutes(deps: {
  webhooks: WebhookService
  organizations: OrganizationService
}) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/organizations/:org_id/webhook-endpoints',
      {
        config: { auth: 'operator', errors: ['not_found'] },
        schema: {
          params: Type.Object({ org_id: Type.String() }),
          querystring: Type.Object(
            {
              environment: Type.Optional(StringEnum(ENVIRONMENTS, { description: 'live (default) or test' })),
            },
            { additionalProperties: false },
          ),
          // The public endpoint object, as /v1 answers it.
          response: { 200: WebhookEndpointList },
        },
      },
      async (request) => {
        const organization = await deps.organizations.require(request.params.org_id)
        const scope = { organizationId: organization.id, environment: request.query.environment ?? 'live' }
        return { data: await deps.webhooks.list(scope) }
      },
    )
  }
}
