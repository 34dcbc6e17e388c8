import { type Kysely, sql } from 'kysely'

// The dashboard's people: an account is an email and a password (scrypt);
// a member is an account's place in one organization, with its role. Operator
// accounts (a later table) reuse accounts and sessions. Invitations and
// sessions keep only the SHA-256 of their tokens. The audit log is per
// organization; its entries are written in the transaction of the change.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('password_changed_at', 'timestamptz', (c) => c.notNull())
    .execute()
  // Emails are stored lower-cased; one account per address.
  await sql`create unique index accounts_email_idx on accounts (email)`.execute(db)

  await db.schema
    .createTable('members')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await sql`create unique index members_account_idx on members (account_id)`.execute(db)
  await sql`create index members_organization_idx on members (organization_id, id)`.execute(db)

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'uuid', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute()
  await sql`create index invitations_organization_idx on invitations (organization_id, id)`.execute(db)

  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .execute()
  await sql`create index dashboard_sessions_account_idx on dashboard_sessions (account_id, id)`.execute(db)

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id'))
    .addColumn('actor_account_id', 'uuid')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await sql`create index audit_log_organization_idx on audit_log (organization_id, id desc)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['audit_log', 'dashboard_sessions', 'invitations', 'members', 'accounts']) {
    await db.schema.dropTable(table).execute()
  }
}
