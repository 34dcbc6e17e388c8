import type { Database } from '../../db/database.ts'
import type { Role } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { RateLimiter } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../audit/audit.service.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import {
  deleteAccount,
  endOtherSessions,
  endSession,
  findAccount,
  findAccountByEmail,
  findLiveSession,
  findMember,
  findMemberOfAccount,
  findOpenInvitation,
  findOperator,
  findOperatorOfAccount,
  type InvitationRow,
  type InvitationScope,
  insertAccount,
  insertInvitation,
  insertMember,
  insertOperator,
  insertSession,
  listLiveSessions,
  listMembers,
  listOpenInvitations,
  listOperators,
  lockOpenInvitation,
  lockOwners,
  type MemberRecord,
  markInvitationAccepted,
  type OperatorRecord,
  revokeOpenInvitation,
  touchSession,
  updatePassword,
  updateRole,
} from './accounts.repo.ts'
import {
  INVITATION_TTL_MS,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SESSION_TOUCH_MS,
  SIGN_IN_LIMITS,
} from './limits.ts'
import { hashPassword, verifyPassword } from './passwords.ts'

/** Where a request came from, for sessions and the audit log. */
export interface RequestMeta {
  address: string
  userAgent: string
}

/** The signed-in member behind a request. */
export interface SessionContext {
  sessionId: string
  member: MemberRecord
}

/** The signed-in operator behind a request (an account without an organization). */
export interface OperatorContext {
  sessionId: string
  operator: OperatorRecord
}

/** Either kind of signed-in account: what the account's own routes (sessions, password) take. */
export type AccountContext = SessionContext | OperatorContext

export const isOperator = (ctx: AccountContext): ctx is OperatorContext => 'operator' in ctx
const accountIdOf = (ctx: AccountContext) => (isOperator(ctx) ? ctx.operator : ctx.member).account_id
const emailOf = (ctx: AccountContext) => (isOperator(ctx) ? ctx.operator : ctx.member).email

export interface OperatorView {
  id: string
  email: string
  created_at: string
}

/** Who is signed in: a member of an organization or an operator of the platform. */
export type AccountView =
  | { kind: 'member'; member: MemberView; operator: null }
  | { kind: 'operator'; member: null; operator: OperatorView }

export interface MemberView {
  id: string
  email: string
  role: Role
  organization: { id: string; name: string }
  created_at: string
}

export interface InvitationView {
  id: string
  email: string
  role: Role
  created_at: string
  expires_at: string
}

/** An invitation to become an operator: no organization, no role. */
export interface OperatorInvitationView {
  id: string
  email: string
  created_at: string
  expires_at: string
}

export interface SessionView {
  id: string
  current: boolean
  user_agent: string
  address: string
  created_at: string
  last_seen_at: string
  expires_at: string
}

const memberView = (m: MemberRecord): MemberView => ({
  id: m.id,
  email: m.email,
  role: m.role,
  organization: { id: m.organization_id, name: m.organization_name },
  created_at: m.created_at.toISOString(),
})

const operatorView = (o: OperatorRecord): OperatorView => ({
  id: o.id,
  email: o.email,
  created_at: o.created_at.toISOString(),
})

const operatorInvitationView = (r: InvitationRow<'operator_invitations'>): OperatorInvitationView => ({
  id: r.id,
  email: r.email,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
})

const invitationView = (r: InvitationRow<'invitations'>): InvitationView => ({
  ...operatorInvitationView(r),
  role: r.role,
})

const accountView = (found: { member?: MemberRecord; operator?: OperatorRecord }): AccountView =>
  found.operator
    ? { kind: 'operator', member: null, operator: operatorView(found.operator) }
    : { kind: 'member', member: memberView(found.member!), operator: null }

export const normalizeEmail = (email: string) => email.trim().toLowerCase()

/** The audit actor of a signed-in account; an operator's entries go to the platform-wide log. */
export const actorOf = (ctx: AccountContext, meta: RequestMeta): AuditActor => ({
  accountId: accountIdOf(ctx),
  label: emailOf(ctx),
  address: meta.address,
  operator: isOperator(ctx),
})

export interface AccountDeps {
  db: Database
  clock: Clock
  organizations: OrganizationLookup
  /** Counts sign-in attempts per account and per address. */
  rateLimiter: RateLimiter
  publicBaseUrl: string
}

/**
 * The dashboard's accounts: invitations, members and their roles, sign-in and
 * sessions. Every change that matters is written to the audit log in the same
 * transaction.
 */
export function createAccountService(deps: AccountDeps) {
  const { db, clock } = deps

  async function newSession(trx: Database, accountId: string, meta: RequestMeta) {
    const token = randomBase62(43)
    const now = clock.now()
    await insertSession(trx, {
      id: newId(),
      account_id: accountId,
      token_hash: sha256Hex(token),
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      ended_at: null,
      user_agent: meta.userAgent.slice(0, 500),
      address: meta.address,
    })
    return token
  }

  /** The account of an accepted invitation, either kind: its id; 409 when the email has one already. */
  async function newAccount(trx: Database, email: string, passwordHash: string, now: Date) {
    if (await findAccountByEmail(trx, email)) throw new AppError('member_exists')
    const id = newId()
    await insertAccount(trx, {
      id,
      email,
      password_hash: passwordHash,
      created_at: now,
      password_changed_at: now,
    })
    return id
  }

  /**
   * What both kinds of invitation share: the row's common columns and the
   * link, shown once (the service stores only the token's SHA-256); 409 when
   * the email has an account already.
   */
  async function newInvitation(rawEmail: string, actor: AuditActor) {
    const email = normalizeEmail(rawEmail)
    if (await findAccountByEmail(db, email)) throw new AppError('member_exists')
    const token = randomBase62(43)
    const now = clock.now()
    return {
      row: {
        id: newId(),
        email,
        token_hash: sha256Hex(token),
        invited_by: actor.accountId,
        created_at: now,
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
        accepted_at: null,
        revoked_at: null,
      },
      // The token travels in the fragment: browsers never send it to a server.
      url: `${deps.publicBaseUrl}/dashboard/invitation#token=${token}`,
    }
  }

  async function invite(
    organizationId: string,
    input: { email: string; role: Role },
    actor: AuditActor,
  ): Promise<{ invitation: InvitationView; url: string }> {
    const created = await newInvitation(input.email, actor)
    const row = { ...created.row, organization_id: organizationId, role: input.role }
    await db.transaction().execute(async (trx) => {
      await insertInvitation(trx, 'invitations', row)
      await recordAudit(trx, clock, {
        organizationId,
        actor,
        action: 'member.invited',
        subject: row.email,
        details: { role: input.role },
      })
    })
    return { invitation: invitationView(row), url: created.url }
  }

  /**
   * Revokes an open invitation of the scope, recorded in the same transaction;
   * 404 for anything else (unknown, another organization's, accepted, expired,
   * revoked already). Its link then gets invitation_invalid like any bad link.
   */
  async function revoke<S extends InvitationScope>(scope: S, id: string, actor: AuditActor) {
    return db.transaction().execute(async (trx) => {
      const row = isUuid(id) ? await revokeOpenInvitation(trx, scope, id, clock.now()) : undefined
      if (!row) throw new AppError('not_found', { message: 'No pending invitation with this id.' })
      const either = row as InvitationRow<InvitationScope['table']>
      const member = 'role' in either ? either : null
      await recordAudit(trx, clock, {
        organizationId: member ? member.organization_id : null,
        actor,
        action: member ? 'member.invitation_revoked' : 'operator.invitation_revoked',
        subject: either.email,
        ...(member ? { details: { role: member.role } } : {}),
      })
      return { ...row, revoked_at: either.revoked_at! }
    })
  }

  /** The member to act on, in the actor's organization only. */
  async function memberOf(ctx: SessionContext, memberId: string): Promise<MemberRecord> {
    const member = isUuid(memberId) ? await findMember(db, ctx.member.organization_id, memberId) : undefined
    if (!member) throw new AppError('not_found', { message: 'No member with this id.' })
    return member
  }

  return {
    /** The operator invites (an organization's first owner, usually): the token, or an operator account. */
    async inviteByOperator(
      organizationId: string,
      input: { email: string; role: Role },
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ) {
      await deps.organizations.require(organizationId)
      return invite(organizationId, input, actor)
    },

    /** An invitation to become an operator: the link (7 days, single use) is shown once. */
    async inviteOperator(
      input: { email: string },
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ): Promise<{ invitation: OperatorInvitationView; url: string }> {
      const { row, url } = await newInvitation(input.email, actor)
      await db.transaction().execute(async (trx) => {
        await insertInvitation(trx, 'operator_invitations', row)
        await recordAudit(trx, clock, {
          organizationId: null,
          actor,
          action: 'operator.invited',
          subject: row.email,
        })
      })
      return { invitation: operatorInvitationView(row), url }
    },

    /** An organization's members, for the operator console (404 for an unknown organization). */
    async listMembersOf(organizationId: string): Promise<MemberView[]> {
      const organization = await deps.organizations.require(organizationId)
      return (await listMembers(db, organization.id)).map(memberView)
    },

    async listOperators(): Promise<OperatorView[]> {
      return (await listOperators(db)).map(operatorView)
    },

    /** Operator invitations not yet accepted, revoked or expired, oldest first. */
    async listOperatorInvitations(): Promise<OperatorInvitationView[]> {
      const rows = await listOpenInvitations(db, { table: 'operator_invitations' }, clock.now())
      return rows.map(operatorInvitationView)
    },

    async revokeOperatorInvitation(
      invitationId: string,
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ): Promise<OperatorInvitationView & { revoked_at: string }> {
      const row = await revoke({ table: 'operator_invitations' }, invitationId, actor)
      return { ...operatorInvitationView(row), revoked_at: row.revoked_at.toISOString() }
    },

    /**
     * Removes an operator account: its sessions end at once (its next request
     * is 401) and its email is free again. An operator account cannot remove
     * itself (`self`); the operator token always remains, so the platform is
     * never left without an operator.
     */
    async removeOperator(
      operatorId: string,
      by: { actor: AuditActor; self?: string } = { actor: OPERATOR_TOKEN_ACTOR },
    ): Promise<{ operator: OperatorView; sessions_ended: number }> {
      const target = isUuid(operatorId) ? await findOperator(db, operatorId) : undefined
      if (!target) throw new AppError('not_found', { message: 'No operator with this id.' })
      if (target.id === by.self) throw new AppError('operator_self_removal')
      return db.transaction().execute(async (trx) => {
        const ended = await endOtherSessions(trx, target.account_id, null, clock.now())
        if (!(await deleteAccount(trx, target.account_id))) {
          throw new AppError('not_found', { message: 'No operator with this id.' })
        }
        await recordAudit(trx, clock, {
          organizationId: null,
          actor: by.actor,
          action: 'operator.removed',
          subject: target.email,
          details: { sessions_ended: ended },
        })
        return { operator: operatorView(target), sessions_ended: ended }
      })
    },

    /** An organization's open invitations, for the operator (404 for an unknown organization). */
    async listInvitationsOf(organizationId: string): Promise<InvitationView[]> {
      const organization = await deps.organizations.require(organizationId)
      const scope = { table: 'invitations', organizationId: organization.id } as const
      return (await listOpenInvitations(db, scope, clock.now())).map(invitationView)
    },

    /** The operator revokes a pending invitation of any organization. */
    async revokeInvitationByOperator(invitationId: string, actor: AuditActor = OPERATOR_TOKEN_ACTOR) {
      const row = await revoke({ table: 'invitations' }, invitationId, actor)
      return { ...invitationView(row), revoked_at: row.revoked_at.toISOString() }
    },

    async invite(ctx: SessionContext, input: { email: string; role: Role }, meta: RequestMeta) {
      return invite(ctx.member.organization_id, input, actorOf(ctx, meta))
    },

    async listInvitations(ctx: SessionContext): Promise<InvitationView[]> {
      const scope = { table: 'invitations', organizationId: ctx.member.organization_id } as const
      return (await listOpenInvitations(db, scope, clock.now())).map(invitationView)
    },

    /** An owner revokes a pending invitation of the organization. */
    async revokeInvitation(ctx: SessionContext, invitationId: string, meta: RequestMeta) {
      const scope = { table: 'invitations', organizationId: ctx.member.organization_id } as const
      const row = await revoke(scope, invitationId, actorOf(ctx, meta))
      return { ...invitationView(row), revoked_at: row.revoked_at.toISOString() }
    },

    /** What the invitation page shows before the password is set. */
    async lookupInvitation(token: string) {
      const row = await findOpenInvitation(db, 'invitations', sha256Hex(token), clock.now())
      if (row) {
        const organization = await deps.organizations.require(row.organization_id)
        return {
          kind: 'member' as const,
          email: row.email,
          role: row.role,
          organization: { id: organization.id, name: organization.name },
          expires_at: row.expires_at.toISOString(),
        }
      }
      const operator = await findOpenInvitation(db, 'operator_invitations', sha256Hex(token), clock.now())
      if (!operator) throw new AppError('invitation_invalid')
      return {
        kind: 'operator' as const,
        email: operator.email,
        role: null,
        organization: null,
        expires_at: operator.expires_at.toISOString(),
      }
    },

    /** Sets the password, makes the member (or the operator) and signs in; the link works once. */
    async acceptInvitation(
      token: string,
      password: string,
      meta: RequestMeta,
    ): Promise<{ token: string; account: AccountView }> {
      const passwordHash = await hashPassword(password)
      return db.transaction().execute(async (trx) => {
        const now = clock.now()
        const invitation = await lockOpenInvitation(trx, 'invitations', sha256Hex(token), now)
        if (!invitation) {
          const forOperator = await lockOpenInvitation(trx, 'operator_invitations', sha256Hex(token), now)
          if (!forOperator) throw new AppError('invitation_invalid')
          const accountId = await newAccount(trx, forOperator.email, passwordHash, now)
          await insertOperator(trx, { id: newId(), account_id: accountId, created_at: now })
          await markInvitationAccepted(trx, 'operator_invitations', forOperator.id, now)
          await recordAudit(trx, clock, {
            organizationId: null,
            actor: { accountId, label: forOperator.email, address: meta.address, operator: true },
            action: 'operator.joined',
            subject: forOperator.email,
          })
          const sessionToken = await newSession(trx, accountId, meta)
          const operator = (await findOperatorOfAccount(trx, accountId))!
          return { token: sessionToken, account: accountView({ operator }) }
        }
        const accountId = await newAccount(trx, invitation.email, passwordHash, now)
        await insertMember(trx, {
          id: newId(),
          organization_id: invitation.organization_id,
          account_id: accountId,
          role: invitation.role,
          created_at: now,
        })
        await markInvitationAccepted(trx, 'invitations', invitation.id, now)
        await recordAudit(trx, clock, {
          organizationId: invitation.organization_id,
          actor: { accountId, label: invitation.email, address: meta.address },
          action: 'member.joined',
          subject: invitation.email,
          details: { role: invitation.role },
        })
        const sessionToken = await newSession(trx, accountId, meta)
        const member = (await findMemberOfAccount(trx, accountId))!
        return { token: sessionToken, account: accountView({ member }) }
      })
    },

    /** Throttled per account and per address before the password is checked. */
    async signIn(input: { email: string; password: string }, meta: RequestMeta) {
      const email = normalizeEmail(input.email)
      for (const [key, limit] of [
        [`signin:account:${sha256Hex(email)}`, SIGN_IN_LIMITS.perAccount],
        [`signin:address:${meta.address}`, SIGN_IN_LIMITS.perAddress],
      ] as const) {
        const decision = await deps.rateLimiter.hit(key, limit)
        if (!decision.allowed) {
          throw new AppError('sign_in_throttled', {
            message: `Too many sign-in attempts; try again in ${decision.resetSeconds} seconds.`,
            headers: { 'retry-after': String(decision.resetSeconds) },
          })
        }
      }
      const account = await findAccountByEmail(db, email)
      const member = account ? await findMemberOfAccount(db, account.id) : undefined
      const operator = account && !member ? await findOperatorOfAccount(db, account.id) : undefined
      const known = member ?? operator
      const matches = await verifyPassword(input.password, known ? account?.password_hash : undefined)
      if (!account || !known || !matches) throw new AppError('sign_in_failed')
      const token = await db.transaction().execute(async (trx) => {
        await recordAudit(trx, clock, {
          organizationId: member ? member.organization_id : null,
          actor: { accountId: account.id, label: known.email, address: meta.address, operator: !member },
          action: member ? 'member.signed_in' : 'operator.signed_in',
          subject: known.email,
          details: { user_agent: meta.userAgent.slice(0, 200) },
        })
        return newSession(trx, account.id, meta)
      })
      return { token, account: accountView(member ? { member } : { operator: operator! }) }
    },

    /** The session of a cookie's token, or undefined when unknown, ended or expired. */
    async authenticate(token: string | undefined): Promise<AccountContext | undefined> {
      if (!token) return undefined
      const session = await findLiveSession(db, sha256Hex(token))
      if (!session) return undefined
      const now = clock.now()
      if (session.expires_at <= now) return undefined
      if (now.getTime() - session.last_seen_at.getTime() >= SESSION_IDLE_MS) return undefined
      const member = await findMemberOfAccount(db, session.account_id)
      const operator = member ? undefined : await findOperatorOfAccount(db, session.account_id)
      if (!member && !operator) return undefined
      if (now.getTime() - session.last_seen_at.getTime() >= SESSION_TOUCH_MS) {
        await touchSession(db, session.id, now)
      }
      return member ? { sessionId: session.id, member } : { sessionId: session.id, operator: operator! }
    },

    me: (ctx: AccountContext): AccountView =>
      isOperator(ctx) ? accountView({ operator: ctx.operator }) : accountView({ member: ctx.member }),

    async signOut(ctx: AccountContext): Promise<void> {
      await endSession(db, ctx.sessionId, clock.now())
    },

    async signOutOthers(ctx: AccountContext): Promise<number> {
      return endOtherSessions(db, accountIdOf(ctx), ctx.sessionId, clock.now())
    },

    async listSessions(ctx: AccountContext): Promise<SessionView[]> {
      const now = clock.now()
      const rows = await listLiveSessions(
        db,
        accountIdOf(ctx),
        now,
        new Date(now.getTime() - SESSION_IDLE_MS),
      )
      return rows.map((s) => ({
        id: s.id,
        current: s.id === ctx.sessionId,
        user_agent: s.user_agent,
        address: s.address,
        created_at: s.created_at.toISOString(),
        last_seen_at: s.last_seen_at.toISOString(),
        expires_at: s.expires_at.toISOString(),
      }))
    },

    /** Changes the password and ends every other session of the account. */
    async changePassword(
      ctx: AccountContext,
      input: { current_password: string; new_password: string },
      meta: RequestMeta,
    ): Promise<{ sessions_ended: number }> {
      const account = await findAccount(db, accountIdOf(ctx))
      if (!account || !(await verifyPassword(input.current_password, account.password_hash))) {
        throw new AppError('password_incorrect')
      }
      const hash = await hashPassword(input.new_password)
      return db.transaction().execute(async (trx) => {
        const now = clock.now()
        await updatePassword(trx, account.id, hash, now)
        const ended = await endOtherSessions(trx, account.id, ctx.sessionId, now)
        await recordAudit(trx, clock, {
          organizationId: isOperator(ctx) ? null : ctx.member.organization_id,
          actor: actorOf(ctx, meta),
          action: isOperator(ctx) ? 'operator.password_changed' : 'member.password_changed',
          subject: emailOf(ctx),
          details: { sessions_ended: ended },
        })
        return { sessions_ended: ended }
      })
    },

    async listMembers(ctx: SessionContext): Promise<MemberView[]> {
      return (await listMembers(db, ctx.member.organization_id)).map(memberView)
    },

    async changeRole(ctx: SessionContext, memberId: string, role: Role, meta: RequestMeta) {
      const target = await memberOf(ctx, memberId)
      return db.transaction().execute(async (trx) => {
        const owners = await lockOwners(trx, ctx.member.organization_id)
        if (role !== 'owner' && owners.length === 1 && owners[0] === target.id) {
          throw new AppError('last_owner')
        }
        const current = (await findMember(trx, ctx.member.organization_id, target.id)) ?? target
        if (current.role !== role) {
          await updateRole(trx, target.id, role)
          await recordAudit(trx, clock, {
            organizationId: ctx.member.organization_id,
            actor: actorOf(ctx, meta),
            action: 'member.role_changed',
            subject: target.email,
            details: { from: current.role, to: role },
          })
        }
        return memberView({ ...current, role })
      })
    },

    /** Removes the member: its account and sessions end with it. */
    async removeMember(ctx: SessionContext, memberId: string, meta: RequestMeta): Promise<MemberView> {
      const target = await memberOf(ctx, memberId)
      await db.transaction().execute(async (trx) => {
        const owners = await lockOwners(trx, ctx.member.organization_id)
        if (owners.length === 1 && owners[0] === target.id) throw new AppError('last_owner')
        await deleteAccount(trx, target.account_id)
        await recordAudit(trx, clock, {
          organizationId: ctx.member.organization_id,
          actor: actorOf(ctx, meta),
          action: 'member.removed',
          subject: target.email,
          details: { role: target.role },
        })
      })
      return memberView(target)
    },
  }
}

export type AccountService = ReturnType<typeof createAccountService>
