import Type, { type Static } from 'typebox'
import { Timestamp } from '../../../http/schemas.ts'
import { DashboardDelivery, EnvironmentQuery } from '../webhooks.dashboard.schemas.ts'
import {
  DeliveryLogFilters,
  DeliveryLogPage,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookReplay,
  WebhookReplayRequest,
} from './deliveries.schemas.ts'

/**
 * The dashboard's schemas of the delivery log, redeliveries and replays: the
 * public API's own objects (one definition), in the environment of the page's switch.
 */
const closed = { additionalProperties: false } as const

export const DeliveryParams = Type.Object({ delivery_id: Type.String() })

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
      order_erased_at: Type.Union([Timestamp, Type.Null()], {
        description:
          'When the customer of the event’s order was erased (docs/personal-data.md); the payload never held them, so a redelivery or replay sends these same bytes. Null: not erased, or no order.',
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
export const DeliveryAnswer = Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) })

export type DeliveryAttempt = Static<typeof WebhookDeliveryAttempt>
export type Replay = Static<typeof WebhookReplay>
export type DeliveryLog = Static<typeof DeliveryPage>
