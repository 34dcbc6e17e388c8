import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'

/** Gives claims back untouched (shutdown, or waited too long for a slot): the attempt did not happen. */
export async function releaseClaims(db: Database, ids: readonly string[], workerId: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('webhook_queue')
    .set({ attempts: sql`greatest(attempts - 1, 0)`, locked_until: null, locked_by: null })
    .where('delivery_id', 'in', ids)
    .where('locked_by', '=', workerId)
    .execute()
}
