import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'

/** Resolves when the database answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await sql`select 1`.execute(db)
}

export interface InstanceRow {
  id: string
  file_store: string
  file_store_description: string
  hostname: string
  pid: number
}

// Serializes the check and the insert of simultaneous starts.
const REGISTRATION_LOCK = 7_104_816_264

/** Holds the registration lock until the transaction ends. */
export async function lockRegistrations(trx: Transaction<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${REGISTRATION_LOCK})`.execute(trx)
}

/** Removes the instances whose heartbeat is older than `staleAfterMs`. */
export async function deleteStaleInstances(db: Database, staleAfterMs: number): Promise<void> {
  const stale = sql<Date>`now() - ${sql.lit(`${staleAfterMs} milliseconds`)}::interval`
  await db.deleteFrom('service_instances').where('heartbeat_at', '<', stale).execute()
}

/** A live instance that keeps its files somewhere other than `fileStore`. */
export async function findInstanceElsewhere(db: Database, fileStore: string) {
  return db
    .selectFrom('service_instances')
    .select(['hostname', 'pid', 'file_store_description'])
    .where('file_store', '<>', fileStore)
    .executeTakeFirst()
}

export async function insertInstance(db: Database, row: InstanceRow): Promise<void> {
  await db
    .insertInto('service_instances')
    .values({ ...row, started_at: sql`now()`, heartbeat_at: sql`now()` })
    .execute()
}

/** Refreshes the heartbeat; false when the row is gone (removed as stale). */
export async function beat(db: Database, id: string): Promise<boolean> {
  const updated = await db
    .updateTable('service_instances')
    .set({ heartbeat_at: sql`now()` })
    .where('id', '=', id)
    .executeTakeFirst()
  return updated.numUpdatedRows > 0n
}

export async function deleteInstance(db: Database, id: string): Promise<void> {
  await db.deleteFrom('service_instances').where('id', '=', id).execute()
}
