import type { AuditService } from '../audit/audit.service.ts'
import type { Surfaces } from '../feature.ts'
import type { PreflightService } from '../preflight/preflight.service.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import type { OrderEditService } from './changes/changes.service.ts'
import { ordersAdminRoutes } from './orders.admin.routes.ts'
import { ordersDashboardRoutes } from './orders.dashboard.routes.ts'
import { ordersRoutes } from './orders.routes.ts'
import type { OrderService } from './orders.service.ts'
import { ordersConsoleRoutes } from './pages/pages.console.routes.ts'
import { orderDashboardRoutes } from './pages/pages.dashboard.routes.ts'
import { homeDashboardRoutes } from './statistics/statistics.dashboard.routes.ts'

export { createOrderEditService, type OrderEditService } from './changes/changes.service.ts'
export { orderAggregates } from './order-aggregates.ts'
export { toOperatorOrder } from './orders.mappers.ts'
export { Order } from './orders.schemas.ts'
export { createOrderService, type OrderService } from './orders.service.ts'

/**
 * Orders: taken and listed (here), intake/ (POST /v1/orders), changes/ (edits
 * after intake), pages/ (the member's and the operator's order page),
 * statistics/ (Home's figures).
 */
export function ordersSurfaces(s: {
  orders: OrderService
  orderEdits: OrderEditService
  audit: AuditService
  webhooks: WebhookService
  preflight: Pick<PreflightService, 'verdicts'>
}): Surfaces {
  return {
    api: [ordersRoutes(s)],
    admin: [ordersAdminRoutes(s)],
    dashboard: [
      (app) => homeDashboardRoutes(app, s),
      (app) => ordersDashboardRoutes(app, s),
      (app) => orderDashboardRoutes(app, s),
    ],
    console: [(app) => ordersConsoleRoutes(app, s)],
  }
}
export { eraseOrderCustomers, lockOrdersToErase, setItemPersonalization } from './personal-data.repo.ts'
