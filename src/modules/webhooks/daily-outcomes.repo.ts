import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment } from '../../db/schema.ts'

export interface DailyOutcome {
  day: string
  succeeded: number
  failed: number
  pending: number
}

/**
 * Deliveries per UTC day of creation since `since` and where they stand now
 * (succeeded, failed for good, pending or retrying), of one organization or
 * (undefined) of each: read per organization through
 * webhook_deliveries_created_idx, so the cost is the window's deliveries,
 * never the whole log and never the orders.
 */
export async function webhookDailyOutcomes(
  db: Database,
  environment: Environment,
  since: Date,
  organizationId?: string,
): Promise<DailyOutcome[]> {
  const organizations =
    organizationId === undefined
      ? sql`select id from organizations`
      : sql`select ${organizationId}::uuid as id`
  const result = await sql<{ day: string; succeeded: string; failed: string; pending: string }>`
    select to_char((d.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day,
      count(*) filter (where d.status = 'succeeded') as succeeded,
      count(*) filter (where d.status = 'failed') as failed,
      count(*) filter (where d.status = 'pending') as pending
    from (${organizations}) o
    cross join lateral (
      select created_at, status from webhook_deliveries
      where organization_id = o.id and environment = ${environment} and created_at >= ${since}::timestamptz
    ) d
    group by 1
    order by 1`.execute(db)
  return result.rows.map((row) => ({
    day: row.day,
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    pending: Number(row.pending),
  }))
}
