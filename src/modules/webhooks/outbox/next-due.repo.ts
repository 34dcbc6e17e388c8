import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { arrayLiteral } from './literals.ts'

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
