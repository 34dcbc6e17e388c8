import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp } from '../../http/schemas.ts'
import { Environment } from '../api-keys/api-keys.dashboard.schemas.ts'
import { FILTERABLE_EVENT_TYPES } from './endpoints/enabled-events.ts'
import {
  DeliveryLogFilters,
  DeliveryLogPage,
  EnabledEvents,
  RotateSecretRequest,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookReplay,
  WebhookReplayRequest,
} from './webhooks.schemas.ts'

/**
 * The dashboard's webhook schemas: the public API's own objects (one
 * definition), plus the environment, which a key carries on /v1 and the
 * dashboard takes from the page's test/live switch.
 */
const closed = { additionalProperties: false } as const

export const EnvironmentQuery = Type.Object(
  { environment: Type.Optional({ ...Environment, default: 'test', description: 'test (default) or live' }) },
  closed,
)

export const EndpointParams = Type.Object({ endpoint_id: Type.String() })
export const DeliveryParams = Type.Object({ delivery_id: Type.String() })

/** /v1's endpoint, and the circuit breaker's state (docs/webhooks.md). */
export const DashboardEndpoint = Type.Object(
  {
    ...WebhookEndpoint.properties,
    next_probe_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'While the endpoint is failing (its last attempt failed): when its next probe may start. Its deliveries wait for it: one goes then, and when it succeeds the others follow; when it fails, the retry schedule sets the next one. A time already past: the probe goes as soon as a worker takes it, or, with nothing waiting, the next event goes at once. Null: not failing (or disabled).',
    }),
  },
  { $id: 'DashboardWebhookEndpoint', title: 'DashboardWebhookEndpoint' },
)

/** /v1's log entry, and the probe it waits for. */
export const DashboardDelivery = Type.Object(
  {
    ...WebhookDelivery.properties,
    endpoint_next_probe_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'Pending, and its endpoint is failing: when the endpoint\u2019s next probe may start. The delivery waits for it whatever next_attempt_at says (it goes as that probe, or after a probe succeeds, and not before its own next_attempt_at). Null: it does not wait (its endpoint is not failing, it is settled, or it is a redelivery, which goes when due).',
    }),
  },
  { $id: 'DashboardWebhookDelivery', title: 'DashboardWebhookDelivery' },
)

export const EndpointList = Type.Object({ data: Type.Array(DashboardEndpoint) })
export const EndpointAnswer = Type.Object({ data: Type.Object({ endpoint: DashboardEndpoint }) })

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'An https URL without credentials, on a public host.' }),
    description: Type.Optional(Text({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
  },
  closed,
)
export const EndpointCreated = Type.Object({
  data: Type.Object({
    endpoint: DashboardEndpoint,
    secret: Type.String({ description: 'whsec_...; shown only here.' }),
  }),
})

export const UpdateEndpointBody = Type.Object(
  {
    description: Type.Optional(Text({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
  },
  closed,
)
export const RotateSecretBody = RotateSecretRequest
export const SecretRotated = Type.Object({
  data: Type.Object({
    endpoint: DashboardEndpoint,
    secret: Type.String({ description: 'The new whsec_... secret; shown only here.' }),
    previous_secret_expires_at: Type.String({ format: 'date-time' }),
  }),
})
export const EndpointDeleted = Type.Object({
  data: Type.Object({ id: Type.String(), is_active: Type.Boolean() }),
})
const QueuedProbe = Type.Union([Timestamp, Type.Null()], {
  description:
    'The endpoint is failing: its next probe, which the event waits for (see the endpoint\u2019s next_probe_at). Null: it goes at once.',
})
export const PingQueued = Type.Object({
  data: Type.Object({ queued: Type.Boolean(), endpoint_next_probe_at: QueuedProbe }),
})
export const RetryNowAnswer = Type.Object({
  data: Type.Object({
    endpoint: DashboardEndpoint,
    probe: StringEnum(['started', 'under_way', 'nothing_waiting'], {
      description:
        '`started`: a waiting delivery goes now as the probe (at whichever instance\u2019s worker takes it); `nothing_waiting`: no delivery waits, the next event goes at once as the probe; `under_way`: an attempt to the endpoint is on its way already and its result decides (nothing was changed).',
    }),
  }),
})

export const ReplayBody = WebhookReplayRequest
export const ReplayAnswer = Type.Object({ data: Type.Object({ replay: WebhookReplay }) })
export const ReplayPreview = Type.Object({
  data: Type.Object({
    matched: Type.Integer({ description: 'Events a replay with this body would send if started now.' }),
    limit: Type.Integer({ description: 'The most one replay sends; more matched: narrow the window.' }),
    running: Type.Boolean({
      description: 'A replay of this endpoint is still running: a new one is refused.',
    }),
  }),
})
export const LatestReplay = Type.Object({
  data: Type.Object({ replay: Type.Union([WebhookReplay, Type.Null()]) }),
})

export const DeliveryQuery = Type.Object({ ...EnvironmentQuery.properties, ...DeliveryLogFilters }, closed)
export const DeliveryPage = Type.Object({
  ...DeliveryLogPage.properties,
  data: Type.Array(DashboardDelivery),
})
export const DeliveryDetail = Type.Object({
  data: Type.Object({ delivery: DashboardDelivery, attempts: Type.Array(WebhookDeliveryAttempt) }),
})
export const DeliveryPayload = Type.Object({
  data: Type.Object({
    event: Type.Object({
      id: Type.String(),
      type: Type.String(),
      created_at: Timestamp,
      body: Type.String({
        description:
          'The request body every attempt sent: the exact bytes signed (pretty-print a copy to read it).',
      }),
    }),
    attempts: Type.Array(
      Type.Object({
        attempt: Type.Integer({ minimum: 1 }),
        started_at: Timestamp,
        signature_timestamp: Type.Union([
          Type.Integer({ description: 'The signature\u2019s t (unix seconds), as in webhook-timestamp.' }),
          Type.Null({
            description: 'Not recorded: no request was signed, or the attempt predates the record.',
          }),
        ]),
        headers: Type.Union([
          Type.Record(Type.String(), Type.String(), {
            description:
              'The headers the service set on the request (the HTTP client adds host and content-length), rebuilt from the body and the signing time. The signatures are left out when the secret that made them was rotated since, and for viewers (see hidden_headers).',
          }),
          Type.Null(),
        ]),
        hidden_headers: Type.Array(Type.String(), {
          description:
            'Headers the attempt sent whose values are not shown to this member: x-service-signature and webhook-signature for viewers (signatures are shown to owners and developers: with one, a request could be replayed within the 300 s tolerance). Empty otherwise.',
        }),
        note: Type.Union([
          Type.String({ description: 'Why headers or signatures are missing.' }),
          Type.Null(),
        ]),
      }),
    ),
  }),
})
export const SampleBody = Type.Object(
  {
    type: StringEnum(FILTERABLE_EVENT_TYPES, {
      description: 'The event type of the sample; one the endpoint receives.',
    }),
  },
  closed,
)
export const SampleQueued = Type.Object({
  data: Type.Object({
    queued: Type.Boolean(),
    event_id: Type.String({
      description: 'The sample event\u2019s id: its entry appears in the delivery log.',
    }),
    type: Type.String(),
    endpoint_next_probe_at: QueuedProbe,
  }),
})
export const DeliveryAnswer = Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) })

export type Endpoint = Static<typeof DashboardEndpoint>
export type Delivery = Static<typeof DashboardDelivery>
export type DeliveryAttempt = Static<typeof WebhookDeliveryAttempt>
export type Replay = Static<typeof WebhookReplay>
export type DeliveryLog = Static<typeof DeliveryPage>
