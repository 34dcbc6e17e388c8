import type { Readable } from 'node:stream'
import Type, { type Static } from 'typebox'
import { Timestamp, Uuid } from '../../../http/schemas.ts'
import { DashboardDelivery } from '../../webhooks/webhooks.dashboard.schemas.ts'
import { OperatorOrder } from '../orders.schemas.ts'

/** The order page's schemas (GET /orders/{order_id}, its files and its timeline). */

export const OrderParams = Type.Object({ order_id: Type.String({ maxLength: 64 }) })
export const OrderFileParams = Type.Object({
  order_id: Type.String({ maxLength: 64 }),
  upload_id: Type.String({ maxLength: 64 }),
})

/** The operator's view of an order, without the organization (the member's own). */
export const DashboardOrder = Type.Omit(OperatorOrder, ['organization_id'])
export type DashboardOrder = Static<typeof DashboardOrder>

export const OrderAnswer = Type.Object({ data: Type.Object({ order: DashboardOrder }) })

/** A change's answer: the order as it is now and the fields that changed (empty: nothing did, nothing was written). */
export const OrderChangedAnswer = Type.Object({
  data: Type.Object({ order: DashboardOrder, changed: Type.Array(Type.String()) }),
})

export const TimelineDelivery = Type.Object({
  id: Uuid,
  endpoint_id: Uuid,
  endpoint_url: Type.String(),
  status: Type.String({ description: 'pending, succeeded or failed' }),
  attempts: Type.Integer(),
  last_attempt_at: Type.Union([Timestamp, Type.Null()]),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'Pending deliveries only.' }),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  redelivery_of: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
  endpoint_next_probe_at: DashboardDelivery.properties.endpoint_next_probe_at,
})

export const TimelineEvent = Type.Object({
  id: Uuid,
  type: Type.String(),
  created_at: Timestamp,
  data: Type.Record(Type.String(), Type.Unknown()),
  deliveries: Type.Array(TimelineDelivery),
})
export type TimelineEvent = Static<typeof TimelineEvent>

export const TimelineAnswer = Type.Object({
  data: Type.Array(TimelineEvent, {
    description:
      'The order\u2019s events, oldest first, each with its webhook deliveries. Test orders have none.',
  }),
})

/** The stored bytes, as a download of the detected type. */
export const FileDownload = {
  description: 'The stored bytes (a sanitized SVG as stored), as an attachment of the detected type.',
  content: {
    'application/octet-stream': {
      // A stream of bytes: not serialized, so its TypeScript type is the stream's.
      schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }),
    },
  },
}
