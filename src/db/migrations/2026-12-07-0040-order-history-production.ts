import { type Kysely, sql } from 'kysely'

/**
 * An order's history (its page) also lists what production did to it:
 * status changes, completed items and the partner switch, each with the
 * station and batch it was done at. The partial index that serves the
 * history by subject holds those entries too, and the releases it lacked.
 */
const HISTORY = [
  'order.changed',
  'order.cancelled',
  'order.released',
  'production.status_set',
  'production.job_completed',
  'production.partner_set',
]

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_order_history_idx').execute()
  await db.schema
    .createIndex('audit_log_order_history_idx')
    .on('audit_log')
    .columns(['subject', 'id'])
    .where(sql.ref('action'), 'in', HISTORY)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_log_order_history_idx').execute()
  await db.schema
    .createIndex('audit_log_order_history_idx')
    .on('audit_log')
    .columns(['subject', 'id'])
    .where(sql.ref('action'), 'in', ['order.changed', 'order.cancelled'])
    .execute()
}
