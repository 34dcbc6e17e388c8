import type { Database } from '../../db/database.ts'
import type { Environment } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'

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

export interface RecordedEvent {
  id: string
  type: EventType
  created_at: Date
  data: Record<string, unknown>
}

/**
 * Writes an event into the outbox. Callers pass the transaction that makes the
 * change the event reports, so the event exists exactly when the change does;
 * delivery reads the outbox and never runs inside a request.
 */
export async function recordEvent(
  trx: Database,
  input: {
    organizationId: string
    environment: Environment
    type: EventType
    orderId: string | null
    data: Record<string, unknown>
    at: Date
  },
): Promise<RecordedEvent> {
  const event = { id: newId(), type: input.type, created_at: input.at, data: input.data }
  await trx
    .insertInto('events')
    .values({
      id: event.id,
      organization_id: input.organizationId,
      environment: input.environment,
      type: input.type,
      order_id: input.orderId,
      data: JSON.stringify(input.data),
      created_at: input.at,
    })
    .execute()
  return event
}
