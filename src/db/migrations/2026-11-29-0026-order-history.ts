import { type Kysely, sql } from 'kysely'

/**
 * The order page's history (changes and cancellations made in the dashboard
 * or the console) is read from the audit log by the order's id: a partial
 * index holding those entries only, so the log's other entries pay nothing.
 * docs/decisions/2026-11-29-order-changes-in-the-dashboard.md
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('audit_log_order_history_idx')
    .on('audit_log')
    .columns(['subject', 'id'])
    .where(sql.ref('action'), 'in', ['order.changed', 'order.cancelled'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_order_history_idx').execute()
}
