import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type {
  DB,
  DeliveryStatus,
  Environment,
  WebhookAttemptRow,
  WebhookDeliveryRow,
} from '../../../db/schema.ts'
import { EMPTY, raw, run, type Statement, stmt } from '../../../db/statement.ts'
import { activeTraceparent } from '../../../telemetry/tracing.ts'
import { eventBody, type NewEventInput, sequencedEvent } from './events.ts'

/** The channel idle workers LISTEN on; NOTIFY is transactional, so they wake when the writer commits. */
export const WAKE_CHANNEL = 'svc_webhook_deliveries'
/** Sample events of POST /v1/webhook-events/trigger travel on this channel, with their body. */
export const SAMPLES_CHANNEL = 'svc_webhook_samples'
/** The channel replay feeders wake on: a replay was requested. */
export const REPLAYS_CHANNEL = 'svc_webhook_replays'

/**
 * The outbox write as common table expressions, to be embedded in the
 * statement that makes the change: `outbox_event` inserts the event (with the
 * body every delivery of it sends) when the CTE named by `gate` has a row (at
 * most one), `outbox_deliveries` fans it out to one pending delivery per
 * active endpoint of the organization and environment whose enabled_events
 * take the event's type (a ping goes to its one endpoint whatever it lists),
 * and `outbox_queue` queues each delivery's first attempt. An order's
 * `order.received`, written by the statement that creates the order, is its
 * first event: sequence 1, and no counter row yet. Any later event of the
 * order first counts itself in `outbox_sequence`: the upsert of the order's
 * counter row (starting at 2) returns its per-order sequence, and concurrent
 * writers of the same order wait on that row, so each gets the next number.
 * Callers end their
 * statement with `outboxWake()` so idle workers wake on commit. One statement
 * keeps change, event and deliveries atomic without a transaction round trip.
 */
export function outboxCtes(eventId: string, input: NewEventInput, gate: string): Statement {
  const onlyEndpoint = input.endpointId ? stmt`and w.id = ${input.endpointId}::uuid` : EMPTY
  const filter = input.type === 'ping' ? EMPTY : stmt`and w.enabled_events && array['*', ${input.type}::text]`
  const event = { id: eventId, type: input.type, created_at: input.at, data: input.data }
  let source: Statement
  let values: Statement
  const first = input.type === 'order.received'
  if (input.orderId === null) {
    source = stmt`${raw(gate)}`
    values = stmt`${JSON.stringify(input.data)}::json, ${eventBody(event)}::text`
  } else if (first) {
    const parts = sequencedEvent(event)
    source = stmt`${raw(gate)}`
    values = stmt`${`${parts.data[0]}1${parts.data[1]}`}::json, ${`${parts.body[0]}1${parts.body[1]}`}::text`
  } else {
    const parts = sequencedEvent(event)
    source = stmt`outbox_sequence s`
    values = stmt`(${parts.data[0]}::text || s.last_sequence || ${parts.data[1]}::text)::json,
             ${parts.body[0]}::text || s.last_sequence || ${parts.body[1]}::text`
  }
  const sequence =
    input.orderId === null || first
      ? EMPTY
      : stmt`outbox_sequence as (
      insert into order_event_counters (order_id, last_sequence)
      select ${input.orderId}::uuid, 2 from ${raw(gate)}
      on conflict (order_id) do update set last_sequence = order_event_counters.last_sequence + 1
      returning last_sequence
    ),`
  return stmt`
    ${sequence}
    outbox_event as (
      insert into events (id, organization_id, environment, type, order_id, data, body, created_at, trace_context)
      select ${eventId}::uuid, ${input.organizationId}::uuid, ${input.environment}::text, ${input.type}::text,
             ${input.orderId}::uuid, ${values}, ${input.at}::timestamptz, ${activeTraceparent()}::text
      from ${source}
      returning id, data
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
        and w.is_active ${onlyEndpoint} ${filter}
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
 * deliveries. Only then: a transaction that notifies takes one lock shared by
 * every database session at commit, so an event without deliveries (most
 * orders of organizations without endpoints) must not wait for others' commits.
 * Listen streams read new events on a short tick instead (event-feed.ts).
 */
export function outboxWake(): Statement {
  return stmt`(select count(pg_notify(${WAKE_CHANNEL}, '')) from (select 1 where exists (select 1 from outbox_queue)) w)`
}

/** Wakes the idle workers when the transaction commits (an attempt fell due now). */
export async function wakeWorkers(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(trx)
}

/** Wakes the workers' replay feeders when the transaction commits (a replay was requested). */
export async function notifyReplays(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_notify(${REPLAYS_CHANNEL}, '')`.execute(trx)
}

/** Sends a sample event to every instance's listen streams at once (no transaction; nothing stored). */
export async function notifySample(db: Database, payload: string): Promise<void> {
  await sql`select pg_notify(${SAMPLES_CHANNEL}, ${payload})`.execute(db)
}

/** The event, its deliveries and their first attempts, in one statement of its own; returns its data as stored. */
export async function insertEvent(
  db: Database,
  eventId: string,
  input: NewEventInput,
): Promise<Record<string, unknown>> {
  const rows = await run<{ data: Record<string, unknown> }>(
    db,
    stmt`
    with gate as (select 1), ${outboxCtes(eventId, input, 'gate')}
    select (select data from outbox_event) as data, ${outboxWake()} as woke`,
  )
  return rows[0]!.data
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
      // The request that asked for it: the attempts run in its trace (docs/operations.md, Traces).
      trace_context: activeTraceparent(),
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
      redelivery: redeliveryOf !== null,
    })
    .execute()
  await wakeWorkers(trx)
  return inserted
}

/** The error_message of a delivery failed because its endpoint was disabled or deleted. */
export const ENDPOINT_DISABLED_MESSAGE = 'the endpoint was disabled or deleted; it receives nothing further'

/**
 * Pending deliveries of an endpoint that was disabled or deleted fail for
 * good: their queue rows go (a worker holding one records nothing for it), and
 * their log rows say why.
 */
export async function failPendingDeliveries(
  trx: Transaction<DB>,
  endpointId: string,
  at: Date,
): Promise<void> {
  await sql`
    with dropped as (
      delete from webhook_queue where endpoint_id = ${endpointId}::uuid returning delivery_id
    ),
    failed as (
      update webhook_deliveries d
      set status = 'failed', error_code = 'endpoint_disabled', error_message = ${ENDPOINT_DISABLED_MESSAGE},
          next_attempt_at = null
      from dropped
      where d.id = dropped.delivery_id and d.status = 'pending'
      returning d.organization_id, d.environment
    )
    insert into webhook_outcome_changes (organization_id, environment, day, succeeded, failed)
    select organization_id, environment, ${at.toISOString().slice(0, 10)}::date, 0, count(*)
    from failed
    group by 1, 2`.execute(trx)
}

/** The delivery with this id, whoever it belongs to: the caller compares. */
export async function findDelivery(db: Database, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst()
}

/** What the delivery log can be narrowed to; every filter is optional and they combine. */
export interface DeliveryFilter {
  organizationId?: string
  environment?: Environment
  endpointId?: string
  status?: DeliveryStatus
  eventType?: string
  eventId?: string
  /** The deliveries of this order's events. */
  orderId?: string
  /** created_at >= createdSince */
  createdSince?: Date
  /** created_at < createdUntil */
  createdUntil?: Date
  /** Only entries after this one in the page order: the next page. */
  before?: { createdAt: Date; id: string }
  limit: number
}

/** Log entries, newest first (id descending). */
export async function listDeliveries(db: Database, filter: DeliveryFilter): Promise<WebhookDeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries as d').selectAll('d')
  if (filter.organizationId) query = query.where('d.organization_id', '=', filter.organizationId)
  if (filter.environment) query = query.where('d.environment', '=', filter.environment)
  if (filter.endpointId) query = query.where('d.endpoint_id', '=', filter.endpointId)
  if (filter.status) query = query.where('d.status', '=', filter.status)
  // Pending entries are the ones with a queue row: the small queue table finds
  // them without an index on status (which every result would have to update).
  if (filter.status === 'pending') {
    query = query.where('d.id', 'in', db.selectFrom('webhook_queue').select('delivery_id'))
  }
  if (filter.eventType) query = query.where('d.event_type', '=', filter.eventType)
  if (filter.eventId) query = query.where('d.event_id', '=', filter.eventId)
  if (filter.orderId) {
    const events = db.selectFrom('events').select('id').where('order_id', '=', filter.orderId)
    query = query.where('d.event_id', 'in', events)
  }
  if (filter.createdSince) query = query.where('d.created_at', '>=', filter.createdSince)
  if (filter.createdUntil) query = query.where('d.created_at', '<', filter.createdUntil)
  if (!filter.createdSince && !filter.createdUntil) {
    if (filter.before) query = query.where('d.id', '<', filter.before.id)
    return query.orderBy('d.id', 'desc').limit(filter.limit).execute()
  }
  // A window walks its created_at index (ids grow with created_at, which the
  // planner cannot know: by id it would walk the newer part of the log first).
  if (filter.before) {
    query = query.where(
      sql`(d.created_at, d.id)`,
      '<',
      sql`(${filter.before.createdAt}::timestamptz, ${filter.before.id}::uuid)`,
    )
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(filter.limit).execute()
}

/** An event's envelope as its deliveries send it (the exact bytes signed), or undefined. */
export async function findEventBody(
  db: Database,
  id: string,
): Promise<
  { id: string; type: string; created_at: Date; body: string; order_erased_at: Date | null } | undefined
> {
  return db
    .selectFrom('events as e')
    .leftJoin('orders as o', 'o.id', 'e.order_id')
    .select(['e.id', 'e.type', 'e.created_at', 'e.body', 'o.erased_at as order_erased_at'])
    .where('e.id', '=', id)
    .executeTakeFirst()
}

/** The attempts made for a delivery, oldest first. */
export async function listAttempts(db: Database, deliveryId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt')
    .execute()
}
