/**
 * The webhook outbox: the one module that writes `events` (and their
 * per-order sequence, `order_event_counters`), `webhook_deliveries`,
 * `webhook_queue` and `webhook_attempts`, and notifies the wake channel.
 * Producers (orders, production, the webhooks service) use this file; the
 * worker uses one file per queue operation: claim.repo.ts, complete.repo.ts,
 * next-due.repo.ts, release.repo.ts.
 */
import type { Database } from '../../../db/database.ts'
import type { WebhookDeliveryRow } from '../../../db/schema.ts'
import { newId } from '../../../lib/ids.ts'
import type { NewEventInput, RecordedEvent } from './events.ts'
import { insertDelivery, insertEvent } from './outbox.repo.ts'

export {
  EVENT_TYPES,
  type EventOrder,
  type EventType,
  eventData,
  type NewEventInput,
  type RecordedEvent,
} from './events.ts'
export {
  type DeliveryFilter,
  ENDPOINT_DISABLED_MESSAGE,
  failPendingDeliveries,
  findDelivery,
  findEventBody,
  listAttempts,
  listDeliveries,
  notifyReplays,
  notifySample,
  outboxCtes,
  outboxWake,
  REPLAYS_CHANNEL,
  SAMPLES_CHANNEL,
  WAKE_CHANNEL,
} from './outbox.repo.ts'

/**
 * Writes an event into the outbox with one pending delivery per active
 * endpoint (or to `input.endpointId` only). Callers pass the transaction that
 * makes the change the event reports, so the event exists exactly when the
 * change does; a change made in one statement embeds `outboxCtes()` instead.
 * Delivery reads the outbox and never runs inside a request.
 */
export async function recordEvent(trx: Database, input: NewEventInput): Promise<RecordedEvent> {
  const id = newId()
  const data = await insertEvent(trx, id, input)
  return { id, type: input.type, created_at: input.at, data }
}

/**
 * A new pending log entry for the same event and endpoint, its attempt due at
 * once (a manual redelivery); it remembers the entry it repeats, whose retries
 * its success ends (complete.repo.ts).
 */
export async function enqueueRedelivery(
  db: Database,
  original: WebhookDeliveryRow,
  at: Date,
  /** Also written in the redelivery's transaction (the dashboard's audit entry). */
  alongside?: (trx: Database, row: WebhookDeliveryRow) => Promise<void>,
): Promise<WebhookDeliveryRow> {
  return db.transaction().execute(async (trx) => {
    const row = await insertDelivery(trx, original, newId(), at, original.id)
    await alongside?.(trx, row)
    return row
  })
}
