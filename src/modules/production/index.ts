import type { Surfaces } from '../feature.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import { productionBatchConsoleRoutes } from './batches/batches.console.routes.ts'
import { productionBoardConsoleRoutes } from './board/board.console.routes.ts'
import { productionCalendarConsoleRoutes } from './calendar/calendar.console.routes.ts'
import { productionAdminRoutes } from './production.admin.routes.ts'
import { productionConsoleRoutes } from './production.console.routes.ts'
import { productionDashboardRoutes } from './production.dashboard.routes.ts'
import type { ProductionService } from './production.service.ts'
import { productionStationConsoleRoutes } from './stations/stations.console.routes.ts'

export { createProductionService, type ProductionService } from './production.service.ts'

/**
 * Production: its orders' status, partners, jobs and the board; the whole-order
 * cancel and the release of a held order, for members (on the order page) and
 * operators.
 */
export function productionSurfaces(s: { production: ProductionService; webhooks: WebhookService }): Surfaces {
  return {
    admin: [productionAdminRoutes(s)],
    dashboard: [(app) => productionDashboardRoutes(app, s)],
    console: [
      (app) => productionBoardConsoleRoutes(app, s),
      (app) => productionConsoleRoutes(app, s),
      (app) => productionCalendarConsoleRoutes(app, s),
      (app) => productionBatchConsoleRoutes(app, s),
      (app) => productionStationConsoleRoutes(app, s),
    ],
  }
}
