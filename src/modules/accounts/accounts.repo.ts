import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type {
  AccountTable,
  DashboardSessionTable,
  DB,
  InvitationTable,
  MemberTable,
  OperatorInvitationTable,
  OperatorTable,
  Role,
} from '../../db/schema.ts'

/** A member with the account and organization it belongs to. */
function memberQuery(db: Database) {
  return db
    .selectFrom('members')
    .innerJoin('accounts', 'accounts.id', 'members.account_id')
    .innerJoin('organizations', 'organizations.id', 'members.organization_id')
    .select([
      'members.id',
      'members.organization_id',
      'members.account_id',
      'members.role',
      'members.created_at',
      'accounts.email',
      'organizations.name as organization_name',
    ])
}
export type MemberRecord = Awaited<ReturnType<ReturnType<typeof memberQuery>['executeTakeFirstOrThrow']>>

export async function findAccountByEmail(db: Database, email: string) {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst()
}

export async function findAccount(db: Database, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function insertAccount(db: Database, row: AccountTable): Promise<void> {
  await db.insertInto('accounts').values(row).execute()
}

export async function updatePassword(db: Database, accountId: string, hash: string, at: Date): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: hash, password_changed_at: at })
    .where('id', '=', accountId)
    .execute()
}

export async function insertMember(db: Database, row: MemberTable): Promise<void> {
  await db.insertInto('members').values(row).execute()
}

export async function findMemberOfAccount(db: Database, accountId: string) {
  return memberQuery(db).where('members.account_id', '=', accountId).executeTakeFirst()
}

export async function findMember(db: Database, organizationId: string, memberId: string) {
  return memberQuery(db)
    .where('members.organization_id', '=', organizationId)
    .where('members.id', '=', memberId)
    .executeTakeFirst()
}

export async function listMembers(db: Database, organizationId: string) {
  return memberQuery(db).where('members.organization_id', '=', organizationId).orderBy('members.id').execute()
}

/** The organization's owners, locked: role changes and removals of owners take turns. */
export async function lockOwners(trx: Transaction<DB>, organizationId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('members')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'owner')
    .forUpdate()
    .execute()
  return rows.map((r) => r.id)
}

export async function updateRole(db: Database, memberId: string, role: Role): Promise<void> {
  await db.updateTable('members').set({ role }).where('id', '=', memberId).execute()
}

/** Removes the member and its account (an account belongs to one organization). */
export async function deleteMemberAndAccount(db: Database, accountId: string): Promise<void> {
  await db.deleteFrom('members').where('account_id', '=', accountId).execute()
  await db.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute()
  await db.updateTable('invitations').set({ invited_by: null }).where('invited_by', '=', accountId).execute()
  await db.deleteFrom('accounts').where('id', '=', accountId).execute()
}

export async function insertInvitation(db: Database, row: InvitationTable): Promise<void> {
  await db.insertInto('invitations').values(row).execute()
}

/** An unused, unrevoked invitation by its token's hash, locked against a second use. */
export async function lockOpenInvitation(trx: Transaction<DB>, tokenHash: string, now: Date) {
  return trx
    .selectFrom('invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst()
}

export async function findOpenInvitation(db: Database, tokenHash: string, now: Date) {
  return db
    .selectFrom('invitations')
    .innerJoin('organizations', 'organizations.id', 'invitations.organization_id')
    .select([
      'invitations.id',
      'invitations.email',
      'invitations.role',
      'invitations.expires_at',
      'invitations.organization_id',
      'organizations.name as organization_name',
    ])
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

export async function markInvitationAccepted(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: at }).where('id', '=', id).execute()
}

/** Invitations not yet accepted, revoked or expired. */
export async function listOpenInvitations(db: Database, organizationId: string, now: Date) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute()
}

export async function insertSession(db: Database, row: DashboardSessionTable): Promise<void> {
  await db.insertInto('dashboard_sessions').values(row).execute()
}

export async function findLiveSession(db: Database, tokenHash: string) {
  return db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('ended_at', 'is', null)
    .executeTakeFirst()
}

export async function touchSession(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: at }).where('id', '=', id).execute()
}

export async function endSession(db: Database, id: string, at: Date): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ ended_at: at })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute()
}

/** Ends every open session of the account except `keep`; the number ended. */
export async function endOtherSessions(
  db: Database,
  accountId: string,
  keep: string | null,
  at: Date,
): Promise<number> {
  let query = db
    .updateTable('dashboard_sessions')
    .set({ ended_at: at })
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
  if (keep) query = query.where('id', '!=', keep)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** Open sessions of the account that have not expired, newest first. */
export async function listLiveSessions(db: Database, accountId: string, now: Date, idleSince: Date) {
  return db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .where('last_seen_at', '>', idleSince)
    .orderBy('id', 'desc')
    .execute()
}

/** An operator with its account's email. */
function operatorQuery(db: Database) {
  return db
    .selectFrom('operators')
    .innerJoin('accounts', 'accounts.id', 'operators.account_id')
    .select(['operators.id', 'operators.account_id', 'operators.created_at', 'accounts.email'])
}
export type OperatorRecord = Awaited<ReturnType<ReturnType<typeof operatorQuery>['executeTakeFirstOrThrow']>>

export async function findOperatorOfAccount(db: Database, accountId: string) {
  return operatorQuery(db).where('operators.account_id', '=', accountId).executeTakeFirst()
}

export async function listOperators(db: Database) {
  return operatorQuery(db).orderBy('operators.id').execute()
}

export async function insertOperator(db: Database, row: OperatorTable): Promise<void> {
  await db.insertInto('operators').values(row).execute()
}

export async function insertOperatorInvitation(db: Database, row: OperatorInvitationTable): Promise<void> {
  await db.insertInto('operator_invitations').values(row).execute()
}

/** An unused, unrevoked operator invitation by its token's hash, locked against a second use. */
export async function lockOpenOperatorInvitation(trx: Transaction<DB>, tokenHash: string, now: Date) {
  return trx
    .selectFrom('operator_invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst()
}

export async function findOpenOperatorInvitation(db: Database, tokenHash: string, now: Date) {
  return db
    .selectFrom('operator_invitations')
    .select(['id', 'email', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()
}

/** Operator invitations not yet accepted, revoked or expired. */
export async function listOpenOperatorInvitations(db: Database, now: Date) {
  return db
    .selectFrom('operator_invitations')
    .selectAll()
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('id')
    .execute()
}

export async function markOperatorInvitationAccepted(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('operator_invitations').set({ accepted_at: at }).where('id', '=', id).execute()
}
