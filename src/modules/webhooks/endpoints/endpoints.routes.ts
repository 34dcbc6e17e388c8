import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { restorePlusInOffsets } from '../../../http/query-timestamps.ts'
import { Uuid } from '../../../http/schemas.ts'
import { MAX_REPLAY_EVENTS } from '../deliveries/replays.service.ts'
import {
  DeliveryIdParams,
  DeliveryLogFilters,
  DeliveryLogPage,
  IdParams,
  RotateSecretRequest,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointRequest,
  WebhookEndpointUpdate,
  WebhookEndpointUpdateBody,
  WebhookReplay,
  WebhookReplayRequest,
} from '../webhooks.schemas.ts'
import { MAX_LISTED_ENDPOINTS, type WebhookService } from '../webhooks.service.ts'
import { REPLAY_AHEAD } from '../worker/replay-feeder.ts'

export { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint, WebhookReplay }

/** A stable newest-first order: ids are time-ordered (UUID v7). */
const LOG_ORDER =
  'Newest first (with created_since or created_until: by created_at, then id). Follow next_cursor, sending the same filters, until it is null; entries recorded meanwhile never shift a page (they are newer than its first entry).'

const REPLAY_DESCRIPTION = `Queues one new delivery to this endpoint for each event of its organization and environment recorded in [since, until) that matches, in the order the events were recorded, and answers at once with the count (\`total\`). The deliveries go out in the background, at most ${REPLAY_AHEAD} due at a time for the endpoint, so fresh events are never queued behind the whole replay. At most ${MAX_REPLAY_EVENTS} events per replay (more: 422 validation_failed with the count; narrow the window) and one running replay per endpoint (409 replay_in_progress). Pings are never replayed, so a test endpoint's replay matches nothing. Each delivery is a new log entry with \`replay_id\`; receivers see the same event ids again and deduplicate on them.`

const manage = { auth: 'key' as const, scopes: ['webhooks:manage' as const] }

export function webhooksRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const tags = ['webhooks']

    app.post(
      '/webhook-endpoints',
      {
        config: {
          ...manage,
          jsonBody: true,
          creates: true,
          errors: ['webhook_url_invalid', 'webhook_target_blocked', 'webhook_limit_reached'],
        },
        schema: {
          operationId: 'createWebhookEndpoint',
          tags,
          summary: 'Register a webhook endpoint (the secret is returned once)',
          description:
            'https only, no credentials in the URL; the host is resolved now, every address must be public, and deliveries connect only to those addresses. At most 5 active endpoints per environment.',
          body: WebhookEndpointRequest,
          response: {
            201: Type.Object({
              data: Type.Object({
                endpoint: WebhookEndpoint,
                secret: Type.String({ description: 'whsec_...; shown only here.' }),
              }),
            }),
          },
        },
      },
      async (request, reply) => {
        reply.code(201)
        return { data: await deps.webhooks.create(request.principal!, request.body) }
      },
    )

    app.get(
      '/webhook-endpoints',
      {
        config: manage,
        schema: {
          operationId: 'listWebhookEndpoints',
          tags,
          summary: `List your endpoints, newest first (at most ${MAX_LISTED_ENDPOINTS}, never a secret)`,
          response: {
            200: Type.Object({ data: Type.Array(WebhookEndpoint) }),
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.list(request.principal!) }),
    )

    app.patch(
      '/webhook-endpoints/:id',
      {
        // A disabled or deleted endpoint cannot be changed: 422 validation_failed.
        config: {
          ...manage,
          jsonBody: true,
          errors: ['validation_failed'],
          // `url` is validated only to be refused: the document does not offer it.
          openapi: { body: WebhookEndpointUpdate },
        },
        schema: {
          operationId: 'updateWebhookEndpoint',
          tags,
          summary: 'Change the description or event filter of an active endpoint',
          description:
            'Only the fields sent change. The URL cannot be changed: register a new endpoint for a new URL, then delete this one. A disabled or deleted endpoint cannot be changed (422).',
          params: IdParams,
          body: WebhookEndpointUpdateBody,
          response: {
            200: Type.Object({ data: Type.Object({ endpoint: WebhookEndpoint }) }),
          },
        },
      },
      async (request) => ({
        data: await deps.webhooks.update(request.principal!, request.params.id, request.body),
      }),
    )

    app.delete(
      '/webhook-endpoints/:id',
      {
        config: manage,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          tags,
          summary: 'Disable an endpoint permanently',
          params: IdParams,
          response: {
            200: Type.Object({ data: Type.Object({ id: Uuid, is_active: Type.Boolean() }) }),
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.remove(request.principal!, request.params.id) }),
    )

    app.post(
      '/webhook-endpoints/:id/test',
      {
        // A disabled endpoint cannot be tested: 422 validation_failed.
        config: { ...manage, errors: ['validation_failed'] },
        schema: {
          operationId: 'testWebhookEndpoint',
          tags,
          summary: 'Queue a ping event to one endpoint',
          params: IdParams,
          response: {
            202: Type.Object({ data: Type.Object({ queued: Type.Boolean() }) }),
          },
        },
      },
      async (request, reply) => {
        reply.code(202)
        return { data: await deps.webhooks.test(request.principal!, request.params.id) }
      },
    )

    app.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        // A disabled endpoint cannot be rotated: 422 validation_failed.
        config: { ...manage, jsonBody: 'optional', errors: ['validation_failed'] },
        schema: {
          operationId: 'rotateWebhookEndpointSecret',
          tags,
          summary: 'Replace an endpoint\u2019s secret without downtime (the new secret is returned once)',
          description:
            'Makes a new `whsec_` secret, shown only in this answer. For the grace period the previous secret signs too: every attempt carries `t=<t>,v1=<new>,v1=<old>`, so a receiver that knows either secret verifies; afterwards only the new secret signs. The body is optional. An endpoint keeps one previous secret: rotating again during a grace period makes the current secret the previous one, and the older one stops signing at once.',
          params: IdParams,
          body: RotateSecretRequest,
          response: {
            200: Type.Object({
              data: Type.Object({
                endpoint: WebhookEndpoint,
                secret: Type.String({ description: 'The new whsec_... secret; shown only here.' }),
                previous_secret_expires_at: Type.String({
                  format: 'date-time',
                  description:
                    'When the previous secret stops signing: now plus the grace period (now for 0).',
                }),
              }),
            }),
          },
        },
      },
      async (request) => ({
        data: await deps.webhooks.rotateSecret(request.principal!, request.params.id, request.body ?? {}),
      }),
    )

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
            202: Type.Object({ data: Type.Object({ replay: WebhookReplay }) }),
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
            200: Type.Object({ data: Type.Object({ replay: WebhookReplay }) }),
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
            202: Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) }),
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
            200: Type.Object({
              data: Type.Object({
                delivery: WebhookDelivery,
                attempts: Type.Array(WebhookDeliveryAttempt),
              }),
            }),
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.delivery(request.principal!, request.params.id) }),
    )
  }
}
