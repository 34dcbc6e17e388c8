import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp } from '../../../http/schemas.ts'
import { FILTERABLE_EVENT_TYPES } from './enabled-events.ts'
import { EnabledEvents, RotateSecretRequest, WebhookEndpoint } from './endpoints.schemas.ts'

/**
 * The dashboard's endpoint schemas: the public API's own objects (one
 * definition), with the circuit breaker's state.
 */
const closed = { additionalProperties: false } as const

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

export type Endpoint = Static<typeof DashboardEndpoint>
