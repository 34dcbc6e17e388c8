import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { restorePlusInOffsets } from '../../http/query-timestamps.ts'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { FILTERABLE_EVENT_TYPES, MAX_ENABLED_EVENTS } from './enabled-events.ts'
import { EVENT_TYPES } from './outbox/outbox.service.ts'
import { REPLAY_AHEAD } from './replay-feeder.ts'
import { MAX_REPLAY_EVENTS } from './replays.service.ts'
import {
  DEFAULT_ROTATION_GRACE_S,
  MAX_LISTED_ENDPOINTS,
  MAX_ROTATION_GRACE_S,
  type WebhookService,
} from './webhooks.service.ts'

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

export const EnabledEvents = Type.Array(
  Type.String({
    maxLength: 64,
    description: `An event type (${FILTERABLE_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}), or \`*\` alone for all.`,
  }),
  {
    minItems: 1,
    maxItems: MAX_ENABLED_EVENTS,
    description:
      'The event types the endpoint receives; `["*"]` (the default) for every type, new ones included. `ping` always reaches the endpoint and is not listed. A type listed twice counts once.',
  },
)

export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    description: Type.String(),
    enabled_events: EnabledEvents,
    is_active: Type.Boolean(),
    disabled_reason: Type.Union([
      Type.String({ description: '`too_many_failures` when disabled automatically' }),
      Type.Null(),
    ]),
    consecutive_failures: Type.Integer(),
    last_success_at: NullableTimestamp,
    last_failure_at: NullableTimestamp,
    created_at: Timestamp,
    secret_rotation_ends_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'While a secret rotation is under way: when the previous secret stops signing (until then every attempt carries a v1 for each secret). Null otherwise.',
    }),
  },
  {
    $id: 'WebhookEndpoint',
    title: 'WebhookEndpoint',
    description: 'An address that receives events; never its secret.',
  },
)

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Uuid,
    event_type: Type.String(),
    status: Type.String({
      description: 'pending, succeeded or failed (permanent); tolerate unknown values.',
    }),
    attempts: Type.Integer(),
    next_attempt_at: NullableTimestamp,
    last_attempt_at: NullableTimestamp,
    response_status: Type.Union([Type.Integer(), Type.Null()]),
    response_snippet: Type.Union([
      Type.String({ description: 'First 1024 characters of the response.' }),
      Type.Null(),
    ]),
    error_code: Type.Union([
      Type.String({ description: 'timeout, connection_error, tls_error, http_error or endpoint_disabled' }),
      Type.Null(),
    ]),
    error_message: Type.Union([
      Type.String({
        description:
          'The last attempt\u2019s error in words, e.g. "HTTP 500" or "self-signed certificate"; null after success. For people: may change, never branch on it.',
      }),
      Type.Null(),
    ]),
    created_at: Timestamp,
    redelivery_of: Type.Union([Uuid, Type.Null()], {
      description: 'The entry this one repeats, when it is a redelivery; else null.',
    }),
    superseded_by: Type.Union([Uuid, Type.Null()], {
      description:
        'The redelivery whose success ended this entry\u2019s retries (its status is then failed, and its error_code that of its last failed attempt); else null.',
    }),
    replay_id: Type.Union([Uuid, Type.Null()], {
      description: 'The replay that queued this entry; else null.',
    }),
  },
  {
    $id: 'WebhookDelivery',
    title: 'WebhookDelivery',
    description: 'The log entry of one event sent to one endpoint.',
  },
)

export const WebhookDeliveryAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt of this entry.' }),
    started_at: Timestamp,
    duration_ms: Type.Union([Type.Integer(), Type.Null()]),
    response_status: Type.Union([
      Type.Integer({ description: 'The receiver\u2019s status code.' }),
      Type.Null({ description: 'No response came.' }),
    ]),
    response_snippet: Type.Union([
      Type.String({ description: 'First 1024 characters of the response.' }),
      Type.Null(),
    ]),
    error_code: Type.Union([
      Type.String({ description: 'timeout, connection_error, tls_error or http_error' }),
      Type.Null({ description: 'The attempt succeeded.' }),
    ]),
    error_message: Type.Union([
      Type.String({ description: 'The error in words; may change, never branch on it.' }),
      Type.Null(),
    ]),
  },
  {
    $id: 'WebhookDeliveryAttempt',
    title: 'WebhookDeliveryAttempt',
    description: 'One request sent for a delivery, and what came of it.',
  },
)

/** A stable newest-first order: ids are time-ordered (UUID v7). */
const LOG_ORDER =
  'Newest first (with created_since or created_until: by created_at, then id). Follow next_cursor, sending the same filters, until it is null; entries recorded meanwhile never shift a page (they are newer than its first entry).'

export const DeliveryLogFilters = {
  endpoint_id: Type.Optional(Type.String({ description: 'Only this endpoint\u2019s entries.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only entries in this status.' })),
  event_type: Type.Optional(StringEnum(EVENT_TYPES, { description: 'Only entries of this event type.' })),
  event_id: Type.Optional({ ...Uuid, description: 'Only entries of this event (redeliveries included).' }),
  order_id: Type.Optional({ ...Uuid, description: 'Only entries of this order\u2019s events.' }),
  created_since: Type.Optional({
    ...Timestamp,
    description: 'ISO 8601 timestamp with Z or an offset; inclusive (created_at >= created_since).',
  }),
  created_until: Type.Optional({
    ...Timestamp,
    description: 'ISO 8601 timestamp with Z or an offset; exclusive (created_at < created_until).',
  }),
  cursor: Type.Optional(
    Type.String({ maxLength: 512, description: 'Opaque; next_cursor of the previous page.' }),
  ),
}

export const DeliveryLogPage = Type.Object({
  data: Type.Array(WebhookDelivery),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})

const WebhookEndpointRequest = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'An https URL without credentials, on a public host.' }),
    description: Type.Optional(Text({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
  },
  { additionalProperties: false, $id: 'WebhookEndpointRequest', title: 'WebhookEndpointRequest' },
)

export const WebhookEndpointUpdate = Type.Object(
  {
    description: Type.Optional(Text({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
    url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'Not changeable: any value gives 422 validation_failed. For a new URL, register a new endpoint and delete this one.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'WebhookEndpointUpdate', title: 'WebhookEndpointUpdate' },
)

export const RotateSecretRequest = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_S,
        default: DEFAULT_ROTATION_GRACE_S,
        description: `How long the current secret keeps signing beside the new one, in seconds (default ${DEFAULT_ROTATION_GRACE_S}: 24 hours; at most ${MAX_ROTATION_GRACE_S}: 7 days). 0 switches to the new secret at once.`,
      }),
    ),
  },
  { additionalProperties: false, $id: 'RotateSecretRequest', title: 'RotateSecretRequest' },
)

/** Order event types: a ping tests one endpoint and is never replayed. */
export const REPLAYABLE_TYPES = EVENT_TYPES.filter((type) => type !== 'ping')

export const WebhookReplay = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    status: Type.String({
      description:
        'running (deliveries are being queued), completed (all were queued) or cancelled (the endpoint was disabled or deleted first); tolerate unknown values.',
    }),
    since: Timestamp,
    until: NullableTimestamp,
    event_types: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'The types asked for; null: every order event type.',
    }),
    only_failed: Type.Boolean(),
    total: Type.Integer({ description: 'Events matched when the replay was requested: one delivery each.' }),
    queued: Type.Integer({ description: 'Deliveries queued so far; total once completed.' }),
    created_at: Timestamp,
    finished_at: NullableTimestamp,
  },
  {
    $id: 'WebhookReplay',
    title: 'WebhookReplay',
    description: 'A replay of an endpoint\u2019s events and how far it got.',
  },
)

export const WebhookReplayRequest = Type.Object(
  {
    since: { ...Timestamp, description: 'Events recorded at or after this instant (ISO 8601).' },
    until: Type.Optional({ ...Timestamp, description: 'Events recorded before this instant; default: now.' }),
    event_types: Type.Optional(
      Type.Array(StringEnum(REPLAYABLE_TYPES), {
        minItems: 1,
        maxItems: REPLAYABLE_TYPES.length,
        description: 'Only these order event types (default: all; `ping` is never replayed).',
      }),
    ),
    only_failed: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Only events that have deliveries to this endpoint and all of them failed (none succeeded, none pending).',
      }),
    ),
  },
  { additionalProperties: false, $id: 'WebhookReplayRequest', title: 'WebhookReplayRequest' },
)

const REPLAY_DESCRIPTION = `Queues one new delivery to this endpoint for each event of its organization and environment recorded in [since, until) that matches, in the order the events were recorded, and answers at once with the count (\`total\`). The deliveries go out in the background, at most ${REPLAY_AHEAD} due at a time for the endpoint, so fresh events are never queued behind the whole replay. At most ${MAX_REPLAY_EVENTS} events per replay (more: 422 validation_failed with the count; narrow the window) and one running replay per endpoint (409 replay_in_progress). Pings are never replayed, so a test endpoint's replay matches nothing. Each delivery is a new log entry with \`replay_id\`; receivers see the same event ids again and deduplicate on them.`

const IdParams = Type.Object({ id: Type.String({ description: 'The endpoint\u2019s id.' }) })
const DeliveryIdParams = Type.Object({
  id: Type.String({ description: 'The delivery log entry\u2019s id.' }),
})
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
        config: { ...manage, jsonBody: true, errors: ['validation_failed'] },
        schema: {
          operationId: 'updateWebhookEndpoint',
          tags,
          summary: 'Change the description or event filter of an active endpoint',
          description:
            'Only the fields sent change. The URL cannot be changed: register a new endpoint for a new URL, then delete this one. A disabled or deleted endpoint cannot be changed (422).',
          params: IdParams,
          body: WebhookEndpointUpdate,
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

/** The operator's side: the delivery log across organizations, manual redelivery and replays. */
export function webhooksOperatorRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/webhook-deliveries',
      {
        config: { auth: 'operator' },
        preValidation: restorePlusInOffsets('created_since', 'created_until'),
        schema: {
          querystring: Type.Object(
            { organization_id: Type.Optional(Type.String()), ...DeliveryLogFilters },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => deps.webhooks.operatorDeliveries(request.query),
    )

    app.get(
      '/webhook-deliveries/:id',
      { config: { auth: 'operator' }, schema: { params: IdParams } },
      async (request) => ({ data: await deps.webhooks.operatorDelivery(request.params.id) }),
    )

    app.post(
      '/webhook-deliveries/:id/redeliver',
      { config: { auth: 'operator' }, schema: { params: DeliveryIdParams } },
      async (request, reply) => {
        reply.code(202)
        return { data: { delivery: await deps.webhooks.redeliver(undefined, request.params.id) } }
      },
    )

    app.post(
      '/webhook-endpoints/:id/replay',
      {
        config: { auth: 'operator', jsonBody: true, errors: ['validation_failed', 'replay_in_progress'] },
        schema: { params: IdParams, body: WebhookReplayRequest },
      },
      async (request, reply) => {
        reply.code(202)
        return { data: { replay: await deps.webhooks.replay(undefined, request.params.id, request.body) } }
      },
    )

    app.get(
      '/webhook-endpoints/:id/replay',
      { config: { auth: 'operator' }, schema: { params: IdParams } },
      async (request) => ({
        data: { replay: await deps.webhooks.replayStatus(undefined, request.params.id) },
      }),
    )
  }
}
