import type { Database } from '../../db/database.ts'
import { createDeliveryService } from './deliveries/deliveries.service.ts'
import { cancelReplays } from './deliveries/replays.repo.ts'
import { createEndpointService } from './endpoints/endpoints.service.ts'
import { createProbeService } from './endpoints/probes.service.ts'
import { failPendingDeliveries } from './outbox/outbox.service.ts'
import { type WebhookDeps, webhookContext } from './webhooks.context.ts'

export { MAX_ACTIVE_ENDPOINTS, MAX_LISTED_ENDPOINTS, type WebhookScope } from './webhooks.context.ts'
/** How long a rotated secret keeps signing beside the new one, unless the request says otherwise. */
export { DEFAULT_ROTATION_GRACE_S, MAX_ROTATION_GRACE_S } from './webhooks.schemas.ts'
export { deliveryView, endpointView } from './webhooks.views.ts'

/**
 * Webhooks: endpoints (endpoints.service.ts), deliveries (deliveries.service.ts)
 * and Retry now (probes.service.ts), over one shared context.
 */
export function createWebhookService(deps: WebhookDeps) {
  const ctx = webhookContext(deps)
  return { ...createEndpointService(ctx), ...createDeliveryService(ctx), ...createProbeService(ctx) }
}

export type WebhookService = ReturnType<typeof createWebhookService>

/**
 * After the statement that recorded the results disabled endpoints whose
 * failure streak reached the limit (the worker's call): fails their pending
 * deliveries with endpoint_disabled and cancels their replays.
 */
export async function settleDisabledEndpoints(db: Database, ids: readonly string[], at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const id of ids) {
      await failPendingDeliveries(trx, id, at)
      await cancelReplays(trx, id, at)
    }
  })
}
