import { AppError } from '../../../http/errors.ts'
import { inScope, notFoundHere } from '../../../http/not-found.ts'
import { isUuid } from '../../../lib/ids.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import { findEndpoint, isEndpointActive } from '../endpoints/endpoints.repo.ts'
import { enqueueRedelivery, findDelivery } from '../outbox/outbox.service.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'
import { deliveryView } from '../webhooks.views.ts'
import { latestReplay } from './replays.repo.ts'
import { previewReplay, type ReplayRequest, replayOf, replayView, requestReplay } from './replays.service.ts'

/** Sending events again: one log entry's (a redelivery), or an endpoint's matching events (a replay). */
export function createRedeliveryService(ctx: WebhookContext) {
  const { db, clock, audit, ownEndpoint } = ctx

  return {
    /**
     * A new pending log entry for the same event and endpoint: the dashboard's
     * manual redelivery (no scope) and POST /v1/webhook-deliveries/{id}/redeliver
     * (the key's organization and environment only). Its success ends the
     * retries of the entry it repeats.
     */
    async redeliver(scope: WebhookScope | undefined, deliveryId: string, actor?: AuditActor) {
      const original = isUuid(deliveryId) ? await findDelivery(db, deliveryId) : undefined
      if (!original || !inScope(scope, original)) throw notFoundHere('delivery', scope, original)
      if (!(await isEndpointActive(db, original.endpoint_id))) {
        throw AppError.validation(
          [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled.' }],
          'The delivery’s endpoint is disabled; it receives nothing further.',
        )
      }
      const endpoint = actor ? await findEndpoint(db, original.endpoint_id) : undefined
      const row = await enqueueRedelivery(db, original, clock.now(), (trx, created) =>
        audit(
          trx,
          actor,
          { organizationId: original.organization_id },
          'webhook_delivery.redelivered',
          { id: original.endpoint_id, url: endpoint?.url ?? '' },
          {
            delivery_id: original.id,
            redelivery_id: created.id,
            event_id: original.event_id,
            event_type: original.event_type,
          },
        ),
      )
      return deliveryView(row)
    },

    /** Queues the endpoint's matching events again, in the background (see replays.service.ts). */
    async replay(
      scope: WebhookScope | undefined,
      endpointId: string,
      input: ReplayRequest,
      actor?: AuditActor,
    ) {
      const endpoint = await ownEndpoint(scope, endpointId)
      const row = await requestReplay(db, endpoint, input, clock.now(), (trx, replay) =>
        audit(
          trx,
          actor,
          { organizationId: endpoint.organization_id },
          'webhook_endpoint.replayed',
          endpoint,
          {
            replay_id: replay.id,
            since: replay.since.toISOString(),
            until: replay.until?.toISOString() ?? null,
            event_types: replay.event_types,
            only_failed: replay.only_failed,
            total: replay.total,
          },
        ),
      )
      return replayView(row)
    },

    /** How many events a replay with this input would send, without starting it. */
    async previewReplay(scope: WebhookScope | undefined, endpointId: string, input: ReplayRequest) {
      return previewReplay(db, await ownEndpoint(scope, endpointId), input)
    },

    /** The endpoint's newest replay and how far it got. */
    async replayStatus(scope: WebhookScope | undefined, endpointId: string) {
      return replayView(await replayOf(db, await ownEndpoint(scope, endpointId)))
    },

    /** The endpoint's latest replay, or null when it has never been replayed. */
    async lastReplay(scope: WebhookScope, endpointId: string) {
      const row = await latestReplay(db, (await ownEndpoint(scope, endpointId)).id)
      return row ? replayView(row) : null
    },
  }
}
