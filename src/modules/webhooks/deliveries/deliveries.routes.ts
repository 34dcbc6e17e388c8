import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { restorePlusInOffsets } from '../../../http/query-timestamps.ts'
import { manage } from '../webhooks.route-config.ts'
import { IdParams } from '../webhooks.schemas.ts'
import type { WebhookService } from '../webhooks.service.ts'
import { REPLAY_AHEAD } from '../worker/replay-feeder.ts'
import {
  DeliveryIdParams,
  DeliveryLogFilters,
  DeliveryLogPage,
  WebhookDeliveryAnswer,
  WebhookDeliveryDetail,
  WebhookReplayAnswer,
  WebhookReplayRequest,
} from './deliveries.schemas.ts'
import { MAX_REPLAY_EVENTS } from './replays.service.ts'

/** A stable newest-first order: ids are time-ordered (UUID v7). */
const LOG_ORDER =
  'Newest first (with created_since or created_until: by created_at, then id). Follow next_cursor, sending the same filters, until it is null; entries recorded meanwhile never shift a page (they are newer than its first entry).'

const REPLAY_DESCRIPTION = `Queues one new delivery to this endpoint for each event of its organization and environment recorded in [since, until) that matches, in the order the events were recorded, and answers at once with the count (\`total\`). The deliveries go out in the background, at most ${REPLAY_AHEAD} due at a time for the endpoint, so fresh events are never queued behind the whole replay. At most ${MAX_REPLAY_EVENTS} events per replay (more: 422 validation_failed with the count; narrow the window) and one running replay per endpoint (409 replay_in_progress). Pings are never replayed, so a test endpoint's replay matches nothing. Each delivery is a new log entry with \`replay_id\`; receivers see the same event ids again and deduplicate on them.`

/** /v1's delivery log, redelivery, and the replays of an endpoint's events. */
export function webhookDeliveriesRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const tags = ['webhooks']

    app.post(
      '/webhook-endpoints/:id/replay',
      {
        // A disabled endpoint and too many matching events: 422 validation_failed.
        config: { ...manage, jsonBody: true, errors: ['validation_failed', 'replay_in_progress'] },
        schema: {
          operationId: 'replayWebhookEndpoint',
          tags,
          summary: 'Send an endpoint the events of a time window again (after an outage)',
          description: REPLAY_DESCRIPTION,
          params: IdParams,
          body: WebhookReplayRequest,
          response: {
            202: WebhookReplayAnswer,
          },
        },
      },
      async (request, reply) => {
        reply.code(202)
        return {
          data: { replay: await deps.webhooks.replay(request.principal!, request.params.id, request.body) },
        }
      },
    )

    app.get(
      '/webhook-endpoints/:id/replay',
      {
        // An endpoint never replayed: 404.
        config: { ...manage, errors: ['not_found'] },
        schema: {
          operationId: 'getWebhookEndpointReplay',
          tags,
          summary: 'The endpoint\u2019s latest replay and how far it got',
          params: IdParams,
          response: {
            200: WebhookReplayAnswer,
          },
        },
      },
      async (request) => ({
        data: { replay: await deps.webhooks.replayStatus(request.principal!, request.params.id) },
      }),
    )

    app.post(
      '/webhook-deliveries/:id/redeliver',
      {
        // The entry's endpoint is disabled: 422 validation_failed.
        config: { ...manage, errors: ['validation_failed'] },
        schema: {
          operationId: 'redeliverWebhookDelivery',
          tags,
          summary: 'Send a delivery\u2019s event again, as a new log entry',
          description:
            'Adds a pending log entry for the same event and endpoint (`redelivery_of` names this one), sent at once with the same body, signed afresh. When it succeeds while this entry still waits for a retry, that retry is cancelled: this entry becomes failed with `superseded_by` set. Whatever the status of this entry; not for a disabled endpoint (422).',
          params: DeliveryIdParams,
          response: {
            202: WebhookDeliveryAnswer,
          },
        },
      },
      async (request, reply) => {
        reply.code(202)
        return {
          data: { delivery: await deps.webhooks.redeliver(request.principal!, request.params.id) },
        }
      },
    )

    app.get(
      '/webhook-deliveries',
      {
        // An endpoint_id that is not one of the key's endpoints: 404.
        config: { ...manage, errors: ['not_found'] },
        schema: {
          operationId: 'listWebhookDeliveries',
          tags,
          summary: 'Recent deliveries to your endpoints, newest first',
          description: `${LOG_ORDER} Filters combine; a bad value is 422 validation_failed naming it. An event_id or order_id that is not yours matches nothing.`,
          querystring: Type.Object(DeliveryLogFilters, { additionalProperties: false }),
          response: {
            200: DeliveryLogPage,
          },
        },
        preValidation: restorePlusInOffsets('created_since', 'created_until'),
      },
      async (request) => deps.webhooks.deliveries(request.principal!, request.query),
    )

    app.get(
      '/webhook-deliveries/:id',
      {
        config: manage,
        schema: {
          operationId: 'getWebhookDelivery',
          tags,
          summary: 'One delivery log entry and its attempts, oldest first',
          description:
            'Every request sent for this entry: when, how long, the response status and snippet, and the error. An id of another organization or environment is 404, as an unknown one.',
          params: Type.Object({ id: Type.String({ description: 'The delivery\u2019s id.' }) }),
          response: {
            200: WebhookDeliveryDetail,
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.delivery(request.principal!, request.params.id) }),
    )
  }
}
