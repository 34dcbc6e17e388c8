import { DASHBOARD_TAG, type DashboardArea, opActor, operatorChange } from '../../dashboard/route-config.ts'
import { ORDER_BODY_LIMIT } from '../../http/json-body.ts'
import { OrgParams } from '../organizations/organizations.console.schemas.ts'
import { ShopOrderCreated } from './orders.console.schemas.ts'
import { OrderRequest } from './orders.schemas.ts'
import type { OrderService } from './orders.service.ts'

/**
 * Shop orders entered in the operator console (always live; they produce no events).
 */
export const ordersConsoleRoutes: DashboardArea<{ orders: OrderService }> = (app, { orders }) => {
  const tags = [DASHBOARD_TAG]

  app.post(
    '/operator/organizations/:org_id/shop-orders',
    {
      config: {
        ...operatorChange(),
        errors: ['not_found', 'validation_failed', 'order_already_exists_with_different_content'],
      },
      bodyLimit: ORDER_BODY_LIMIT,
      schema: {
        operationId: 'dashboardOperatorCreateShopOrder',
        tags,
        summary: 'Create a shop order (always live; it produces no events)',
        params: OrgParams,
        body: OrderRequest,
        response: { 200: ShopOrderCreated, 201: ShopOrderCreated },
      },
    },
    async (request, reply) => {
      const result = await orders.createShopOrder(request.params.org_id, request.body, opActor(request))
      reply.code(result.created ? 201 : 200)
      return { data: { order: result.order, created: result.created, events: [] } }
    },
  )
}
