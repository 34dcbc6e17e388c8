import type { Environment } from '../../../db/schema.ts'

export const EVENT_TYPES = [
  'order.received',
  'order.production_started',
  'order.production_completed',
  'order.production_failed',
  'order.cancelled',
  'order_item.completed',
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
  data: Record<string, unknown>
}

/** The envelope every delivery of an event carries as its body, serialized once. */
export function eventBody(event: { id: string; type: string; created_at: Date; data: unknown }): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: 'v1',
    data: event.data,
  })
}
