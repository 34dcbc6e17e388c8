import { newId } from '../../../lib/ids.ts'
import { type EventType, eventBody, eventData } from '../outbox/events.ts'

/** The production status each production event reports (order.cancelled: the whole-order cancel, without one). */
const PRODUCTION_STATUS: Partial<Record<EventType, string>> = {
  'order.production_started': 'in_progress',
  'order.production_completed': 'completed',
  'order.production_failed': 'failed',
}

/** Where each sample falls in a sample order's life (received, started, an item done, completed). */
const SAMPLE_SEQUENCE: Partial<Record<EventType, number>> = {
  'order.received': 1,
  'order.production_started': 2,
  'order_item.completed': 3,
  'order.production_completed': 4,
  'order.production_failed': 3,
  'order.cancelled': 2,
  'order.updated': 2,
}

/**
 * The `data` of a sample event of the type, as a real event's: the same
 * builders, fresh ids and a sample order that exists nowhere, then
 * `sample: true`, then (an order event's last field) its `sequence`. The one
 * builder of samples: POST /v1/webhook-events/trigger (listen sessions) and
 * the dashboard's "Send a sample event" (one endpoint) both take it.
 */
export function sampleEventData(type: EventType): Record<string, unknown> {
  const order = { order_id: newId(), external_order_id: 'SAMPLE-1001' }
  const production = { production_order_id: newId(), produced_by_partner: false }
  const data = (): Record<string, unknown> => {
    switch (type) {
      case 'order.received':
        return eventData.received(order)
      case 'order.production_started':
      case 'order.production_completed':
      case 'order.production_failed':
        return eventData.production(order, { ...production, production_status: PRODUCTION_STATUS[type]! })
      case 'order.cancelled':
        return eventData.production(order, production)
      case 'order_item.completed':
        return eventData.itemCompleted(order, {
          order_item_id: newId(),
          production_job_id: newId(),
          sku: 'MUG-01',
          name: 'Mug',
        })
      case 'order.updated':
        return eventData.updated(order, ['customer.email', 'items[0].personalization'])
      case 'ping':
        return eventData.ping()
    }
  }
  const sequence = SAMPLE_SEQUENCE[type]
  return { ...data(), sample: true, ...(sequence === undefined ? {} : { sequence }) }
}

/** A sample event's body, as a registered endpoint would receive it; never stored. */
export function sampleEventBody(type: EventType, at: Date): string {
  return eventBody({ id: newId(), type, created_at: at, data: sampleEventData(type) })
}
