import { type Kysely, sql } from 'kysely'

/**
 * The rows of an order (order, items, production order, jobs, the event and
 * its per-order counter) are written together by one statement and never
 * deleted, nor are organizations: their foreign keys checked, on every order,
 * what the statement already guarantees, at about a third of the database's
 * CPU per order, and each check locked the parent row (the organization's
 * row by every concurrent order of it).
 * docs/decisions/2026-11-28-order-graph-without-foreign-keys.md
 */
const KEYS = [
  ['orders', 'orders_organization_id_fkey', 'organization_id', 'organizations'],
  ['events', 'events_organization_id_fkey', 'organization_id', 'organizations'],
  ['order_items', 'order_items_order_id_fkey', 'order_id', 'orders'],
  ['production_orders', 'production_orders_order_id_fkey', 'order_id', 'orders'],
  ['production_jobs', 'production_jobs_production_order_id_fkey', 'production_order_id', 'production_orders'],
  ['production_jobs', 'production_jobs_order_item_id_fkey', 'order_item_id', 'order_items'],
  ['order_event_counters', 'order_event_counters_order_id_fkey', 'order_id', 'orders'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, name] of KEYS) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(name)}`.execute(db)
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, name, column, parent] of KEYS) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.id(name)}
      foreign key (${sql.id(column)}) references ${sql.table(parent)} (id)`.execute(db)
  }
}
