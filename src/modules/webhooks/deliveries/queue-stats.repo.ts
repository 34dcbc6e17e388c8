import { sql } from 'kysely'
import type { Database } from '../../../db/database.ts'

export interface WebhookQueueStats {
  /** Attempts still to be made, due or not, in flight included. */
  attempts: number
  /**
   * Attempts a worker could claim now: due, not held by a worker, and not
   * waiting for their failing endpoint's probe (see claim.repo.ts).
   */
  due: number
  /** How long the longest-waiting claimable attempt has been due; 0 when none is. */
  oldestDueAgeSeconds: number
  /** Active endpoints whose last attempt failed: they get one attempt at a time (a probe) until one succeeds. */
  failingEndpoints: number
  /** Endpoints disabled after too many consecutive failures (deleted ones are not counted). */
  disabledEndpoints: number
  /** Order changes not yet folded into the statistics, and how long the oldest has waited (0 when none). */
  unfoldedChanges: number
  oldestUnfoldedAgeSeconds: number
}

/** The state of the webhook queue at `now`, read when metrics are scraped. */
export async function webhookQueueStats(db: Database, now: Date): Promise<WebhookQueueStats> {
  const claimable = sql`next_attempt_at <= ${now} and (locked_until is null or locked_until < ${now})
    and (redelivery
      or endpoint_id <> all(array(select id from webhook_endpoints where next_probe_at is not null)))`
  const row = await db
    .selectFrom('webhook_queue')
    .select((eb) => [
      eb.fn.countAll<number>().as('attempts'),
      sql<number>`count(*) filter (where ${claimable})`.as('due'),
      sql<Date | null>`min(next_attempt_at) filter (where ${claimable})`.as('oldest_due'),
      sql<number>`(select count(*) from webhook_endpoints where is_active and next_probe_at is not null)`.as(
        'failing',
      ),
      sql<number>`(select count(*) from webhook_endpoints where not is_active and disabled_reason is not null)`.as(
        'disabled',
      ),
      sql<number>`(select count(*) from order_changes)`.as('unfolded'),
      sql<Date | null>`(select min(at) from order_changes)`.as('oldest_unfolded'),
    ])
    .executeTakeFirstOrThrow()
  const age = (at: Date | null) => (at ? Math.max(0, (now.getTime() - at.getTime()) / 1000) : 0)
  return {
    attempts: Number(row.attempts),
    due: Number(row.due),
    oldestDueAgeSeconds: age(row.oldest_due),
    failingEndpoints: Number(row.failing),
    disabledEndpoints: Number(row.disabled),
    unfoldedChanges: Number(row.unfolded),
    oldestUnfoldedAgeSeconds: age(row.oldest_unfolded),
  }
}
