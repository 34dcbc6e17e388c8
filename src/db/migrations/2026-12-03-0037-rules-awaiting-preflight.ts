import { type Kysely, sql } from 'kysely'

/**
 * Automation rules that read the print check (docs/automation.md): a live
 * order's production order keeps, from its intake until its files' results
 * land, the rules that wait for them (null: none waits, production may
 * start); each checked order keeps its items' verdicts, in position order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table production_orders add column awaiting_rules jsonb`.execute(db)
  await sql`alter table order_preflight add column items jsonb`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table order_preflight drop column items`.execute(db)
  await sql`alter table production_orders drop column awaiting_rules`.execute(db)
}
