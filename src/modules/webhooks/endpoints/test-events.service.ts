import { AppError } from '../../../http/errors.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import { sampleEventData } from '../listen/sample-events.ts'
import { type EventType, eventData, recordEvent } from '../outbox/outbox.service.ts'
import type { WebhookContext, WebhookScope } from '../webhooks.context.ts'
import { disabled, iso } from '../webhooks.views.ts'

/** Events queued to one endpoint on request: a ping, or a sample event of a type. */
export function createTestEventService(ctx: WebhookContext) {
  const { db, clock, audit, ownEndpoint } = ctx

  return {
    /** Queues a ping to one endpoint. */
    async test(scope: WebhookScope, id: string) {
      const endpoint = await ownEndpoint(scope, id)
      if (!endpoint.is_active) throw disabled('The endpoint is disabled and cannot receive test events.')
      await db.transaction().execute((trx) =>
        recordEvent(trx, {
          organizationId: scope.organizationId,
          environment: scope.environment,
          type: 'ping',
          orderId: null,
          data: eventData.ping(),
          at: clock.now(),
          endpointId: endpoint.id,
        }),
      )
      return { queued: true, endpoint_next_probe_at: iso(endpoint.next_probe_at) }
    },

    /**
     * Queues a sample event of the type to one live endpoint (test endpoints
     * receive pings only): the sample builder's
     * data (`sample: true`, an order that exists nowhere), stored as an event
     * without an order, so no order, sequence counter or order statistic
     * changes, and no replay picks it up. The endpoint must take the type.
     */
    async sendSample(scope: WebhookScope, id: string, type: Exclude<EventType, 'ping'>, actor?: AuditActor) {
      const endpoint = await ownEndpoint(scope, id)
      // Test endpoints receive pings only (as with real orders); test mode's samples go to `listen`.
      if (endpoint.environment === 'test') {
        throw AppError.validation(
          [
            {
              code: 'invalid_format',
              field: 'endpoint_id',
              message:
                'Test endpoints receive ping events only. Send samples to a live endpoint, or to your machine with listen and trigger and a test key.',
            },
          ],
          'Sample events go to live endpoints only; nothing was sent.',
        )
      }
      if (!endpoint.is_active) throw disabled('The endpoint is disabled and cannot receive sample events.')
      if (!endpoint.enabled_events.includes('*') && !endpoint.enabled_events.includes(type)) {
        throw AppError.validation(
          [
            {
              code: 'invalid_format',
              field: 'type',
              message: `type must be one the endpoint receives: ${endpoint.enabled_events.map((t) => JSON.stringify(t)).join(', ')}`,
            },
          ],
          'The endpoint does not receive events of this type; nothing was sent.',
        )
      }
      const event = await db.transaction().execute(async (trx) => {
        const recorded = await recordEvent(trx, {
          organizationId: scope.organizationId,
          environment: scope.environment,
          type,
          orderId: null,
          data: sampleEventData(type),
          at: clock.now(),
          endpointId: endpoint.id,
        })
        await audit(trx, actor, scope, 'webhook_endpoint.sample_sent', endpoint, {
          event_id: recorded.id,
          event_type: type,
        })
        return recorded
      })
      return { queued: true, event_id: event.id, type, endpoint_next_probe_at: iso(endpoint.next_probe_at) }
    },
  }
}
