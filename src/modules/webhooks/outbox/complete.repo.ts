import { CompiledQuery } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { ASYNC_COMMIT, arrayLiteral } from './literals.ts'

/** The outcome of one attempt, as the worker records it. */
export interface AttemptResult {
  deliveryId: string
  endpointId: string
  status: 'succeeded' | 'pending' | 'failed'
  errorCode: string | null
  /** The error in words; null after success. */
  errorMessage: string | null
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
  /**
   * A failed attempt that counts: when its endpoint's next probe may start
   * (its retry, or after the first delay when it has none left); else null.
   */
  probeAt: Date | null
  /** The signature's t (unix seconds) of the request sent; null when none was. */
  signedAt: number | null
  /** The attempt's trace id while traces are on; else null. */
  traceId: string | null
}

const COMPLETE_SQL = `
    with v as (
      select id, endpoint_id, status, error_code, error_message, response_status, snippet, duration_ms,
             timestamptz 'epoch' + next_ms * interval '1 millisecond' as next_attempt_at,
             timestamptz 'epoch' + started_ms * interval '1 millisecond' as started_at,
             timestamptz 'epoch' + at_ms * interval '1 millisecond' as at,
             timestamptz 'epoch' + probe_ms * interval '1 millisecond' as probe_at,
             counts, signed_at, trace_id, seq
      from unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::int[], $7::text[], $8::int[],
                  $9::int8[], $10::int8[], $11::int8[], $12::boolean[], $14::text[], $15::int8[], $16::int[],
                  $17::text[])
        with ordinality
        as u(id, endpoint_id, status, error_code, response_status, snippet, duration_ms, next_ms,
             started_ms, at_ms, counts, error_message, probe_ms, signed_at, trace_id, seq)
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
      set status = v.status, error_code = v.error_code, error_message = v.error_message,
          response_status = v.response_status,
          response_snippet = v.snippet, duration_ms = v.duration_ms, next_attempt_at = v.next_attempt_at,
          attempts = case when v.counts then q.attempts else q.attempts - 1 end,
          last_attempt_at = case when v.counts then v.started_at else d.last_attempt_at end
      from (select * from finished union all select * from retried) q
      join v on v.id = q.delivery_id
      where d.id = q.delivery_id
      returning v.endpoint_id, v.seq, v.status, v.at, v.probe_at, v.counts, d.id, d.redelivery_of,
        d.organization_id, d.environment, v.next_attempt_at is null as settled
    ),
    cancelled as (
      delete from webhook_queue q
      using recorded r
      where r.status = 'succeeded' and r.redelivery_of is not null and q.delivery_id = r.redelivery_of
        and q.delivery_id <> all($2::uuid[])
      returning q.delivery_id, r.id as by, r.at
    ),
    superseded as (
      update webhook_deliveries d
      set status = 'failed', next_attempt_at = null, superseded_by = c.by
      from cancelled c
      where d.id = c.delivery_id and d.status = 'pending'
      returning d.organization_id, d.environment, c.at
    ),
    settled as (
      insert into webhook_outcome_changes (organization_id, environment, day, succeeded, failed)
      select organization_id, environment, (at at time zone 'UTC')::date,
        count(*) filter (where status = 'succeeded'), count(*) filter (where status = 'failed')
      from (
        select organization_id, environment, at, status from recorded
        where settled and status in ('succeeded', 'failed')
        union all
        select organization_id, environment, at, 'failed' from superseded
      ) s
      group by 1, 2, 3
    ),
    attempts_log as (
      insert into webhook_attempts
        (delivery_id, attempt, started_at, duration_ms, response_status, response_snippet, error_code,
         error_message, signature_timestamp, trace_id)
      select q.delivery_id, q.attempts, v.started_at, v.duration_ms, v.response_status, v.snippet,
             v.error_code, v.error_message, v.signed_at, v.trace_id
      from (select * from finished union all select * from retried) q
      join v on v.id = q.delivery_id
      where v.counts
      on conflict do nothing
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
        max(at) filter (where status <> 'succeeded') as last_failure,
        max(probe_at) filter (where status <> 'succeeded' and seq > last_ok) as probe_at
      from ordered
      group by endpoint_id
    ),
    endpoints as (
      update webhook_endpoints w
      set consecutive_failures = case when s.reset then s.failures else w.consecutive_failures + s.failures end,
          last_success_at = coalesce(s.last_success, w.last_success_at),
          last_failure_at = coalesce(s.last_failure, w.last_failure_at),
          next_probe_at = s.probe_at,
          is_active = w.is_active and
            (case when s.reset then s.failures else w.consecutive_failures + s.failures end) < $13::int,
          disabled_reason = case
            when w.is_active and (case when s.reset then s.failures else w.consecutive_failures + s.failures end)
              >= $13::int then 'too_many_failures' else w.disabled_reason end,
          disabled_at = case
            when w.is_active and (case when s.reset then s.failures else w.consecutive_failures + s.failures end)
              >= $13::int then s.last_failure else w.disabled_at end
      from streaks s
      where w.id = s.endpoint_id
      returning w.id, w.is_active, w.disabled_reason, w.consecutive_failures, s.reset, s.failures
    )
    select (select ${ASYNC_COMMIT}) as async_commit,
      array(
        select id from endpoints
        where not is_active and disabled_reason = 'too_many_failures' and consecutive_failures >= $13::int
          and (reset or consecutive_failures - failures < $13::int)
      ) as ids`

/**
 * Records a batch of attempt results in ONE statement: the queue rows this
 * worker still holds are deleted (delivery finished) or moved to their next
 * attempt, and their log rows take the result. The endpoints' failure streaks
 * move in the same statement (a success resets one, failures after the last
 * success add up), computed against the endpoint row as it stands when the
 * statement locks it, so workers recording results for one endpoint at the
 * same time add up correctly: the one write outside the outbox's tables, to
 * keep a batch one round trip. Each attempt made (not one whose endpoint
 * was disabled meanwhile) also becomes a row of the attempt history. A redelivery that succeeded ends the retries
 * of the entry it repeats: that entry's queue row goes (a worker holding it
 * records nothing for it, as for a disabled endpoint) and its log row turns
 * `failed` with `superseded_by` set, unless its own result is in the same
 * batch. In the common case no result is a redelivery's, and those two steps
 * read only the batch. An active endpoint whose streak reaches `disableAfter`
 * is disabled by the same statement, so no claim can see it active after its
 * last allowed failure is stored; returns the endpoints this statement
 * disabled (the webhooks module fails their pending deliveries). The same
 * update opens an endpoint's circuit (next_probe_at: the latest failure's
 * probeAt, when failures follow its last success in the batch) or closes it
 * (null, after a success). See docs/decisions/2026-11-28-webhook-circuit-breaker.md and
 * docs/decisions/2026-11-26-webhook-redelivery-cancels-retry.md.
 */
export async function completeAttempts(
  db: Database,
  workerId: string,
  results: readonly AttemptResult[],
  disableAfter: number,
): Promise<string[]> {
  if (results.length === 0) return []
  const col = (f: (r: AttemptResult) => string | number | null, quote = false) =>
    arrayLiteral(results.map(f), quote)
  const outcome = await db.executeQuery<{ async_commit: string; ids: string[] }>(
    CompiledQuery.raw(COMPLETE_SQL, [
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
      col((r) => r.errorMessage, true),
      col((r) => r.probeAt?.getTime() ?? null),
      col((r) => r.signedAt),
      col((r) => r.traceId, true),
    ]),
  )
  return outcome.rows[0]!.ids
}
