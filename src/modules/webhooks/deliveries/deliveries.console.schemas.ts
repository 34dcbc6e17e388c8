import Type, { type Static } from 'typebox'
import { Uuid } from '../../../http/schemas.ts'
import { Environment } from '../../api-keys/api-keys.dashboard.schemas.ts'
import { WebhookDelivery } from './deliveries.schemas.ts'

/** The operator console's delivery log of any organization, and redelivery. */
const closed = { additionalProperties: false } as const

export const OperatorDeliveryParams = Type.Object({ delivery_id: Type.String({ maxLength: 64 }) })

export const OperatorDeliveryQuery = Type.Object(
  {
    environment: Type.Optional(Environment),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  closed,
)

export const OperatorDelivery = Type.Object({
  ...WebhookDelivery.properties,
  organization_id: Uuid,
  environment: Environment,
})

export const OperatorDeliveryPage = Type.Object({
  data: Type.Array(OperatorDelivery),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
})

export const OperatorDeliveryAnswer = Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) })

export type OperatorDeliveryPage = Static<typeof OperatorDeliveryPage>
