import Type, { type TSchema } from 'typebox'
import { StringEnum, Timestamp, Uuid } from '../../../http/schemas.ts'
import { EVENT_TYPES, type EventType } from './events.ts'

/**
 * What each event type's body looks like: the envelope of events.ts with the
 * `data` its producer writes. These schemas are the OpenAPI document's
 * `webhooks` section; the tests hold real deliveries against them. New fields
 * may appear in `data`, so no object here is closed.
 */

const orderFields = {
  order_id: Uuid,
  external_order_id: Type.String({ description: 'Your order number, as sent.' }),
}

/** Every order event's data ends with this. */
const sequenced = {
  sequence: Type.Integer({
    minimum: 1,
    description:
      'This event\u2019s number among the events of its order: 1, 2, 3 ... in the order they were recorded. Of two events of one order, the one with the higher number is newer.',
  }),
}

/** Only on sample events (the dashboard's "Send a sample event", the trigger operation): no real order behind them. */
const sample = {
  sample: Type.Optional(
    Type.Literal(true, {
      description:
        'Present, and true, only on sample events sent on request (dashboard, trigger operation): the order and ids exist nowhere; ignore or log them.',
    }),
  ),
}

const partner = {
  produced_by_partner: Type.Optional(
    Type.Literal(true, { description: 'Present, and true, only on events of partner orders.' }),
  ),
}

const named = (name: string, description: string) => ({ $id: name, title: name, description })

export const OrderReceivedData = Type.Object(
  { ...orderFields, ...sample, ...sequenced },
  named('OrderReceivedData', 'A live order came in through the API.'),
)

function productionData(name: string, status: string, description: string) {
  return Type.Object(
    {
      ...orderFields,
      production_order_id: Uuid,
      production_status: StringEnum([status]),
      ...partner,
      ...sample,
      ...sequenced,
    },
    named(name, description),
  )
}

export const OrderProductionStartedData = productionData(
  'OrderProductionStartedData',
  'in_progress',
  'Production of the order began.',
)
export const OrderProductionCompletedData = productionData(
  'OrderProductionCompletedData',
  'completed',
  'Production of the order finished.',
)
export const OrderProductionFailedData = productionData(
  'OrderProductionFailedData',
  'failed',
  'Production of the order failed.',
)

export const OrderCancelledData = Type.Object(
  {
    ...orderFields,
    production_order_id: Uuid,
    production_status: Type.Optional(
      StringEnum(['cancelled'], { description: 'Only when a status change cancelled the production order.' }),
    ),
    ...partner,
    ...sample,
    ...sequenced,
  },
  named('OrderCancelledData', 'The order was cancelled, as a whole or by a production status change.'),
)

export const OrderItemCompletedData = Type.Object(
  {
    ...orderFields,
    order_item_id: Uuid,
    production_job_id: Uuid,
    sku: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    ...sample,
    ...sequenced,
  },
  named('OrderItemCompletedData', 'The production job of one item finished (never for partner orders).'),
)

export const OrderUpdatedData = Type.Object(
  {
    ...orderFields,
    changed: Type.Array(Type.String(), {
      description:
        'The fields that changed: `customer.name`, `customer.email`, `customer.phone`, `items[<n>].quantity`, `items[<n>].personalization`, `items[<n>].files` (n: the item\u2019s position in the order, from 0). Read the order (GET /v1/orders/{id}) for the new values; new names may appear.',
    }),
    ...sample,
    ...sequenced,
  },
  named('OrderUpdatedData', 'The order was changed in the dashboard after it was accepted.'),
)

export const PingEventData = Type.Object(
  { message: Type.String(), ...sample },
  named('PingEventData', 'A test event from POST /v1/webhook-endpoints/{id}/test; no order fields.'),
)

export const EVENT_DATA: Record<EventType, TSchema> = {
  'order.received': OrderReceivedData,
  'order.production_started': OrderProductionStartedData,
  'order.production_completed': OrderProductionCompletedData,
  'order.production_failed': OrderProductionFailedData,
  'order.cancelled': OrderCancelledData,
  'order_item.completed': OrderItemCompletedData,
  'order.updated': OrderUpdatedData,
  ping: PingEventData,
}

/** `order_item.completed` -> `OrderItemCompletedEvent`. */
export function eventSchemaName(type: EventType): string {
  const words = type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1))
  return `${words.join('')}Event`
}

/** The body a receiver gets for each event type: the envelope with that type's data. */
export const EVENT_SCHEMAS = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    Type.Object(
      {
        id: { ...Uuid, description: 'The event\u2019s id, also in X-Service-Event-Id; deduplicate on it.' },
        type: StringEnum([type], { description: 'Also in X-Service-Event-Type.' }),
        created_at: {
          ...Timestamp,
          description: 'When the change happened, not when this attempt was sent.',
        },
        api_version: StringEnum(['v1']),
        data: EVENT_DATA[type],
      },
      named(eventSchemaName(type), `The body of a \`${type}\` delivery.`),
    ),
  ]),
) as unknown as Record<EventType, TSchema>
