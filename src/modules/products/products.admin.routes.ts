import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { closed, OrgParams, op, opCreate } from '../../http/admin-route-config.ts'
import { Nullable, Text } from '../../http/schemas.ts'
import { OPERATOR_TOKEN_ACTOR } from '../audit/audit.service.ts'
import { PrintSpecsInput } from './print-spec.ts'
import { LeadTimeBody } from './products.dashboard.schemas.ts'
import type { ProductService } from './products.service.ts'

/** /admin/v1 products: an organization's catalog. */
export function productsAdminRoutes(deps: { products: ProductService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()

    app.post(
      '/organizations/:org_id/products',
      {
        config: opCreate,
        schema: {
          params: OrgParams,
          body: Type.Object(
            { sku: Text({ minLength: 1, maxLength: 255 }), name: Text({ minLength: 1, maxLength: 255 }) },
            closed,
          ),
        },
      },
      async (request, reply) => {
        const { product } = await deps.products.create(
          request.params.org_id,
          request.body,
          OPERATOR_TOKEN_ACTOR,
        )
        reply.code(201)
        return { data: { product } }
      },
    )

    app.put(
      '/products/:product_id/print-spec',
      {
        config: { auth: 'operator' as const, jsonBody: true },
        schema: {
          params: Type.Object({ product_id: Type.String() }),
          body: Type.Object({ print_spec: Nullable(PrintSpecsInput) }, closed),
        },
      },
      async (request) => ({
        data: {
          product: await deps.products.setPrintSpecs(
            'any',
            request.params.product_id,
            request.body.print_spec,
            OPERATOR_TOKEN_ACTOR,
          ),
        },
      }),
    )

    app.put(
      '/products/:product_id/lead-time',
      {
        config: { auth: 'operator' as const, jsonBody: true },
        schema: { params: Type.Object({ product_id: Type.String() }), body: LeadTimeBody },
      },
      async (request) => {
        const saved = await deps.products.setLeadTime(
          'any',
          request.params.product_id,
          request.body.lead_time_days,
          OPERATOR_TOKEN_ACTOR,
        )
        return { data: { product: saved.product, redated_orders: saved.redatedOrders } }
      },
    )

    app.get(
      '/organizations/:org_id/products',
      { config: op, schema: { params: OrgParams } },
      async (request) => ({ data: await deps.products.list(request.params.org_id) }),
    )
  }
}
