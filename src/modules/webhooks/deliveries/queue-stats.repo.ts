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
    ])
    .executeTakeFirstOrThrow()
  return {
    attempts: Number(row.attempts),
    due: Number(row.due),
    oldestDueAgeSeconds: row.oldest_due ? (now.getTime() - row.oldest_due.getTime()) / 1000 : 0,
  }
}
