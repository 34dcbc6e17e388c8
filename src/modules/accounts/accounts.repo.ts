import type { ExpressionBuilder, Selectable, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type {
  AccountTable,
  DashboardSessionTable,
  DB,
  MemberTable,
  OperatorTable,
  PasswordResetTable,
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

/**
 * Removes an account, member or operator alike (an account is one or the
 * other): its membership or operator row and its sessions go with it, and the
 * invitations it made stay, by nobody. False when it was gone already.
 */
export async function deleteAccount(db: Database, accountId: string): Promise<boolean> {
  await db.deleteFrom('members').where('account_id', '=', accountId).execute()
  await db.deleteFrom('operators').where('account_id', '=', accountId).execute()
  await db.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute()
  for (const table of INVITATION_TABLES) {
    await db.updateTable(table).set({ invited_by: null }).where('invited_by', '=', accountId).execute()
  }
  const deleted = await db.deleteFrom('accounts').where('id', '=', accountId).executeTakeFirst()
  return deleted.numDeletedRows > 0n
}

/**
 * The two kinds of invitation share one life (a token's hash, 7 days, single
 * use, revocable) in two tables: to an organization, and to the platform
 * (operators: no organization, no role).
 */
const INVITATION_TABLES = ['invitations', 'operator_invitations'] as const
export type InvitationTableName = (typeof INVITATION_TABLES)[number]
export type InvitationRow<T extends InvitationTableName> = T extends unknown ? Selectable<DB[T]> : never
/** Which invitations a change may touch: an organization's, or the platform's. */
export type InvitationScope =
  | {
      table: 'invitations' /** One organization's; left out: every organization's. */
      organizationId?: string
    }
  | { table: 'operator_invitations' }

/** Neither accepted, revoked nor expired. */
const isOpen = (now: Date) => (eb: ExpressionBuilder<DB, InvitationTableName>) =>
  eb.and([eb('accepted_at', 'is', null), eb('revoked_at', 'is', null), eb('expires_at', '>', now)])

export async function insertInvitation<T extends InvitationTableName>(
  db: Database,
  table: T,
  row: DB[T],
): Promise<void> {
  await db
    .insertInto(table as InvitationTableName)
    .values(row as DB[InvitationTableName])
    .execute()
}

const openByToken = (db: Database, table: InvitationTableName, tokenHash: string, now: Date) =>
  db.selectFrom(table).selectAll().where('token_hash', '=', tokenHash).where(isOpen(now))

/** An open invitation by its token's hash. */
export async function findOpenInvitation<T extends InvitationTableName>(
  db: Database,
  table: T,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow<T> | undefined> {
  return (await openByToken(db, table, tokenHash, now).executeTakeFirst()) as InvitationRow<T> | undefined
}

/** An open invitation by its token's hash, locked against a second use (and a revocation). */
export async function lockOpenInvitation<T extends InvitationTableName>(
  trx: Transaction<DB>,
  table: T,
  tokenHash: string,
  now: Date,
): Promise<InvitationRow<T> | undefined> {
  return (await openByToken(trx, table, tokenHash, now).forUpdate().executeTakeFirst()) as
    | InvitationRow<T>
    | undefined
}

export async function markInvitationAccepted(
  db: Database,
  table: InvitationTableName,
  id: string,
  at: Date,
): Promise<void> {
  await db.updateTable(table).set({ accepted_at: at }).where('id', '=', id).execute()
}

/** Open invitations of the scope, oldest first. */
export async function listOpenInvitations<S extends InvitationScope>(
  db: Database,
  scope: S,
  now: Date,
): Promise<InvitationRow<S['table']>[]> {
  let query = db
    .selectFrom(scope.table as InvitationTableName)
    .selectAll()
    .where(isOpen(now))
  if (scope.table === 'invitations' && scope.organizationId) {
    query = query.where('organization_id', '=', scope.organizationId)
  }
  return (await query.orderBy('id').execute()) as InvitationRow<S['table']>[]
}

/**
 * Revokes an open invitation of the scope: the row as revoked, or undefined
 * when there is none (unknown, another organization's, accepted, expired or
 * revoked already). An acceptance holding the row's lock goes first; the
 * revocation then finds it accepted.
 */
export async function revokeOpenInvitation<S extends InvitationScope>(
  db: Database,
  scope: S,
  id: string,
  now: Date,
): Promise<InvitationRow<S['table']> | undefined> {
  let query = db
    .updateTable(scope.table as InvitationTableName)
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where(isOpen(now))
  if (scope.table === 'invitations' && scope.organizationId) {
    query = query.where('organization_id', '=', scope.organizationId)
  }
  return (await query.returningAll().executeTakeFirst()) as InvitationRow<S['table']> | undefined
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

export async function findOperator(db: Database, id: string) {
  return operatorQuery(db).where('operators.id', '=', id).executeTakeFirst()
}

export async function listOperators(db: Database) {
  return operatorQuery(db).orderBy('operators.id').execute()
}

export async function insertOperator(db: Database, row: OperatorTable): Promise<void> {
  await db.insertInto('operators').values(row).execute()
}

export async function insertPasswordReset(db: Database, row: PasswordResetTable): Promise<void> {
  await db.insertInto('password_resets').values(row).execute()
}

/** Makes the account's unused reset links void (a newer one, a password change): how many. */
export async function revokeOpenPasswordResets(db: Database, accountId: string, at: Date): Promise<number> {
  const result = await db
    .updateTable('password_resets')
    .set({ revoked_at: at })
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

const openReset = (db: Database, tokenHash: string, now: Date) =>
  db
    .selectFrom('password_resets')
    .innerJoin('accounts', 'accounts.id', 'password_resets.account_id')
    .select([
      'password_resets.id',
      'password_resets.account_id',
      'password_resets.expires_at',
      'accounts.email',
    ])
    .where('password_resets.token_hash', '=', tokenHash)
    .where('password_resets.used_at', 'is', null)
    .where('password_resets.revoked_at', 'is', null)
    .where('password_resets.expires_at', '>', now)

/** An unused, unexpired reset link by its token's hash, with its account's email. */
export async function findOpenPasswordReset(db: Database, tokenHash: string, now: Date) {
  return openReset(db, tokenHash, now).executeTakeFirst()
}

/** The same, locked against a second use (and a newer link) until the transaction ends. */
export async function lockOpenPasswordReset(trx: Transaction<DB>, tokenHash: string, now: Date) {
  return openReset(trx, tokenHash, now).forUpdate('password_resets').executeTakeFirst()
}

export async function markPasswordResetUsed(db: Database, id: string, at: Date): Promise<void> {
  await db.updateTable('password_resets').set({ used_at: at }).where('id', '=', id).execute()
}
