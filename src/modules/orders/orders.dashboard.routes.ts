import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { OrderListPage, OrderListQuery, type OrderSummary } from './orders.dashboard.schemas.ts'
import type { OperatorOrder } from './orders.schemas.ts'
import type { OrderService } from './orders.service.ts'

const DAY_MS = 86_400_000

function summary(order: OperatorOrder): OrderSummary {
  return {
    id: order.id,
    external_order_id: order.external_order_id,
    status: order.status,
    is_test: order.is_test,
    customer_name: order.customer.name,
    customer_email: order.customer.email,
    items: order.items.length,
    quantity: order.items.reduce((sum, item) => sum + item.quantity, 0),
    currency: order.currency,
    total_amount: order.total_amount,
    ordered_at: order.ordered_at,
    created_at: order.created_at,
    held: order.held,
    priority: order.priority,
    produced_by_partner: order.production_order?.produced_by_partner ?? false,
    tags: order.tags,
  }
}

/** Orders: one environment's orders, newest first, with filters and keyset paging. */
export const ordersDashboardRoutes: DashboardArea<{ orders: OrderService }> = (app, { orders }) => {
  app.get(
    '/orders',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrders',
        tags: [DASHBOARD_TAG],
        summary:
          'Orders of one environment, newest first, filtered by status, UTC days, a search and what automation rules did (held, rush, partner, a tag)',
        querystring: OrderListQuery,
        response: { 200: OrderListPage },
      },
    },
    async (request) => {
      const q = request.query
      const page = await orders.listNewest(
        { organizationId: ctx(request).member.organization_id, environment: q.environment ?? 'live' },
        {
          status: q.status,
          from: q.from ? new Date(`${q.from}T00:00:00.000Z`) : undefined,
          until: q.to ? new Date(new Date(`${q.to}T00:00:00.000Z`).getTime() + DAY_MS) : undefined,
          search: q.q,
          held: q.held,
          priority: q.priority,
          partner: q.partner,
          tag: q.tag,
          cursor: q.cursor,
          limit: q.limit ?? 50,
        },
      )
      return { data: page.data.map(summary), next_cursor: page.next_cursor }
    },
  )
}
