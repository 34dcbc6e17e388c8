import type { Surfaces } from '../feature.ts'
import type { OrderService } from '../orders/orders.service.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import { organizationsAdminRoutes } from './organizations.admin.routes.ts'
import { organizationsConsoleRoutes } from './organizations.console.routes.ts'
import type { OrganizationService } from './organizations.service.ts'

export { createOrganizationService, type OrganizationService } from './organizations.service.ts'

/** Organizations: created by operators, listed in the console. */
export function organizationsSurfaces(s: {
  organizations: OrganizationService
  orders: OrderService
  webhooks: WebhookService
}): Surfaces {
  return { admin: [organizationsAdminRoutes(s)], console: [(app) => organizationsConsoleRoutes(app, s)] }
}
export {
  findRetention,
  lockRetention,
  type Retention,
  retentionOfAll,
  setPrunedThrough,
  updateRetention,
} from './personal-data.repo.ts'
