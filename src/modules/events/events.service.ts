import { type RawBuilder, sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment } from '../../db/schema.ts'
import { newId } from '../../lib/ids.ts'
import { WAKE_CHANNEL } from '../webhooks/deliveries.repo.ts'

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

/** The envelope every delivery carries as its body. */
function eventEnvelope(event: { id: string; type: string; created_at: Date; data: unknown }) {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    api_version: 'v1',
    data: event.data,
  }
}

/**
 * The outbox write as common table expressions, to be embedded in the
 * statement that makes the change: `outbox_event` inserts the event (with the
 * body every delivery of it sends) when the CTE named by `gate` has a row,
 * `outbox_deliveries` fans it out to one pending delivery per active endpoint
 * of the organization and environment, and `outbox_queue` queues each
 * delivery's first attempt. Callers end their statement with `outboxWake()`
 * so idle workers wake on commit. One statement keeps change, event and
 * deliveries atomic without a transaction round trip.
 */
export function outboxCtes(eventId: string, input: NewEventInput, gate: string): RawBuilder<unknown> {
  const onlyEndpoint = input.endpointId ? sql`and w.id = ${input.endpointId}::uuid` : sql``
  const body = JSON.stringify(
    eventEnvelope({ id: eventId, type: input.type, created_at: input.at, data: input.data }),
  )
  return sql`
    outbox_event as (
      insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
      select ${eventId}::uuid, ${input.organizationId}::uuid, ${input.environment}::text, ${input.type}::text,
             ${input.orderId}::uuid, ${JSON.stringify(input.data)}::json, ${body}::text, ${input.at}::timestamptz
      from ${sql.table(gate)}
      returning id
    ),
    outbox_deliveries as (
      insert into webhook_deliveries
        (id, event_id, endpoint_id, organization_id, environment, event_type, status, next_attempt_at, created_at)
      select uuid_v7(), e.id, w.id, w.organization_id, w.environment, ${input.type}::text, 'pending',
             ${input.at}::timestamptz, ${input.at}::timestamptz
      from outbox_event e
      cross join webhook_endpoints w
      where w.organization_id = ${input.organizationId}::uuid
        and w.environment = ${input.environment}::text
        and w.is_active ${onlyEndpoint}
      returning id, event_id, endpoint_id, next_attempt_at
    ),
    outbox_queue as (
      insert into webhook_queue (delivery_id, event_id, endpoint_id, next_attempt_at, attempts)
      select id, event_id, endpoint_id, next_attempt_at, 0 from outbox_deliveries
      returning 1
    )`
}

/** NOTIFY (delivered on commit) when the statement enqueued deliveries. */
export function outboxWake(): RawBuilder<unknown> {
  return sql`case when exists (select 1 from outbox_queue) then pg_notify(${WAKE_CHANNEL}, '') end`
}

/**
 * Writes an event into the outbox. Callers pass the transaction that makes the
 * change the event reports, so the event exists exactly when the change does;
 * delivery reads the outbox and never runs inside a request.
 */
export async function recordEvent(trx: Database, input: NewEventInput): Promise<RecordedEvent> {
  const event = { id: newId(), type: input.type, created_at: input.at, data: input.data }
  await sql`with gate as (select 1), ${outboxCtes(event.id, input, 'gate')} select ${outboxWake()}`.execute(
    trx,
  )
  return event
}
