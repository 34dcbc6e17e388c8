import type { Surfaces } from '../feature.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import { webhooksAdminRoutes } from './deliveries/deliveries.admin.routes.ts'
import { webhooksConsoleRoutes } from './deliveries/deliveries.console.routes.ts'
import { webhookDeliveriesDashboardRoutes } from './deliveries/deliveries.dashboard.routes.ts'
import { webhooksDashboardRoutes } from './endpoints/endpoints.dashboard.routes.ts'
import { webhooksRoutes } from './endpoints/endpoints.routes.ts'
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
    api: [webhooksRoutes(s), listenRoutes(s)],
    admin: [webhooksAdminRoutes(s)],
    dashboard: [(app) => webhooksDashboardRoutes(app, s), (app) => webhookDeliveriesDashboardRoutes(app, s)],
    console: [(app) => webhooksConsoleRoutes(app, s)],
  }
}
