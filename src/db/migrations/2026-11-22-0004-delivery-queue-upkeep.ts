import { type Kysely, sql } from 'kysely'

// A queue churns through its rows: statistics and vacuum follow a fixed number of changed rows, and
// pages keep room for HOT updates. See docs/decisions/2026-11-25-webhook-delivery-queue-table.md.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table webhook_deliveries set (
      autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 5000,
      autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000,
      fillfactor = 70
    )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table webhook_deliveries reset (
      autovacuum_analyze_scale_factor, autovacuum_analyze_threshold,
      autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, fillfactor
    )`.execute(db)
}
