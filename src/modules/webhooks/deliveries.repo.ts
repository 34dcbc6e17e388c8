import { CompiledQuery, sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, WebhookDeliveryRow } from '../../db/schema.ts'

export const WAKE_CHANNEL = 'svc_webhook_deliveries'

/** NOTIFY is transactional: idle workers wake when the transaction commits, not before. */
async function wakeWorkers(trx: Database): Promise<void> {
  await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(trx)
}

/** A claimed attempt with what sending it needs: the event's body and the endpoint. */
export interface ClaimedDelivery {
  id: string
  event_id: string
  endpoint_id: string
  organization_id: string
  event_type: string
  /** Attempts made so far, this one included. */
  attempts: number
  /** The envelope, exactly as every attempt sends it. */
  body: string
  url: string
  /** The endpoint's pinned addresses, comma-separated (parsed only when its HTTP agent is built). */
  pinned_addresses: string
  secret_encrypted: string
  endpoint_active: boolean
}

/**
 * The worker's bookkeeping commits without waiting for the WAL to reach disk
 * (synchronous_commit off for the statement's own transaction; evaluated in the
 * statement, so no extra round trip). Safe for at-least-once delivery: a
 * database crash can lose the last fraction of a second of claims and results,
 * and those attempts are simply sent again. Orders, events and deliveries are
 * still written durably.
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`

/*
 * The worker's two statements run for every few dozen attempts, so they are
 * kept cheap on the Node side: constant SQL texts (no query building per
 * batch, and one prepared statement per connection) and array parameters
 * handed to the driver as literals written here in one pass, where the driver
 * would escape every element with regular expressions. Instants travel as
 * epoch milliseconds (a number per element, where an ISO string cost a Date
 * formatting each), the claim's rows carry the endpoint's pinned addresses as
 * one string (the worker parses them only when it builds the endpoint's HTTP
 * agent), and the claim turns off synchronous commit once, not once per row.
 */

const QUOTED = /["\\]/g
/**
 * An array literal. Plain elements (uuids, numbers, identifiers) need no
 * quoting; with `quote`, every element is quoted and its
 * `"` and `\\` escaped (any text).
 */
function arrayLiteral(values: readonly (string | number | null)[], quote = false): string {
  const element = (v: string | number | null) =>
    v === null ? 'NULL' : quote ? `"${String(v).replace(QUOTED, '\\$&')}"` : v
  return `{${values.map(element).join(',')}}`
}

/** The due attempts a claim may take: not excluded, not held by a live lease. */
const DUE = `
        next_attempt_at <= $2::timestamptz
          and (locked_until is null or locked_until < $2::timestamptz)
          and endpoint_id <> all($5::uuid[])`

const CLAIMED = `
      returning q.delivery_id, q.event_id, q.endpoint_id, q.attempts
    ),
    async_commit as materialized (select ${ASYNC_COMMIT})
    select c.delivery_id as id, c.event_id, c.endpoint_id, w.organization_id, c.attempts,
           e.type as event_type, e.body,
           w.url, array_to_string(w.pinned_addresses, ',') as pinned_addresses, w.secret_encrypted,
           w.is_active as endpoint_active
    from async_commit, claimed c
    join events e on e.id = c.event_id
    join webhook_endpoints w on w.id = c.endpoint_id`

const CLAIM_SQL = `
    with claimed as (
      update webhook_queue q
      set attempts = q.attempts + 1, locked_until = $3::timestamptz, locked_by = $4::text
      where q.delivery_id = any(array(
        select delivery_id from webhook_queue
        where ${DUE}
        order by next_attempt_at
        limit $1::int
        for update skip locked))
      ${CLAIMED}`

/**
 * The same claim, taking at most the given number of attempts for some
 * endpoints ($6, $7): of the oldest due attempts, those past an endpoint's
 * limit stay in the queue (locked only until the statement ends).
 */
const CLAIM_LIMITED_SQL = `
    with candidates as (
      select delivery_id, endpoint_id, next_attempt_at from webhook_queue
      where ${DUE}
      order by next_attempt_at
      limit $1::int
      for update skip locked
    ),
    picked as (
      select c.delivery_id
      from (
        select delivery_id, endpoint_id,
               row_number() over (partition by endpoint_id order by next_attempt_at) as n
        from candidates
      ) c
      left join unnest($6::uuid[], $7::int[]) as l(endpoint_id, most) on l.endpoint_id = c.endpoint_id
      where l.most is null or c.n <= l.most
    ),
    claimed as (
      update webhook_queue q
      set attempts = q.attempts + 1, locked_until = $3::timestamptz, locked_by = $4::text
      from picked p
      where q.delivery_id = p.delivery_id
      ${CLAIMED}`

/**
 * Claims due attempts: FOR UPDATE SKIP LOCKED lets any number of workers on one
 * database take disjoint queue rows, and the attempt counter is bumped in the
 * same statement. The lease (locked_until) hands an attempt whose worker died
 * back to the others once it runs out. The event's body and the endpoint come
 * back with the claim, so a batch costs one round trip. Attempts to the
 * endpoints in `exclude` (whose attempts already wait in the worker) are left
 * for later, so they do not crowd out the other endpoints' attempts.
 */
export async function claimDue(
  db: Database,
  input: {
    limit: number
    now: Date
    leaseMs: number
    workerId: string
    exclude?: readonly string[]
    /** The most attempts to take for these endpoints (the rest: as many as are due). */
    limits?: ReadonlyMap<string, number>
  },
): Promise<ClaimedDelivery[]> {
  if (input.limit <= 0) return []
  const lease = new Date(input.now.getTime() + input.leaseMs)
  const params: unknown[] = [
    input.limit,
    input.now.toISOString(),
    lease.toISOString(),
    input.workerId,
    arrayLiteral(input.exclude ?? []),
  ]
  const limited = input.limits !== undefined && input.limits.size > 0
  if (limited) params.push(arrayLiteral([...input.limits!.keys()]), arrayLiteral([...input.limits!.values()]))
  const result = await db.executeQuery<ClaimedDelivery>(
    CompiledQuery.raw(limited ? CLAIM_LIMITED_SQL : CLAIM_SQL, params),
  )
  return result.rows
}

/** The outcome of one attempt, as the worker records it. */
export interface AttemptResult {
  deliveryId: string
  endpointId: string
  status: 'succeeded' | 'pending' | 'failed'
  errorCode: string | null
  responseStatus: number | null
  snippet: string | null
  durationMs: number | null
  nextAttemptAt: Date | null
  /** When the attempt started (the log's last_attempt_at). */
  startedAt: Date
  /** When it ended (the endpoint's last_success_at or last_failure_at). */
  at: Date
  /**
   * Whether a request was made: it counts as an attempt and for the
   * endpoint's failure streak (not so a delivery failed because its endpoint
   * was disabled meanwhile).
   */
  counts: boolean
}

const RECORD_SQL = `
    with v as (
      select id, endpoint_id, status, error_code, response_status, snippet, duration_ms,
             timestamptz 'epoch' + next_ms * interval '1 millisecond' as next_attempt_at,
             timestamptz 'epoch' + started_ms * interval '1 millisecond' as started_at,
             timestamptz 'epoch' + at_ms * interval '1 millisecond' as at,
             counts, seq
      from unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::text[], $8::int[],
                  $9::int8[], $10::int8[], $11::int8[], $12::boolean[])
        with ordinality
        as u(id, endpoint_id, status, error_code, response_status, snippet, duration_ms, next_ms,
             started_ms, at_ms, counts, seq)
    ),
    finished as (
      delete from webhook_queue q
      using v
      where q.delivery_id = v.id and q.locked_by = $1::text and v.next_attempt_at is null
      returning q.delivery_id, q.attempts
    ),
    retried as (
      update webhook_queue q
      set next_attempt_at = v.next_attempt_at, locked_until = null, locked_by = null
      from v
      where q.delivery_id = v.id and q.locked_by = $1::text and v.next_attempt_at is not null
      returning q.delivery_id, q.attempts
    ),
    recorded as (
      update webhook_deliveries d
      set status = v.status, error_code = v.error_code, response_status = v.response_status,
          response_snippet = v.snippet, duration_ms = v.duration_ms, next_attempt_at = v.next_attempt_at,
          attempts = case when v.counts then q.attempts else q.attempts - 1 end,
          last_attempt_at = case when v.counts then v.started_at else d.last_attempt_at end
      from (select * from finished union all select * from retried) q
      join v on v.id = q.delivery_id
      where d.id = q.delivery_id
      returning v.endpoint_id, v.seq, v.status, v.at, v.counts
    ),
    ordered as (
      select r.*, coalesce(max(seq) filter (where status = 'succeeded') over (partition by endpoint_id), -1)
        as last_ok
      from recorded r
      where counts
    ),
    streaks as (
      select endpoint_id,
        bool_or(status = 'succeeded') as reset,
        count(*) filter (where status <> 'succeeded' and seq > last_ok) as failures,
        max(at) filter (where status = 'succeeded') as last_success,
        max(at) filter (where status <> 'succeeded') as last_failure
      from ordered
      group by endpoint_id
    ),
    endpoints as (
      update webhook_endpoints w
      set consecutive_failures = case when s.reset then s.failures else w.consecutive_failures + s.failures end,
          last_success_at = coalesce(s.last_success, w.last_success_at),
          last_failure_at = coalesce(s.last_failure, w.last_failure_at)
      from streaks s
      where w.id = s.endpoint_id
      returning w.id, w.is_active, w.consecutive_failures
    )
    select (select ${ASYNC_COMMIT}) as async_commit,
      array(select id from endpoints where is_active and consecutive_failures >= $13::int) as ids`

/**
 * Records a batch of attempt results in ONE statement: the queue rows this
 * worker still holds are deleted (delivery finished) or moved to their next
 * attempt, their log rows take the result, and each endpoint's failure streak
 * moves with them (a success resets it, failures after the last success add
 * up), computed against the endpoint row as it stands when the statement
 * locks it, so workers recording results for one endpoint at the same time
 * add up correctly. Returns the active endpoints whose streak reached
 * `disableAfter`.
 */
export async function recordResults(
  db: Database,
  workerId: string,
  results: AttemptResult[],
  disableAfter: number,
): Promise<string[]> {
  if (results.length === 0) return []
  const col = (f: (r: AttemptResult) => string | number | null, quote = false) =>
    arrayLiteral(results.map(f), quote)
  const outcome = await db.executeQuery<{ async_commit: string; ids: string[] }>(
    CompiledQuery.raw(RECORD_SQL, [
      workerId,
      col((r) => r.deliveryId),
      col((r) => r.endpointId),
      col((r) => r.status),
      col((r) => r.errorCode, true),
      col((r) => r.responseStatus),
      col((r) => r.snippet, true),
      col((r) => r.durationMs),
      col((r) => r.nextAttemptAt?.getTime() ?? null),
      col((r) => r.startedAt.getTime()),
      col((r) => r.at.getTime()),
      col((r) => (r.counts ? 't' : 'f')),
      disableAfter,
    ]),
  )
  const disable = outcome.rows[0]!.ids
  if (disable.length > 0) {
    const at = results[results.length - 1]!.at
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhook_endpoints')
        .set({ is_active: false, disabled_reason: 'too_many_failures', disabled_at: at })
        .where('id', 'in', disable)
        .where('is_active', '=', true)
        .execute()
      for (const id of disable) await failPendingForEndpoint(trx, id)
    })
  }
  return disable
}

/**
 * When the next queued attempt (to an endpoint not in `exclude`) falls due, to
 * sleep exactly until then. Attempts held by a live lease (in flight here or
 * at another worker) are not due: a lease that runs out is noticed by polling.
 */
export async function nextDueAt(
  db: Database,
  now: Date,
  exclude: readonly string[] = [],
): Promise<Date | undefined> {
  const row = await db
    .selectFrom('webhook_queue')
    .select((eb) => eb.fn.min('next_attempt_at').as('next'))
    .where(sql<boolean>`endpoint_id <> all(${arrayLiteral(exclude)}::uuid[])`)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .executeTakeFirst()
  return (row?.next as Date | null) ?? undefined
}

/** Gives claims back untouched (shutdown): the attempt did not happen. */
export async function releaseClaims(db: Database, ids: string[], workerId: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('webhook_queue')
    .set({ attempts: sql`greatest(attempts - 1, 0)`, locked_until: null, locked_by: null })
    .where('delivery_id', 'in', ids)
    .where('locked_by', '=', workerId)
    .execute()
}

/** Queues the first attempt of a new pending delivery (a manual redelivery), due at once. */
export async function enqueue(
  trx: Database,
  delivery: { id: string; event_id: string; endpoint_id: string },
  at: Date,
): Promise<void> {
  await trx
    .insertInto('webhook_queue')
    .values({
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      endpoint_id: delivery.endpoint_id,
      next_attempt_at: at,
      attempts: 0,
    })
    .execute()
  await wakeWorkers(trx)
}

/**
 * Pending deliveries of an endpoint that was disabled or deleted fail for
 * good: their queue rows go (a worker holding one records nothing for it), and
 * their log rows say why.
 */
export async function failPendingForEndpoint(trx: Database, endpointId: string): Promise<void> {
  await sql`
    with dropped as (
      delete from webhook_queue where endpoint_id = ${endpointId}::uuid returning delivery_id
    )
    update webhook_deliveries d
    set status = 'failed', error_code = 'endpoint_disabled', next_attempt_at = null
    from dropped
    where d.id = dropped.delivery_id and d.status = 'pending'`.execute(trx)
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
