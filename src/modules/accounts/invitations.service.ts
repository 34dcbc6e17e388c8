import type { Database } from '../../db/database.ts'
import type { Role } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../audit/audit.service.ts'
import type { AccountDeps } from './accounts.deps.ts'
import {
  findAccountByEmail,
  findMemberOfAccount,
  findOpenInvitation,
  findOperatorOfAccount,
  type InvitationRow,
  type InvitationScope,
  insertAccount,
  insertInvitation,
  insertMember,
  insertOperator,
  listOpenInvitations,
  lockOpenInvitation,
  markInvitationAccepted,
  revokeOpenInvitation,
} from './accounts.repo.ts'
import {
  type AccountView,
  accountView,
  actorOf,
  type InvitationView,
  invitationView,
  normalizeEmail,
  type OperatorInvitationView,
  operatorInvitationView,
  type RequestMeta,
  type SessionContext,
} from './accounts.views.ts'
import { INVITATION_TTL_MS } from './limits.ts'
import { hashPassword } from './passwords.ts'
import { startSession } from './sessions.service.ts'

/** Invitations of both kinds (to an organization, to operate the platform) and accepting them. */
export function createInvitationService(deps: AccountDeps) {
  const { db, clock } = deps
  const newSession = (trx: Database, accountId: string, meta: RequestMeta) =>
    startSession(trx, clock, accountId, meta)

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
      const passwordHash = await hashPassword(password, deps.passwordCost)
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
  }
}
