import { newId } from '../../../lib/ids.ts'
import { type EventType, eventBody, eventData, sequencedEvent } from '../outbox/events.ts'

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
 * A well-formed event of the type, as a registered endpoint would receive it:
 * the same envelope and data builders as real events, with fresh ids and a
 * sample order. Never stored.
 */
export function sampleEventBody(type: EventType, at: Date): string {
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
  const body = { id: newId(), type, created_at: at, data: data() }
  if (sequence === undefined) return eventBody(body)
  const { body: parts } = sequencedEvent(body)
  return `${parts[0]}${sequence}${parts[1]}`
}
