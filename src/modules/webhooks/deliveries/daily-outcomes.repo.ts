import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, Environment } from '../../../db/schema.ts'
import { tryTransactionLock } from '../../../db/upkeep.ts'

export interface DailyOutcome {
  day: string
  succeeded: number
  failed: number
}

/**
 * Deliveries settled (succeeded, or failed for good) per UTC day since
 * `since`, of one organization or of all: the folded days of
 * webhook_daily_outcomes (migration 0031) plus the settlements not folded
 * yet, so the figures are exact whenever they are read. Never reads a
 * delivery: the cost is 30 rows per organization, not the deliveries.
 */
export async function webhookDailyOutcomes(
  db: Database,
  environment: Environment,
  since: string,
  organizationId?: string,
): Promise<DailyOutcome[]> {
  const mine = organizationId === undefined ? sql`` : sql`and organization_id = ${organizationId}::uuid`
  const result = await sql<{ day: string; succeeded: string; failed: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, sum(succeeded) as succeeded, sum(failed) as failed
    from (
      select day, succeeded, failed from webhook_daily_outcomes
      where environment = ${environment} and day >= ${since}::date ${mine}
      union all
      select day, succeeded, failed from webhook_outcome_changes
      where environment = ${environment} and day >= ${since}::date ${mine}
    ) s
    group by 1
    order by 1`.execute(db)
  return result.rows.map((row) => ({
    day: row.day,
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
  }))
}

/**
 * Moves up to `limit` recorded settlements into webhook_daily_outcomes and
 * deletes them, in one statement. Returns how many rows it moved, or null
 * when another instance is folding.
 */
export async function foldWebhookOutcomes(trx: Transaction<DB>, limit: number): Promise<number | null> {
  if (!(await tryTransactionLock(trx, 'webhook_outcome_changes'))) return null
  const result = await sql<{ folded: number }>`
    with picked as materialized (
      select ctid from webhook_outcome_changes limit ${limit}::int
    ),
    taken as (
      delete from webhook_outcome_changes c using picked p
      where c.ctid = p.ctid
      returning c.*
    ),
    folded as (
      insert into webhook_daily_outcomes (organization_id, environment, day, succeeded, failed)
      select organization_id, environment, day, sum(succeeded), sum(failed)
      from taken
      group by 1, 2, 3
      order by 1, 2, 3
      on conflict (organization_id, environment, day) do update set
        succeeded = webhook_daily_outcomes.succeeded + excluded.succeeded,
        failed = webhook_daily_outcomes.failed + excluded.failed
    )
    select count(*)::int as folded from taken`.execute(trx)
  return result.rows[0]!.folded
}
