import type { DeliveryStatus, WebhookAttemptRow } from '../../../db/schema.ts'
import { cursorCodec, keysetPage, type Page } from '../../../http/pagination.ts'
import { createdWindow } from '../../../http/query-timestamps.ts'
import type { DeliveryFilter } from '../outbox/outbox.service.ts'

/** GET /webhook-deliveries's query (both APIs); see deliveries.schemas.ts for the schema. */
export interface DeliveryLogQuery {
  endpoint_id?: string | undefined
  limit?: number | undefined
  status?: DeliveryStatus | undefined
  event_type?: string | undefined
  event_id?: string | undefined
  order_id?: string | undefined
  created_since?: string | undefined
  created_until?: string | undefined
  cursor?: string | undefined
}

export const DEFAULT_LOG_LIMIT = 25

/** The log's cursor: a version tag, the last entry's created_at and id. */
const LOG_CURSOR = cursorCodec('d1.')

/**
 * The query's filters as the log's repository takes them, one entry more than
 * the page shows (to tell whether there is a next page). The schema has
 * checked each value; what it cannot check is the window and the cursor.
 */
export function logFilter(query: DeliveryLogQuery): DeliveryFilter {
  const { since, until } = createdWindow(query)
  const cursor = query.cursor === undefined ? undefined : LOG_CURSOR.decode(query.cursor)
  const before = cursor && { createdAt: cursor.at, id: cursor.id }
  return {
    ...(query.endpoint_id !== undefined ? { endpointId: query.endpoint_id } : {}),
    ...(query.status !== undefined ? { status: query.status } : {}),
    ...(query.event_type !== undefined ? { eventType: query.event_type } : {}),
    ...(query.event_id !== undefined ? { eventId: query.event_id } : {}),
    ...(query.order_id !== undefined ? { orderId: query.order_id } : {}),
    ...(since ? { createdSince: since } : {}),
    ...(until ? { createdUntil: until } : {}),
    ...(before ? { before } : {}),
    limit: (query.limit ?? DEFAULT_LOG_LIMIT) + 1,
  }
}

/** A page of entries from the rows fetched by logFilter's limit: the cursor points past the last shown. */
export function logPage<Row extends { id: string; created_at: Date }, View>(
  rows: Row[],
  limit: number,
  view: (row: Row) => View,
): Page<View> {
  return keysetPage(rows, limit, {
    view,
    cursor: (row) => LOG_CURSOR.encode({ at: row.created_at, id: row.id }),
  })
}

/** One attempt of a delivery's history. */
export function attemptView(row: WebhookAttemptRow) {
  return {
    attempt: row.attempt,
    started_at: row.started_at.toISOString(),
    duration_ms: row.duration_ms,
    response_status: row.response_status,
    response_snippet: row.response_snippet,
    error_code: row.error_code,
    error_message: row.error_message,
  }
}
