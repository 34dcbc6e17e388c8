import { type Kysely, sql } from 'kysely'

/**
 * Password resets: a single-use, short-lived link an owner (for a member) or
 * an operator (for a member or an operator) issues, like an invitation. Only
 * the token's SHA-256 is stored; a new link for the account replaces its
 * unused one (revoked_at), and the account's removal removes its links.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('issued_by', 'uuid', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await sql`create index password_resets_account_idx on password_resets (account_id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('password_resets').execute()
}
