import Type from 'typebox'
import { KnownString, StringEnum, Timestamp, Uuid } from '../../../http/schemas.ts'
import { EVENT_TYPES } from '../outbox/events.ts'
import { NullableTimestamp } from '../webhooks.schemas.ts'

/**
 * The delivery log's and the replays' objects and requests of /v1, shared with
 * the dashboard API (deliveries.dashboard.schemas.ts): one definition of each.
 * This file imports schemas and constants only, so the web app's types can use it.
 */
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const

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

/** Path parameters of one delivery log entry. */
export const DeliveryIdParams = Type.Object({
  id: Type.String({ description: 'The delivery log entry\u2019s id.' }),
})

export const WebhookReplayAnswer = Type.Object({ data: Type.Object({ replay: WebhookReplay }) })

export const WebhookDeliveryAnswer = Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) })

export const WebhookDeliveryDetail = Type.Object({
  data: Type.Object({
    delivery: WebhookDelivery,
    attempts: Type.Array(WebhookDeliveryAttempt),
  }),
})
