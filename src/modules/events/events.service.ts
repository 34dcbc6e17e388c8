import type { Database } from '../../db/database.ts'
import type { Environment } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { enqueueDeliveries } from '../webhooks/deliveries.repo.ts'

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

/** The envelope every delivery carries as its body. */
export function eventEnvelope(event: { id: string; type: string; created_at: Date; data: unknown }) {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: 'v1',
    data: event.data,
  }
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
    /** Deliver to this endpoint only (the test ping); otherwise to every active endpoint. */
    endpointId?: string
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
  await enqueueDeliveries(
    trx,
    {
      id: event.id,
      type: input.type,
      organizationId: input.organizationId,
      environment: input.environment,
      at: input.at,
    },
    input.endpointId,
  )
  return event
}
