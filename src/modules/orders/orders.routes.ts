import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { ORDER_BODY_LIMIT } from '../../http/json-body.ts'
import { restorePlusInOffsets } from '../../http/query-timestamps.ts'
import {
  CreateOrderResponse,
  ListOrdersQuery,
  ListOrdersResponse,
  OrderRequest,
  OrderResponse,
} from './orders.schemas.ts'
import type { OrderService } from './orders.service.ts'

export function ordersRoutes(deps: { orders: OrderService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/orders',
      {
        config: {
          auth: 'key',
          scopes: ['orders:write'],
          keyConfirmedBy: 'statement',
          jsonBody: true,
          creates: true,
          errors: ['order_already_exists_with_different_content'],
        },
        bodyLimit: ORDER_BODY_LIMIT,
        schema: {
          operationId: 'createOrder',
          tags: ['orders'],
          summary: 'Create an order (idempotent on external_order_id and content)',
          description:
            'All-or-nothing. An identical repeat returns the existing order with 200 and no warnings; the same external_order_id with different content is 409. Treat 200 and 201 alike.',
          body: OrderRequest,
          response: {
            201: { ...CreateOrderResponse, description: 'New order created.' },
            200: {
              ...CreateOrderResponse,
              description: 'Identical repeat: the existing order, warnings [].',
            },
          },
        },
      },
      async (request, reply) => {
        const result = await deps.orders.create(request.principal!, request.body)
        reply.code(result.created ? 201 : 200)
        request.orderForLog = result.order.id
        return { data: { order: result.order, warnings: result.warnings } }
      },
    )

    app.get(
      '/orders',
      {
        config: { auth: 'key', scopes: ['orders:read'] },
        preValidation: restorePlusInOffsets('updated_since'),
        schema: {
          operationId: 'listOrders',
          tags: ['orders'],
          summary: 'List orders for polling, oldest change first',
          description:
            'Sorted by (updated_at, id) ascending. Follow next_cursor until it is null; keep the last updated_at and poll again later with a slightly overlapping updated_since. A page ends early, with a next_cursor, once its orders pass 8 MB of items (a page always holds at least one order): a page shorter than limit is not the last one; a null next_cursor is.',
          querystring: ListOrdersQuery,
          response: {
            200: ListOrdersResponse,
          },
        },
      },
      // The database writes the answer in the schema's bytes: a JSON text, which
      // Fastify sends as it is instead of serializing (the type says the schema's object).
      async (request, reply) => {
        const body = await deps.orders.list(request.principal!, request.query)
        return reply.type('application/json; charset=utf-8').send(body as never)
      },
    )

    app.get(
      '/orders/:id',
      {
        config: { auth: 'key', scopes: ['orders:read'] },
        schema: {
          operationId: 'getOrder',
          tags: ['orders'],
          summary: 'Get one order',
          description: 'An id of another organization or environment is 404, as an unknown one.',
          params: Type.Object({ id: Type.String({ description: 'The order\u2019s id.' }) }),
          response: { 200: OrderResponse },
        },
      },
      async (request) => {
        return { data: { order: await deps.orders.get(request.principal!, request.params.id) } }
      },
    )
  }
}
