import type { Environment } from '../../../db/schema.ts'

export const EVENT_TYPES = [
  'order.received',
  'order.production_started',
  'order.production_completed',
  'order.production_failed',
  'order.cancelled',
  'order_item.completed',
  'order.updated',
  'ping',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export interface NewEventInput {
  organizationId: string
  environment: Environment
  type: EventType
  orderId: string | null
  data: Record<string, unknown>
  at: Date
  /** Deliver to this endpoint only (the test ping); otherwise to every active endpoint. */
  endpointId?: string
}

export interface RecordedEvent {
  id: string
  type: EventType
  created_at: Date
  /** As delivered: an order event's data ends with its `sequence`. */
  data: Record<string, unknown>
}

/** The order an order event is about: every order event's data starts with these. */
export interface EventOrder {
  order_id: string
  external_order_id: string
}

/**
 * The `data` of each event type, built here for the events changes write and
 * for the samples listen sessions get (POST /v1/webhook-events/trigger) alike.
 */
export const eventData = {
  /** order.received */
  received: (order: EventOrder) => ({ order_id: order.order_id, external_order_id: order.external_order_id }),
  /** order.production_* and order.cancelled (a whole-order cancel has no production_status). */
  production: (
    order: EventOrder,
    p: { production_order_id: string; production_status?: string; produced_by_partner: boolean },
  ) => ({
    ...eventData.received(order),
    production_order_id: p.production_order_id,
    ...(p.production_status === undefined ? {} : { production_status: p.production_status }),
    ...(p.produced_by_partner ? { produced_by_partner: true } : {}),
  }),
  /** order_item.completed */
  itemCompleted: (
    order: EventOrder,
    job: { order_item_id: string; production_job_id: string; sku: string | null; name: string },
  ) => ({
    ...eventData.received(order),
    order_item_id: job.order_item_id,
    production_job_id: job.production_job_id,
    sku: job.sku,
    name: job.name,
  }),
  /** order.updated: a change made in the dashboard or the console, naming the fields that changed. */
  updated: (order: EventOrder, changed: string[]) => ({ ...eventData.received(order), changed }),
  ping: () => ({ message: 'Test event from the webhook test operation.' }),
}

/** The envelope every delivery of an event carries as its body, serialized once. */
export function eventBody(event: { id: string; type: string; created_at: Date; data: unknown }): string {
  return `${envelopeHead(event)}${JSON.stringify(event.data)}}`
}

/**
 * An order event's data and body as the text before and after its `sequence`,
 * which only the statement that writes the event knows: the data is
 * `data[0] + sequence + data[1]`, the body `body[0] + sequence + body[1]`, and
 * the body holds the data's exact bytes (`sequence` is the data's last field).
 */
export function sequencedEvent(event: {
  id: string
  type: string
  created_at: Date
  data: Record<string, unknown>
}): { data: [string, string]; body: [string, string] } {
  const fields = JSON.stringify(event.data)
  const open = `${fields.slice(0, -1)}${fields === '{}' ? '' : ','}"sequence":`
  return { data: [open, '}'], body: [`${envelopeHead(event)}${open}`, '}}'] }
}

/** The envelope up to its `data` value, which comes last. */
function envelopeHead(event: { id: string; type: string; created_at: Date }): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: 'v1',
    data: null,
  })
  return head.slice(0, -'null}'.length)
}
