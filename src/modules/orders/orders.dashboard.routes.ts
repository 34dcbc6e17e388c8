import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { sendCsv } from '../../http/csv-download.ts'
import type { PreflightService } from '../preflight/preflight.service.ts'
import {
  OrderCsv,
  OrderCsvQuery,
  OrderListPage,
  OrderListQuery,
  type OrderSummary,
} from './orders.dashboard.schemas.ts'
import type { OperatorOrder } from './orders.schemas.ts'
import type { OrderService } from './orders.service.ts'

const DAY_MS = 86_400_000

function summary(order: OperatorOrder, printCheck: OrderSummary['print_check']): OrderSummary {
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
    print_check: printCheck,
  }
}

/** Orders: one environment's orders, newest first, with filters and keyset paging. */
export const ordersDashboardRoutes: DashboardArea<{
  orders: OrderService
  preflight: Pick<PreflightService, 'verdicts'>
}> = (app, { orders, preflight }) => {
  app.get(
    '/orders',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrders',
        tags: [DASHBOARD_TAG],
        summary:
          'Orders of one environment, newest first, filtered by status, UTC days, a search and what automation rules did (held, rush, partner, a tag) and the print check’s verdict',
        querystring: OrderListQuery,
        response: { 200: OrderListPage },
      },
    },
    async (request) => {
      const q = request.query
      const page = await orders.listNewest(scopeOf(request, q), {
        ...filtersOf(q),
        cursor: q.cursor,
        limit: q.limit ?? 50,
      })
      const checked = await preflight.verdicts(page.data.map((o) => o.id))
      return {
        data: page.data.map((o) => summary(o, checked.get(o.id) ?? null)),
        next_cursor: page.next_cursor,
      }
    },
  )

  app.get(
    '/orders.csv',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrdersCsv',
        tags: [DASHBOARD_TAG],
        summary:
          'Every order the Orders page\u2019s filters select, as a CSV download (streamed, any number)',
        querystring: OrderCsvQuery,
        response: { 200: OrderCsv },
      },
    },
    async (request, reply) => {
      const q = request.query
      const environment = q.environment ?? 'live'
      return sendCsv(reply, `orders-${environment}.csv`, orders.csv(scopeOf(request, q), filtersOf(q)))
    },
  )
}

const scopeOf = (request: Parameters<typeof ctx>[0], q: { environment?: 'test' | 'live' | undefined }) => ({
  organizationId: ctx(request).member.organization_id,
  environment: q.environment ?? 'live',
})

/** The list's filters as the service takes them: UTC days as [from, until). */
const filtersOf = (q: OrderCsvQuery) => ({
  status: q.status,
  from: q.from ? new Date(`${q.from}T00:00:00.000Z`) : undefined,
  until: q.to ? new Date(new Date(`${q.to}T00:00:00.000Z`).getTime() + DAY_MS) : undefined,
  search: q.q,
  held: q.held,
  priority: q.priority,
  partner: q.partner,
  tag: q.tag,
  preflight: q.preflight,
})
