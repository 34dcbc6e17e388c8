import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { StringEnum } from '../../http/schemas.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import { IdParams } from './production.admin.schemas.ts'
import { PRODUCTION_STATUSES, type ProductionService } from './production.service.ts'

/** /admin/v1 production operations: what the dashboard does to production. */
export function productionAdminRoutes(deps: { production: ProductionService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const op = { auth: 'operator' as const }

    app.get('/production-orders/:id', { config: op, schema: { params: IdParams } }, async (request) => ({
      data: await deps.production.productionOrder(request.params.id),
    }))

    app.post(
      '/production-orders/:id/status',
      {
        config: { ...op, jsonBody: true },
        schema: {
          params: IdParams,
          body: Type.Object(
            {
              status: StringEnum(PRODUCTION_STATUSES),
              expected_status: Type.Optional(
                StringEnum(PRODUCTION_STATUSES, {
                  description:
                    'The status the caller believes the production order has; another one is 409 production_conflict.',
                }),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => ({
        data: {
          production_order: await deps.production.setStatus(
            request.params.id,
            request.body.status,
            OPERATOR_TOKEN_ACTOR,
            { expectedStatus: request.body.expected_status },
          ),
        },
      }),
    )

    app.post(
      '/production-orders/:id/partner',
      {
        config: { ...op, jsonBody: true },
        schema: {
          params: IdParams,
          body: Type.Object({ produced_by_partner: Type.Boolean() }, { additionalProperties: false }),
        },
      },
      async (request) => ({
        data: {
          production_order: await deps.production.setPartner(
            request.params.id,
            request.body.produced_by_partner,
            OPERATOR_TOKEN_ACTOR,
          ),
        },
      }),
    )

    app.post(
      '/production-jobs/:id/complete',
      { config: op, schema: { params: IdParams } },
      async (request) => ({
        data: { production_job: await deps.production.completeJob(request.params.id, OPERATOR_TOKEN_ACTOR) },
      }),
    )

    app.post(
      '/orders/:order_id/cancel',
      { config: op, schema: { params: Type.Object({ order_id: Type.String() }) } },
      async (request) => ({
        data: { order: await deps.production.cancelOrder(request.params.order_id, OPERATOR_TOKEN_ACTOR) },
      }),
    )
  }
}
