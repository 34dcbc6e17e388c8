import { change, ctx, DASHBOARD_TAG, type DashboardArea, meta, viewer } from '../../dashboard/route-config.ts'
import type { AuditActor } from '../audit/audit.service.ts'
import {
  LeadTimeBody,
  LeadTimeSaved,
  PrintSpecBody,
  ProductAnswer,
  ProductBody,
  ProductCreated,
  ProductList,
  ProductParams,
  UnmatchedSkuList,
} from './products.dashboard.schemas.ts'
import type { ProductService } from './products.service.ts'

const tags = [DASHBOARD_TAG]

/**
 * Products: the catalog, adding a product (it links the existing items with
 * its sku at once, and later ones as they arrive), and the skus seen in
 * orders that no product matches. The same service as /admin/v1.
 */
export const productsDashboardRoutes: DashboardArea<{ products: ProductService }> = (app, { products }) => {
  app.get(
    '/products',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardListProducts',
        tags,
        summary: "The organization's products, by sku",
        response: { 200: ProductList },
      },
    },
    async (request) => ({ data: await products.list(ctx(request).member.organization_id) }),
  )

  app.post(
    '/products',
    {
      config: { ...change('developer'), errors: ['product_already_exists'] },
      schema: {
        operationId: 'dashboardCreateProduct',
        tags,
        summary: 'Add a product; it links the existing items with its sku and says how many',
        body: ProductBody,
        response: { 201: ProductCreated },
      },
    },
    async (request, reply) => {
      const { member } = ctx(request)
      const actor: AuditActor = {
        accountId: member.account_id,
        label: member.email,
        address: meta(request).address,
      }
      const created = await products.create(member.organization_id, request.body, actor)
      reply.code(201)
      return { data: { product: created.product, linked_items: created.linkedItems } }
    },
  )

  app.put(
    '/products/:product_id/print-spec',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardSetPrintSpec',
        tags,
        summary: "Set a product's print specifications (null removes them)",
        params: ProductParams,
        body: PrintSpecBody,
        response: { 200: ProductAnswer },
      },
    },
    async (request) => {
      const { member } = ctx(request)
      const actor: AuditActor = {
        accountId: member.account_id,
        label: member.email,
        address: meta(request).address,
      }
      const product = await products.setPrintSpecs(
        { organizationId: member.organization_id },
        request.params.product_id,
        request.body.print_spec,
        actor,
      )
      return { data: { product } }
    },
  )

  app.put(
    '/products/:product_id/lead-time',
    {
      config: change('developer'),
      schema: {
        operationId: 'dashboardSetLeadTime',
        tags,
        summary:
          "Set a product's lead time in working days (null: the platform's default); its open orders are dated again",
        params: ProductParams,
        body: LeadTimeBody,
        response: { 200: LeadTimeSaved },
      },
    },
    async (request) => {
      const { member } = ctx(request)
      const saved = await products.setLeadTime(
        { organizationId: member.organization_id },
        request.params.product_id,
        request.body.lead_time_days,
        { accountId: member.account_id, label: member.email, address: meta(request).address },
      )
      return { data: { product: saved.product, redated_orders: saved.redatedOrders } }
    },
  )

  app.get(
    '/products/unmatched-skus',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardUnmatchedSkus',
        tags,
        summary: 'Skus of order items that no product matches, with counts, most recently seen first',
        response: { 200: UnmatchedSkuList },
      },
    },
    async (request) => ({ data: await products.unmatchedSkus(ctx(request).member.organization_id) }),
  )
}
