import type { Surfaces } from '../feature.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import { webhookDeliveriesAdminRoutes } from './deliveries/deliveries.admin.routes.ts'
import { webhookDeliveriesConsoleRoutes } from './deliveries/deliveries.console.routes.ts'
import { webhookDeliveriesDashboardRoutes } from './deliveries/deliveries.dashboard.routes.ts'
import { webhookDeliveriesRoutes } from './deliveries/deliveries.routes.ts'
import { webhookEndpointsAdminRoutes } from './endpoints/endpoints.admin.routes.ts'
import { webhookEndpointsConsoleRoutes } from './endpoints/endpoints.console.routes.ts'
import { webhookEndpointsDashboardRoutes } from './endpoints/endpoints.dashboard.routes.ts'
import { webhookEndpointsRoutes } from './endpoints/endpoints.routes.ts'
import { listenRoutes } from './listen/listen.routes.ts'
import type { ListenService } from './listen/listen.service.ts'
import type { WebhookService } from './webhooks.service.ts'

export { webhookQueueStats } from './deliveries/queue-stats.repo.ts'
export { createListenService, type ListenService } from './listen/listen.service.ts'
export { webhooksSection } from './webhooks.openapi.ts'
export { createWebhookService, type WebhookService } from './webhooks.service.ts'
export { systemResolver } from './worker/ssrf.ts'

/**
 * Webhooks: endpoints/ (their settings and health), deliveries/ (the log,
 * redeliveries and replays), worker/ (claiming, sending and signing),
 * outbox/ (events and the queue), listen/ (event streams).
 */
export function webhooksSurfaces(s: {
  webhooks: WebhookService
  listen: ListenService
  organizations: OrganizationService
}): Surfaces {
  return {
    api: [webhookEndpointsRoutes(s), webhookDeliveriesRoutes(s), listenRoutes(s)],
    admin: [webhookEndpointsAdminRoutes(s), webhookDeliveriesAdminRoutes(s)],
    dashboard: [
      (app) => webhookEndpointsDashboardRoutes(app, s),
      (app) => webhookDeliveriesDashboardRoutes(app, s),
    ],
    console: [
      (app) => webhookEndpointsConsoleRoutes(app, s),
      (app) => webhookDeliveriesConsoleRoutes(app, s),
    ],
  }
}
export {
  answersOf,
  countAnswersOfOrders,
  countEventsOf,
  dropAnswersOfOrders,
  eventsOf,
  pruneAnswers,
} from './outbox/personal-data.repo.ts'
