import { type Kysely, sql } from 'kysely'

/**
 * Settled webhook deliveries per organization, environment and UTC day
 * (docs/decisions/2026-11-29-webhook-daily-outcomes.md): Home and the
 * console's statistics read 30 rows instead of 30 days of deliveries.
 * A delivery settles once (succeeded, or failed for good); the statements
 * that settle deliveries append a row to webhook_outcome_changes (no key,
 * no index), and the background fold moves those into webhook_daily_outcomes.
 * The deliveries settled before this migration are counted here, on the day
 * of their last attempt (of their creation when none was made).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_outcome_changes (
      organization_id uuid not null,
      environment text not null,
      day date not null,
      succeeded integer not null,
      failed integer not null
    )`.execute(db)
  await sql`
    create table webhook_daily_outcomes (
      organization_id uuid not null,
      environment text not null,
      day date not null,
      succeeded bigint not null,
      failed bigint not null,
      primary key (organization_id, environment, day)
    )`.execute(db)
  // The console's statistics read every organization's days.
  await sql`create index webhook_daily_outcomes_day_idx on webhook_daily_outcomes (environment, day)`.execute(
    db,
  )
  await sql`
    insert into webhook_daily_outcomes (organization_id, environment, day, succeeded, failed)
    select organization_id, environment, (coalesce(last_attempt_at, created_at) at time zone 'UTC')::date,
      count(*) filter (where status = 'succeeded'), count(*) filter (where status = 'failed')
    from webhook_deliveries
    where status in ('succeeded', 'failed')
    group by 1, 2, 3`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table webhook_daily_outcomes`.execute(db)
  await sql`drop table webhook_outcome_changes`.execute(db)
}
