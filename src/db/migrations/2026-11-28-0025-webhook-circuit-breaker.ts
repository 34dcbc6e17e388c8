import { type Kysely, sql } from 'kysely'

/**
 * An endpoint whose last attempt failed is probed, one attempt at a time,
 * from next_probe_at on (null: its last attempt succeeded, everything due
 * goes). The partial index keeps the claim's look at failing endpoints to the
 * few that are; the queue gets no index (every order's deliveries would pay
 * for it). docs/decisions/2026-11-28-webhook-circuit-breaker.md
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('next_probe_at', 'timestamptz').execute()
  // A redelivery was asked for by a person: it goes at once, breaker or not.
  await db.schema
    .alterTable('webhook_queue')
    .addColumn('redelivery', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute()
  await db.schema
    .createIndex('webhook_endpoints_probing_idx')
    .on('webhook_endpoints')
    .columns(['next_probe_at'])
    .where(sql.ref('next_probe_at'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_endpoints_probing_idx').execute()
  await db.schema.alterTable('webhook_queue').dropColumn('redelivery').execute()
  await db.schema.alterTable('webhook_endpoints').dropColumn('next_probe_at').execute()
}
