import type { Kysely } from 'kysely'

/**
 * What the dashboard needs to show the headers an attempt sent, rebuilt at
 * read time (docs/decisions/2026-11-29-delivered-headers.md): the signature's
 * `t` of each attempt (unix seconds; null before this migration and for
 * attempts not sent), and when an endpoint's secret last changed (null: not
 * since this migration), so that a signature made with a secret rotated since
 * is never rebuilt with the new one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('signature_timestamp', 'integer').execute()
  await db.schema.alterTable('webhook_endpoints').addColumn('secret_changed_at', 'timestamptz').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('secret_changed_at').execute()
  await db.schema.alterTable('webhook_attempts').dropColumn('signature_timestamp').execute()
}
