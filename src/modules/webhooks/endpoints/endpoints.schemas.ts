import Type from 'typebox'
import { AcceptedString, KnownString, Text, Timestamp, Uuid } from '../../../http/schemas.ts'
import { DEFAULT_ROTATION_GRACE_S, MAX_ROTATION_GRACE_S, NullableTimestamp } from '../webhooks.schemas.ts'
import { ALL_EVENTS, FILTERABLE_EVENT_TYPES, MAX_ENABLED_EVENTS } from './enabled-events.ts'

/**
 * The webhook endpoint objects and requests of /v1, shared with the dashboard
 * API (endpoints.dashboard.schemas.ts): one definition of each. This file
 * imports schemas and constants only, so the web app's types can use it.
 */
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

export const WebhookEndpointCreated = Type.Object({
  data: Type.Object({
    endpoint: WebhookEndpoint,
    secret: Type.String({ description: 'whsec_...; shown only here.' }),
  }),
})

export const WebhookEndpointList = Type.Object({ data: Type.Array(WebhookEndpoint) })

export const WebhookEndpointAnswer = Type.Object({ data: Type.Object({ endpoint: WebhookEndpoint }) })

export const WebhookEndpointDeleted = Type.Object({
  data: Type.Object({ id: Uuid, is_active: Type.Boolean() }),
})

export const WebhookPingQueued = Type.Object({ data: Type.Object({ queued: Type.Boolean() }) })

export const WebhookSecretRotated = Type.Object({
  data: Type.Object({
    endpoint: WebhookEndpoint,
    secret: Type.String({ description: 'The new whsec_... secret; shown only here.' }),
    previous_secret_expires_at: Type.String({
      format: 'date-time',
      description: 'When the previous secret stops signing: now plus the grace period (now for 0).',
    }),
  }),
})
