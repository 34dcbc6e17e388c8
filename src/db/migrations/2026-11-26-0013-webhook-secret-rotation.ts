import type { Kysely } from 'kysely'

// A rotated secret keeps signing beside the new one until its grace period
// ends: sealed like secret_encrypted, and ignored once previous_secret_expires_at
// has passed (the next rotation overwrites or clears it). At most one previous
// secret per endpoint, so an attempt carries at most two signatures.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('previous_secret_encrypted', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .dropColumn('previous_secret_encrypted')
    .dropColumn('previous_secret_expires_at')
    .execute()
}
