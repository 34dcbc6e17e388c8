import Type, { type Static } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'
import { Environment } from '../api-keys/api-keys.dashboard.schemas.ts'
import { WebhookDelivery } from './deliveries/deliveries.schemas.ts'

/**
 * What the dashboard's webhook schemas share: the environment, which a key
 * carries on /v1 and the dashboard takes from the page's test/live switch, the
 * endpoint's path parameter (its settings and its replays), and the delivery
 * as the dashboard shows it (the orders' pages too). Each sub-feature keeps its
 * own: endpoints/endpoints.dashboard.schemas.ts, deliveries/deliveries.dashboard.schemas.ts.
 */
const closed = { additionalProperties: false } as const

export const EnvironmentQuery = Type.Object(
  { environment: Type.Optional({ ...Environment, default: 'test', description: 'test (default) or live' }) },
  closed,
)

export const EndpointParams = Type.Object({ endpoint_id: Type.String() })

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

export type Delivery = Static<typeof DashboardDelivery>
