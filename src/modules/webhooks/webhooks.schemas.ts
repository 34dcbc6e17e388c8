import Type from 'typebox'
import { AcceptedString, KnownString, StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { ALL_EVENTS, FILTERABLE_EVENT_TYPES, MAX_ENABLED_EVENTS } from './endpoints/enabled-events.ts'
import { EVENT_TYPES } from './outbox/events.ts'

/**
 * The webhook objects and requests of /v1, shared with the dashboard API
 * (webhooks.dashboard.schemas.ts): one definition of each. This
 * file imports schemas and constants only, so the web app's types can use it.
 */
export const DEFAULT_ROTATION_GRACE_S = 24 * 3600
export const MAX_ROTATION_GRACE_S = 7 * 24 * 3600

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

const ENABLED_EVENTS_DESCRIPTION =
  'The event types the endpoint receives; `["*"]` (the default) for every type, new ones included. `ping` always reaches the endpoint and is not listed. A type listed twice counts once.'

/** A request's list: the types the service accepts (enabled-events.ts checks each entry against the same list). */
export const EnabledEvents = Type.Array(
  AcceptedString([ALL_EVENTS, ...FILTERABLE_EVENT_TYPES], {
    maxLength: 64,
    description: 'An event type, or `*` alone for all.',
  }),
  { minItems: 1, maxItems: MAX_ENABLED_EVENTS, description: ENABLED_EVENTS_DESCRIPTION },
)

/** An endpoint's list as answered: types added later may appear (the reference: tolerate unknown values). */
const EnabledEventsAnswer = Type.Array(
  KnownString([ALL_EVENTS, ...FILTERABLE_EVENT_TYPES], { description: 'An event type, or `*` for all.' }),
  { description: ENABLED_EVENTS_DESCRIPTION },
)

export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    description: Type.String(),
    enabled_events: EnabledEventsAnswer,
    is_active: Type.Boolean(),
    disabled_reason: Type.Union([
      KnownString(['too_many_failures'], { description: '`too_many_failures` when disabled automatically' }),
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
    event_type: KnownString(EVENT_TYPES),
    status: KnownString(['pending', 'succeeded', 'failed'], {
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
      KnownString(['timeout', 'connection_error', 'tls_error', 'http_error', 'endpoint_disabled'], {
        description: 'timeout, connection_error, tls_error, http_error or endpoint_disabled',
      }),
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
      KnownString(['timeout', 'connection_error', 'tls_error', 'http_error'], {
        description: 'timeout, connection_error, tls_error or http_error',
      }),
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

export const WebhookEndpointRequest = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'An https URL without credentials, on a public host.' }),
    description: Type.Optional(Text({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
  },
  { additionalProperties: false, $id: 'WebhookEndpointRequest', title: 'WebhookEndpointRequest' },
)

const updatable = {
  description: Type.Optional(Text({ maxLength: 500 })),
  enabled_events: Type.Optional(EnabledEvents),
}

/** What PATCH /v1/webhook-endpoints/{id} documents: the fields that can change. */
export const WebhookEndpointUpdate = Type.Object(updatable, {
  additionalProperties: false,
  $id: 'WebhookEndpointUpdate',
  title: 'WebhookEndpointUpdate',
})

/**
 * What it validates: `url` too, never accepted, so that a new URL is told
 * what to do (register a new endpoint) rather than only `unknown_field`.
 */
export const WebhookEndpointUpdateBody = Type.Object(
  { ...updatable, url: Type.Optional(Type.String({ maxLength: 2048 })) },
  { additionalProperties: false },
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
    status: KnownString(['running', 'completed', 'cancelled'], {
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

/** Path parameters of one endpoint, and of one delivery log entry. */
export const IdParams = Type.Object({ id: Type.String({ description: 'The endpoint\u2019s id.' }) })
export const DeliveryIdParams = Type.Object({
  id: Type.String({ description: 'The delivery log entry\u2019s id.' }),
})
