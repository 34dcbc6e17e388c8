import { CompiledQuery, sql } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { ReplayStatus } from '../../../db/schema.ts'
import { WAKE_CHANNEL } from './outbox.repo.ts'

/**
 * One feeding step of a replay, in one statement: the replay's row is locked
 * (skipped when another instance's feeder holds it), its deliveries fed
 * earlier that are still due in the queue are counted, and only the
 * difference up to `$3` is fed: the next events in recorded order become new
 * log entries (`replay_id` set) and queue rows, due in that order. So an
 * endpoint never has more than `$3` replayed attempts due ahead of a fresh
 * event. A replay whose endpoint is no longer active is cancelled and its
 * remaining events dropped; one with nothing left is completed.
 */
const FEED_SQL = `
    with locked as (
      select id, endpoint_id, organization_id, environment, in_queue, trace_context,
             greatest($2::timestamptz, fed_until) as base
      from webhook_replays
      where id = $1::uuid and status = 'running'
      for update skip locked
    ),
    r as (
      select l.*, w.is_active from locked l join webhook_endpoints w on w.id = l.endpoint_id
    ),
    waiting as (
      select coalesce(array_agg(q.delivery_id), '{}') as ids
      from r, webhook_queue q
      where q.delivery_id = any(r.in_queue) and q.next_attempt_at <= $2::timestamptz
    ),
    picked as (
      delete from webhook_replay_events x
      where x.replay_id = $1::uuid and x.seq in (
        select e.seq from webhook_replay_events e, r
        where e.replay_id = r.id and r.is_active
        order by e.seq
        limit greatest(0, $3::int - (select cardinality(ids) from waiting)))
      returning x.seq, x.event_id
    ),
    dropped as (
      delete from webhook_replay_events x
      using r
      where x.replay_id = r.id and not r.is_active
      returning 1
    ),
    deliveries as (
      insert into webhook_deliveries
        (id, event_id, endpoint_id, organization_id, environment, event_type, status, next_attempt_at,
         created_at, replay_id, trace_context)
      select uuid_v7(), e.id, r.endpoint_id, r.organization_id, r.environment, e.type, 'pending',
             r.base + (row_number() over (order by p.seq)) * interval '1 microsecond',
             $2::timestamptz, r.id, r.trace_context
      from picked p
      join events e on e.id = p.event_id
      cross join r
      returning id, event_id, endpoint_id, next_attempt_at
    ),
    queued as (
      insert into webhook_queue (delivery_id, event_id, endpoint_id, next_attempt_at, attempts)
      select id, event_id, endpoint_id, next_attempt_at, 0 from deliveries
      returning delivery_id
    ),
    next as (
      select r.id,
        case
          when not r.is_active then 'cancelled'
          when exists (
            select 1 from webhook_replay_events x
            where x.replay_id = r.id and x.seq > coalesce((select max(seq) from picked), 0)) then 'running'
          else 'completed'
        end as status
      from r
    ),
    replay as (
      update webhook_replays p
      set queued = p.queued + (select count(*) from queued),
          in_queue = (select ids from waiting) || array(select delivery_id from queued),
          status = n.status,
          fed_until = coalesce((select max(next_attempt_at) from deliveries), p.fed_until),
          finished_at = case when n.status = 'running' then null else $2::timestamptz end
      from next n
      where p.id = n.id
      returning p.status
    )
    select (select status from replay) as status, (select count(*) from queued)::int as fed,
      (select count(pg_notify('${WAKE_CHANNEL}', '')) from (select 1 where exists (select 1 from queued)) w)
        as woken`

export interface FeedStep {
  /** The replay's status after the step; undefined when another instance was feeding it. */
  status: ReplayStatus | undefined
  /** Deliveries queued by the step. */
  fed: number
}

/** Feeds the next events of a running replay into the queue, keeping at most `ahead` of them due. */
export async function feedReplay(
  db: Database,
  replayId: string,
  now: Date,
  ahead: number,
): Promise<FeedStep> {
  const result = await db.executeQuery<{ status: ReplayStatus | null; fed: number }>(
    CompiledQuery.raw(FEED_SQL, [replayId, now.toISOString(), ahead]),
  )
  const row = result.rows[0]!
  return { status: row.status ?? undefined, fed: Number(row.fed) }
}

/** The replays still being fed, oldest first. */
export async function runningReplays(db: Database): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select id from webhook_replays where status = 'running' order by id`.execute(db)
  return rows.rows.map((r) => r.id)
}
