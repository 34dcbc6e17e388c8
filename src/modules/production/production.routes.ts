import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { PRODUCTION_STATUSES, type ProductionService, type ProductionStatus } from './production.service.ts'

const IdParams = Type.Object({ id: Type.String() })

/** /admin/v1 production operations: what the dashboard does to production. */
export function productionRoutes(deps: {
  production: ProductionService
  /** The operator order view, returned after a whole-order cancel. */
  orderView: (orderId: string) => Promise<unknown>
}) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const op = { auth: 'operator' as const }

    app.post(
      '/production-orders/:id/status',
      {
        config: { ...op, jsonBody: true },
        schema: {
          params: IdParams,
          body: Type.Object(
            { status: Type.String({ enum: [...PRODUCTION_STATUSES] }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => ({
        data: {
          production_order: await deps.production.setStatus(
            request.params.id,
            request.body.status as ProductionStatus,
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
          ),
        },
      }),
    )

    app.post(
      '/production-jobs/:id/complete',
      { config: op, schema: { params: IdParams } },
      async (request) => ({
        data: { production_job: await deps.production.completeJob(request.params.id) },
      }),
    )

    app.post(
      '/orders/:order_id/cancel',
      { config: op, schema: { params: Type.Object({ order_id: Type.String() }) } },
      async (request) => {
        await deps.production.cancelOrder(request.params.order_id)
        return { data: { order: await deps.orderView(request.params.order_id) } }
      },
    )
  }
}
