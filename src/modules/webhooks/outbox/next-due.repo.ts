import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { arrayLiteral } from './literals.ts'

/**
 * When the next queued attempt (to an endpoint not in `exclude`) falls due, to
 * sleep exactly until then. Attempts held by a live lease (in flight here or
 * at another worker) are not due: a lease that runs out is noticed by polling.
 * A failing endpoint's attempts wait for its next probe: that instant counts
 * for it (or its first attempt's, if later), not its other attempts'.
 */
export async function nextDueAt(
  db: Database,
  now: Date,
  exclude: readonly string[] = [],
): Promise<Date | undefined> {
  const skip = arrayLiteral(exclude)
  const result = await sql<{ next: Date | null }>`
    select least(
      (select min(next_attempt_at) from webhook_queue
        where endpoint_id <> all(${skip}::uuid[])
          and (redelivery
            or endpoint_id <> all(array(select id from webhook_endpoints where next_probe_at is not null)))
          and (locked_until is null or locked_until < ${now}::timestamptz)),
      (select min(greatest(w.next_probe_at, f.first))
        from webhook_endpoints w
        cross join lateral (
          select min(q.next_attempt_at) as first from webhook_queue q
          where q.endpoint_id = w.id and (q.locked_until is null or q.locked_until < ${now}::timestamptz)) f
        where w.next_probe_at is not null and w.is_active and w.id <> all(${skip}::uuid[])
          and f.first is not null)
    ) as next`.execute(db)
  const next = result.rows[0]?.next
  return next ? new Date(next) : undefined
}
