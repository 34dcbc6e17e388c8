import { type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, Environment, WebhookDeliveryRow } from '../../../db/schema.ts'
import { eventBody, type NewEventInput } from './events.ts'

/** The channel idle workers LISTEN on; NOTIFY is transactional, so they wake when the writer commits. */
export const WAKE_CHANNEL = 'svc_webhook_deliveries'
/** The channel listen streams wake on: an event was committed (with or without deliveries). */
export const EVENTS_CHANNEL = 'svc_webhook_events'
/** Sample events of POST /v1/webhook-events/trigger travel on this channel, with their body. */
export const SAMPLES_CHANNEL = 'svc_webhook_samples'
/** The channel replay feeders wake on: a replay was requested. */
export const REPLAYS_CHANNEL = 'svc_webhook_replays'

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
  const body = eventBody({ id: eventId, type: input.type, created_at: input.at, data: input.data })
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

/**
 * NOTIFY (delivered on commit) the workers when the statement enqueued
 * deliveries, and the listen streams when it wrote an event; an aggregate, so
 * both notifications are evaluated in one expression.
 */
export function outboxWake(): RawBuilder<unknown> {
  return sql`(select count(pg_notify(channel, '')) from unnest(array[
      case when exists (select 1 from outbox_queue) then ${WAKE_CHANNEL}::text end,
      case when exists (select 1 from outbox_event) then ${EVENTS_CHANNEL}::text end]) channel
    where channel is not null)`
}

/** Wakes the workers' replay feeders when the transaction commits (a replay was requested). */
export async function notifyReplays(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_notify(${REPLAYS_CHANNEL}, '')`.execute(trx)
}

/** Sends a sample event to every instance's listen streams at once (no transaction; nothing stored). */
export async function notifySample(db: Database, payload: string): Promise<void> {
  await sql`select pg_notify(${SAMPLES_CHANNEL}, ${payload})`.execute(db)
}

/** The event, its deliveries and their first attempts, in one statement of its own. */
export async function insertEvent(db: Database, eventId: string, input: NewEventInput): Promise<void> {
  await sql`with gate as (select 1), ${outboxCtes(eventId, input, 'gate')} select ${outboxWake()}`.execute(db)
}

/**
 * A new pending log entry for an event and endpoint, its first attempt due at
 * `at`, and a wake-up; with `redeliveryOf`, a redelivery of that entry.
 */
export async function insertDelivery(
  trx: Transaction<DB>,
  of: Pick<WebhookDeliveryRow, 'event_id' | 'endpoint_id' | 'organization_id' | 'environment' | 'event_type'>,
  id: string,
  at: Date,
  redeliveryOf: string | null = null,
): Promise<WebhookDeliveryRow> {
  const inserted = await trx
    .insertInto('webhook_deliveries')
    .values({
      id,
      event_id: of.event_id,
      endpoint_id: of.endpoint_id,
      organization_id: of.organization_id,
      environment: of.environment,
      event_type: of.event_type,
      status: 'pending',
      attempts: 0,
      next_attempt_at: at,
      created_at: at,
      redelivery_of: redeliveryOf,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  await trx
    .insertInto('webhook_queue')
    .values({
      delivery_id: inserted.id,
      event_id: inserted.event_id,
      endpoint_id: inserted.endpoint_id,
      next_attempt_at: at,
      attempts: 0,
    })
    .execute()
  await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(trx)
  return inserted
}

/**
 * Pending deliveries of an endpoint that was disabled or deleted fail for
 * good: their queue rows go (a worker holding one records nothing for it), and
 * their log rows say why.
 */
export async function failPendingDeliveries(trx: Transaction<DB>, endpointId: string): Promise<void> {
  await sql`
    with dropped as (
      delete from webhook_queue where endpoint_id = ${endpointId}::uuid returning delivery_id
    )
    update webhook_deliveries d
    set status = 'failed', error_code = 'endpoint_disabled', next_attempt_at = null
    from dropped
    where d.id = dropped.delivery_id and d.status = 'pending'`.execute(trx)
}

/** A log entry; with `scope`, only one of that organization and environment. */
export async function findDelivery(
  db: Database,
  id: string,
  scope?: { organizationId: string; environment: Environment },
): Promise<WebhookDeliveryRow | undefined> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id)
  if (scope) {
    query = query
      .where('organization_id', '=', scope.organizationId)
      .where('environment', '=', scope.environment)
  }
  return query.executeTakeFirst()
}

export async function listDeliveries(
  db: Database,
  filter: { organizationId?: string; environment?: Environment; endpointId?: string; limit: number },
): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll()
  if (filter.organizationId) query = query.where('organization_id', '=', filter.organizationId)
  if (filter.environment) query = query.where('environment', '=', filter.environment)
  if (filter.endpointId) query = query.where('endpoint_id', '=', filter.endpointId)
  return query.orderBy('id', 'desc').limit(filter.limit).execute()
}
