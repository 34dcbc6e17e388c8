import type { Surfaces } from '../feature.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import { productionAdminRoutes } from './production.admin.routes.ts'
import { productionConsoleRoutes } from './production.console.routes.ts'
import type { ProductionService } from './production.service.ts'

export { createProductionService, type ProductionService } from './production.service.ts'

/** Production: its orders' status, partners, jobs, the board and the whole-order cancel. */
export function productionSurfaces(s: { production: ProductionService; webhooks: WebhookService }): Surfaces {
  return { admin: [productionAdminRoutes(s)], console: [(app) => productionConsoleRoutes(app, s)] }
}
