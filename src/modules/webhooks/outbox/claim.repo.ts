import { CompiledQuery } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { ASYNC_COMMIT, arrayLiteral } from './literals.ts'

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
  /** The secret before a rotation, sealed, and when it stops signing (epoch ms); null without one. */
  previous_secret_encrypted: string | null
  previous_secret_expires_ms: number | null
  endpoint_active: boolean
  /** The traceparent of the request that wrote the event, and of the one that asked for this entry (a redelivery or replay). */
  event_trace_context: string | null
  delivery_trace_context: string | null
}

/** Attempts that are due and not held by a live lease. */
const FREE = `
        next_attempt_at <= $2::timestamptz
          and (locked_until is null or locked_until < $2::timestamptz)`

/**
 * The due attempts a claim may take: free, not excluded, and of an endpoint
 * whose last attempt did not fail (a failing endpoint's go one at a time, as
 * probes), or a redelivery (asked for by a person, it goes at once). The
 * list of failing endpoints is read once per statement.
 */
const DUE = `${FREE}
          and endpoint_id <> all($5::uuid[])
          and (redelivery
            or endpoint_id <> all(array(select id from webhook_endpoints where next_probe_at is not null)))`

/**
 * One probe per failing endpoint whose probe is due: the endpoint's
 * next_probe_at moves to the end of the lease in the same statement (so no
 * other claim, here or at another worker, starts a second one meanwhile; a
 * result sets it again), and its free attempt with the most attempts made
 * goes: the delivery whose retry made the probe due, else the oldest.
 */
const PROBES = `
    probing as (
      update webhook_endpoints w
      set next_probe_at = $3::timestamptz
      where w.next_probe_at <= $2::timestamptz and w.is_active and w.id <> all($5::uuid[])
        and exists (select 1 from webhook_queue where endpoint_id = w.id and ${FREE})
      returning w.id
    ),
    probes as (
      select p.delivery_id
      from probing o
      cross join lateral (
        select delivery_id from webhook_queue
        where endpoint_id = o.id and ${FREE}
        order by attempts desc, next_attempt_at
        limit 1
        for update skip locked
      ) p
    ),`

const CLAIMED = `
      returning q.delivery_id, q.event_id, q.endpoint_id, q.attempts
    ),
    async_commit as materialized (select ${ASYNC_COMMIT})
    select c.delivery_id as id, c.event_id, c.endpoint_id, w.organization_id, c.attempts,
           e.type as event_type, e.body,
           w.url, array_to_string(w.pinned_addresses, ',') as pinned_addresses, w.secret_encrypted,
           w.previous_secret_encrypted,
           (extract(epoch from w.previous_secret_expires_at) * 1000)::float8 as previous_secret_expires_ms,
           w.is_active as endpoint_active,
           e.trace_context as event_trace_context, d.trace_context as delivery_trace_context
    from async_commit, claimed c
    join events e on e.id = c.event_id
    join webhook_endpoints w on w.id = c.endpoint_id
    join webhook_deliveries d on d.id = c.delivery_id`

const CLAIM_SQL = `
    with ${PROBES}
    picked as (
      select delivery_id from webhook_queue
      where ${DUE}
      order by next_attempt_at
      limit $1::int
      for update skip locked
    ),
    claimed as (
      update webhook_queue q
      set attempts = q.attempts + 1, locked_until = $3::timestamptz, locked_by = $4::text
      where q.delivery_id = any(array(select delivery_id from picked union all select delivery_id from probes))
      ${CLAIMED}`

/**
 * The same claim, taking at most the given number of attempts for some
 * endpoints ($6, $7): of the oldest due attempts, those past an endpoint's
 * limit stay in the queue (locked only until the statement ends).
 */
const CLAIM_LIMITED_SQL = `
    with ${PROBES}
    candidates as (
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
      union all select delivery_id from probes
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
 * for later, so they do not crowd out the other endpoints' attempts. An
 * endpoint whose last attempt failed gets one attempt at a time, at its
 * next_probe_at (PROBES above), besides the `limit`; its other attempts wait
 * unclaimed and uncounted.
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
