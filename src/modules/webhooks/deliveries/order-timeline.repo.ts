import type { Database } from '../../../db/database.ts'

/** Events an order's timeline shows at most (an order has a handful: received, production, items). */
export const MAX_TIMELINE_EVENTS = 200

export interface TimelineDelivery {
  id: string
  endpoint_id: string
  endpoint_url: string
  status: string
  attempts: number
  last_attempt_at: string | null
  next_attempt_at: string | null
  response_status: number | null
  error_message: string | null
  redelivery_of: string | null
  created_at: string
}

export interface TimelineEvent {
  id: string
  type: string
  created_at: string
  data: Record<string, unknown>
  deliveries: TimelineDelivery[]
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

/**
 * The events of one order of the organization, oldest first, each with its
 * webhook deliveries (redeliveries included), oldest first. Two reads: the
 * events by order (events_order_idx), their deliveries by event
 * (webhook_deliveries_event_idx).
 */
export async function orderTimeline(
  db: Database,
  scope: { organizationId: string; orderId: string },
): Promise<TimelineEvent[]> {
  const events = await db
    .selectFrom('events')
    .select(['id', 'type', 'created_at', 'data'])
    .where('order_id', '=', scope.orderId)
    .where('organization_id', '=', scope.organizationId)
    .orderBy('id')
    .limit(MAX_TIMELINE_EVENTS)
    .execute()
  if (events.length === 0) return []
  const deliveries = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'e.url as endpoint_url',
      'd.status',
      'd.attempts',
      'd.last_attempt_at',
      'd.next_attempt_at',
      'd.response_status',
      'd.error_message',
      'd.redelivery_of',
      'd.created_at',
    ])
    .where(
      'd.event_id',
      'in',
      events.map((e) => e.id),
    )
    .orderBy('d.id')
    .execute()
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    data: event.data,
    deliveries: deliveries
      .filter((d) => d.event_id === event.id)
      .map((d) => ({
        id: d.id,
        endpoint_id: d.endpoint_id,
        endpoint_url: d.endpoint_url,
        status: d.status,
        attempts: d.attempts,
        last_attempt_at: iso(d.last_attempt_at),
        next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
        response_status: d.response_status,
        error_message: d.error_message,
        redelivery_of: d.redelivery_of,
        created_at: d.created_at.toISOString(),
      })),
  }))
}
