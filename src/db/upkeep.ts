import { sql } from 'kysely'
import type { Database } from './database.ts'

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
