import { type Kysely, sql } from 'kysely'

// Half-full pages leave claimed rows room for HOT updates, which write no index entries.
// See docs/decisions/2026-11-25-webhook-delivery-pages-half-full.md.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries set (fillfactor = 50)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries set (fillfactor = 70)`.execute(db)
}
