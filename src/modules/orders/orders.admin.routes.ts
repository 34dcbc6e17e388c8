import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { ENVIRONMENTS } from '../../db/schema.ts'
import { closed, OrgParams, op, opCreate } from '../../http/admin-route-config.ts'
import { sendFileDownload } from '../../http/file-download.ts'
import { ORDER_BODY_LIMIT } from '../../http/json-body.ts'
import { StringEnum } from '../../http/schemas.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import { OrderRequest } from './orders.schemas.ts'
import type { OrderService } from './orders.service.ts'

/** /admin/v1 orders: an organization's orders, one order and its files, shop orders, statistics. */
export function ordersAdminRoutes(deps: { orders: OrderService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.get(
      '/organizations/:org_id/orders',
      {
        config: op,
        schema: {
          params: OrgParams,
          querystring: Type.Object(
            {
              environment: Type.Optional(StringEnum(ENVIRONMENTS)),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
              cursor: Type.Optional(Type.String({ maxLength: 512 })),
            },
            closed,
          ),
        },
      },
      async (request) => {
        const q = request.query
        return deps.orders.listForOrganization({
          organizationId: request.params.org_id,
          environment: q.environment,
          limit: q.limit ?? 50,
          cursor: q.cursor,
        })
      },
    )

    app.get(
      '/orders/:order_id',
      { config: op, schema: { params: Type.Object({ order_id: Type.String() }) } },
      async (request) => ({ data: { order: await deps.orders.getOperatorView(request.params.order_id) } }),
    )

    app.get(
      '/orders/:order_id/files/:upload_id',
      { config: op, schema: { params: Type.Object({ order_id: Type.String(), upload_id: Type.String() }) } },
      async (request, reply) => {
        const file = await deps.orders.openFile(request.params.order_id, request.params.upload_id)
        return sendFileDownload(reply, file)
      },
    )

    app.post(
      '/organizations/:org_id/shop-orders',
      { config: opCreate, bodyLimit: ORDER_BODY_LIMIT, schema: { params: OrgParams, body: OrderRequest } },
      async (request, reply) => {
        const result = await deps.orders.createShopOrder(
          request.params.org_id,
          request.body,
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(result.created ? 201 : 200)
        return { data: { order: result.order, warnings: result.warnings } }
      },
    )

    app.get(
      '/organizations/:org_id/stats',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.orders.stats(request.params.org_id) }),
    )
  }
}
