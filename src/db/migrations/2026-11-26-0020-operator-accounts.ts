import { type Kysely, sql } from 'kysely'

// Operators: accounts of the platform, not members of an organization. An
// operator is an account (email, password, sessions: the members' tables) with
// a row here instead of a membership; its invitations are a table of their own
// (no organization, no role) read by the same invitation page. The audit log
// becomes platform-wide: entries of what an operator did (an operator account
// or the shared token) are marked by_operator, with the organization they
// concern, or none for the platform's own changes (an operator invited).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) =>
      c.notNull().unique().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('operator_invitations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'uuid', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('accepted_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute()

  await sql`alter table audit_log alter column organization_id drop not null`.execute(db)
  await sql`alter table audit_log add column by_operator boolean not null default false`.execute(db)
  // Entries written before: the operator was the shared token, named `operator`.
  await sql`
    update audit_log set by_operator = true, actor = 'operator token'
    where actor_account_id is null and actor = 'operator'`.execute(db)
  await sql`create index audit_log_operator_idx on audit_log (id desc) where by_operator`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index audit_log_operator_idx`.execute(db)
  await sql`update audit_log set actor = 'operator' where by_operator and actor = 'operator token'`.execute(
    db,
  )
  await sql`delete from audit_log where organization_id is null`.execute(db)
  await sql`alter table audit_log drop column by_operator`.execute(db)
  await sql`alter table audit_log alter column organization_id set not null`.execute(db)
  await db.schema.dropTable('operator_invitations').execute()
  await db.schema.dropTable('operators').execute()
}
