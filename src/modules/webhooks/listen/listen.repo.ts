import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, Environment } from '../../../db/schema.ts'

/** An event as listen streams send it: the body every delivery of it carries. */
export interface StreamedEvent {
  id: string
  type: string
  organization_id: string
  environment: Environment
  body: string
  /** The writing transaction's id (xid8 as decimal text). */
  tx: string
}

/** A position in the commit-safe order of events: (transaction id, event id). */
export interface EventCursor {
  tx: string
  id: string
}

export interface EventScope {
  organizationId: string
  environment: Environment
}

/** Before every event: the start of a cursor's order. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/**
 * Committed events after `after`, in (tx, id) order, of one organization and
 * environment or of all. Only events of transactions older than every
 * transaction still running (the snapshot's xmin) are returned: no event can
 * commit behind them later, so a cursor past them never skips one.
 */
export async function readEvents(
  db: Database,
  after: EventCursor,
  limit: number,
  scope?: EventScope,
): Promise<StreamedEvent[]> {
  const only = scope
    ? sql`and organization_id = ${scope.organizationId}::uuid and environment = ${scope.environment}::text`
    : sql``
  const result = await sql<StreamedEvent>`
    select id, type, organization_id, environment, body, tx::text as tx
    from events
    where (tx, id) > (${after.tx}::xid8, ${after.id}::uuid) ${only}
      and tx < pg_snapshot_xmin(pg_current_snapshot())
    order by tx, id
    limit ${limit}::int`.execute(db)
  return result.rows
}

/** Whether committed events after `after` wait for an older transaction to end before they can be read. */
export async function eventsHeldBack(db: Database, after: EventCursor): Promise<boolean> {
  const result = await sql<{ held: boolean }>`
    select exists (
      select 1 from events
      where (tx, id) > (${after.tx}::xid8, ${after.id}::uuid)
        and tx >= pg_snapshot_xmin(pg_current_snapshot())
    ) as held`.execute(db)
  return result.rows[0]!.held
}

/** The current snapshot as text (`xmin:xmax:xip,...`): which transactions have committed now. */
export async function currentSnapshot(db: Database): Promise<string> {
  const result = await sql<{ snapshot: string }>`select pg_current_snapshot()::text as snapshot`.execute(db)
  return result.rows[0]!.snapshot
}

const inMs = (ms: number) => sql<Date>`now() + ${sql.lit(`${ms} milliseconds`)}::interval`

/**
 * Records an open session if the organization has fewer than `max` whose
 * lease has not ended (checked and inserted under a lock per organization, so
 * simultaneous connects on any instances cannot pass the cap together).
 */
export async function admitSession(
  trx: Transaction<DB>,
  session: { id: string } & EventScope,
  max: number,
  leaseMs: number,
): Promise<boolean> {
  const lock = `listen:${session.organizationId}`
  await sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`.execute(trx)
  await trx
    .deleteFrom('listen_sessions')
    .where('organization_id', '=', session.organizationId)
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute()
  const open = await trx
    .selectFrom('listen_sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', session.organizationId)
    .executeTakeFirstOrThrow()
  if (Number(open.n) >= max) return false
  await trx
    .insertInto('listen_sessions')
    .values({
      id: session.id,
      organization_id: session.organizationId,
      environment: session.environment,
      opened_at: sql<Date>`now()`,
      expires_at: inMs(leaseMs),
    })
    .execute()
  return true
}

/** Extends the leases of this instance's open sessions. */
export async function renewSessions(db: Database, ids: readonly string[], leaseMs: number): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('listen_sessions')
    .set({ expires_at: inMs(leaseMs) })
    .where('id', 'in', ids)
    .execute()
}

export async function closeSession(db: Database, id: string): Promise<void> {
  await db.deleteFrom('listen_sessions').where('id', '=', id).execute()
}

/** Open sessions (lease not ended) of an organization's environment, on every instance. */
export async function countSessions(db: Database, scope: EventScope): Promise<number> {
  const row = await db
    .selectFrom('listen_sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}
