import { sql, type Transaction } from 'kysely'
import type { Database } from './database.ts'
import type { DB } from './schema.ts'

/**
 * Gathers the planner's statistics of every table. PostgreSQL's autovacuum
 * does this by itself; the embedded database has no autovacuum, and without
 * statistics its planner reads whole tables where an index would do (a
 * polling page about ten times slower), so the embedded service runs this at
 * start and as its tables grow.
 */
export async function analyzeTables(db: Database): Promise<void> {
  await sql`analyze`.execute(db)
}

/** The planner's count of stored orders (as of the last ANALYZE). */
export async function estimatedOrders(db: Database): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select greatest(reltuples, 0)::float8 as n from pg_class where oid = to_regclass('orders')`.execute(db)
  return rows[0]?.n ?? 0
}

/**
 * Takes, for the rest of the transaction, the advisory lock named `name`
 * (a background fold's), or answers false at once when another session holds it.
 */
export async function tryTransactionLock(trx: Transaction<DB>, name: string): Promise<boolean> {
  const { rows } = await sql<{
    locked: boolean
  }>`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as locked`.execute(trx)
  return rows[0]!.locked
}
