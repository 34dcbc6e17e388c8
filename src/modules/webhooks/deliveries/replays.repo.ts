import { type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, WebhookEndpointRow, WebhookReplayRow } from '../../../db/schema.ts'
import { activeTraceparent } from '../../../telemetry/tracing.ts'
import { arrayLiteral } from '../outbox/literals.ts'

/** What a replay asks for. */
export interface ReplaySelection {
  since: Date
  until: Date | null
  eventTypes: string[] | null
  onlyFailed: boolean
}

/**
 * The events a replay of `endpoint` sends, as conditions on `events e`: of
 * the endpoint's organization and environment, never a ping nor another
 * event without an order (a sample: both test one endpoint), recorded in
 * [since, until), of the asked types, and with `onlyFailed` only those
 * whose every delivery to this endpoint failed (at least one, none pending
 * or succeeded). A delivery's `created_at` is never
 * before its event's, so only deliveries since `since` are read. Further
 * conditions (such as the endpoint's event filter) belong in this list.
 */
function matching(endpoint: WebhookEndpointRow, selection: ReplaySelection): RawBuilder<unknown> {
  const conditions = [
    sql`e.organization_id = ${endpoint.organization_id}::uuid`,
    sql`e.environment = ${endpoint.environment}::text`,
    sql`e.type <> 'ping'`,
    sql`e.order_id is not null`,
    sql`e.created_at >= ${selection.since}::timestamptz`,
  ]
  if (selection.until) conditions.push(sql`e.created_at < ${selection.until}::timestamptz`)
  // Only the types the endpoint takes now (its enabled_events), as fresh events.
  if (!endpoint.enabled_events.includes('*')) {
    conditions.push(sql`e.type = any(${arrayLiteral(endpoint.enabled_events, true)}::text[])`)
  }
  if (selection.eventTypes) {
    conditions.push(sql`e.type = any(${arrayLiteral(selection.eventTypes, true)}::text[])`)
  }
  if (selection.onlyFailed) {
    const deliveries = (status: RawBuilder<unknown>) => sql`
      select d.event_id from webhook_deliveries d
      where d.endpoint_id = ${endpoint.id}::uuid and d.created_at >= ${selection.since}::timestamptz and ${status}`
    conditions.push(sql`e.id in (${deliveries(sql`d.status = 'failed'`)})`)
    conditions.push(sql`e.id not in (${deliveries(sql`d.status <> 'failed'`)})`)
  }
  return sql.join(conditions, sql` and `)
}

/**
 * Inserts a running replay and the events it will send, in recorded order, at
 * most `limit` of them; returns how many were chosen (limit + 1 means: more
 * than the limit match; the caller rolls back). A second running replay of the
 * endpoint violates webhook_replays_running_idx.
 */
export async function insertReplay(
  trx: Transaction<DB>,
  endpoint: WebhookEndpointRow,
  replay: Pick<WebhookReplayRow, 'id' | 'created_at'>,
  selection: ReplaySelection,
  limit: number,
): Promise<number> {
  await trx
    .insertInto('webhook_replays')
    .values({
      id: replay.id,
      endpoint_id: endpoint.id,
      organization_id: endpoint.organization_id,
      environment: endpoint.environment,
      since: selection.since,
      until: selection.until,
      event_types: selection.eventTypes,
      only_failed: selection.onlyFailed,
      status: 'running',
      total: 0,
      queued: 0,
      created_at: replay.created_at,
      trace_context: activeTraceparent(),
    })
    .execute()
  const { rows } = await sql<{ n: string }>`
    with chosen as (
      insert into webhook_replay_events (replay_id, seq, event_id)
      select ${replay.id}::uuid, row_number() over (order by e.created_at, e.id), e.id
      from events e
      where ${matching(endpoint, selection)}
      order by e.created_at, e.id
      limit ${limit + 1}::int
      returning 1
    )
    select count(*) as n from chosen`.execute(trx)
  return Number(rows[0]!.n)
}

/** How many events match, counted when more than a replay takes. */
export async function countMatching(
  db: Database,
  endpoint: WebhookEndpointRow,
  selection: ReplaySelection,
): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from events e where ${matching(endpoint, selection)}`.execute(db)
  return Number(rows[0]!.n)
}

/** Sets the number of events a replay sends; a replay of none is complete at once. */
export async function settleReplayTotal(
  trx: Transaction<DB>,
  id: string,
  total: number,
  at: Date,
): Promise<WebhookReplayRow> {
  return trx
    .updateTable('webhook_replays')
    .set(total === 0 ? { total, status: 'completed', finished_at: at } : { total })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function runningReplayOf(db: Database, endpointId: string): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_replays')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return row !== undefined
}

/** The endpoint's newest replay, if any. */
export async function latestReplay(db: Database, endpointId: string): Promise<WebhookReplayRow | undefined> {
  return db
    .selectFrom('webhook_replays')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
}

/** An endpoint that was disabled or deleted: its running replay stops, its remaining events are dropped. */
export async function cancelReplays(trx: Transaction<DB>, endpointId: string, at: Date): Promise<void> {
  const cancelled = await trx
    .updateTable('webhook_replays')
    .set({ status: 'cancelled', finished_at: at })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'running')
    .returning('id')
    .execute()
  if (cancelled.length === 0) return
  await trx
    .deleteFrom('webhook_replay_events')
    .where(
      'replay_id',
      'in',
      cancelled.map((r) => r.id),
    )
    .execute()
}
