import type { Role } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../audit/audit.service.ts'
import type { AccountDeps } from './accounts.deps.ts'
import {
  findAccountByEmail,
  type InvitationRow,
  type InvitationScope,
  insertInvitation,
  listOpenInvitations,
  revokeOpenInvitation,
} from './accounts.repo.ts'
import {
  actorOf,
  type InvitationView,
  invitationView,
  normalizeEmail,
  type OperatorInvitationView,
  operatorInvitationView,
  type RequestMeta,
  type SessionContext,
} from './accounts.views.ts'
import { createInvitationAcceptanceService } from './invitation-acceptance.service.ts'
import { INVITATION_TTL_MS } from './limits.ts'

/**
 * What both kinds of invitation share: the row's common columns and the
 * link, shown once (the service stores only the token's SHA-256); 409 when
 * the email has an account already.
 */
async function newInvitation(deps: AccountDeps, rawEmail: string, actor: AuditActor) {
  const { db, clock } = deps
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

/** An invitation to the organization with a role, recorded in the audit log in the same transaction. */
async function invite(
  deps: AccountDeps,
  organizationId: string,
  input: { email: string; role: Role },
  actor: AuditActor,
): Promise<{ invitation: InvitationView; url: string }> {
  const { db, clock } = deps
  const created = await newInvitation(deps, input.email, actor)
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
async function revoke<S extends InvitationScope>(deps: AccountDeps, scope: S, id: string, actor: AuditActor) {
  const { db, clock } = deps
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

/**
 * Invitations of both kinds (to an organization, to operate the platform):
 * issuing, listing and revoking them; accepting them is
 * invitation-acceptance.service.ts.
 */
export function createInvitationService(deps: AccountDeps) {
  const { db, clock } = deps

  return {
    /** The operator invites (an organization's first owner, usually): the token, or an operator account. */
    async inviteByOperator(
      organizationId: string,
      input: { email: string; role: Role },
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ) {
      await deps.organizations.require(organizationId)
      return invite(deps, organizationId, input, actor)
    },

    /** An invitation to become an operator: the link (7 days, single use) is shown once. */
    async inviteOperator(
      input: { email: string },
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ): Promise<{ invitation: OperatorInvitationView; url: string }> {
      const { row, url } = await newInvitation(deps, input.email, actor)
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
      const row = await revoke(deps, { table: 'operator_invitations' }, invitationId, actor)
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
      const row = await revoke(deps, { table: 'invitations' }, invitationId, actor)
      return { ...invitationView(row), revoked_at: row.revoked_at.toISOString() }
    },

    async invite(ctx: SessionContext, input: { email: string; role: Role }, meta: RequestMeta) {
      return invite(deps, ctx.member.organization_id, input, actorOf(ctx, meta))
    },

    async listInvitations(ctx: SessionContext): Promise<InvitationView[]> {
      const scope = { table: 'invitations', organizationId: ctx.member.organization_id } as const
      return (await listOpenInvitations(db, scope, clock.now())).map(invitationView)
    },

    /** An owner revokes a pending invitation of the organization. */
    async revokeInvitation(ctx: SessionContext, invitationId: string, meta: RequestMeta) {
      const scope = { table: 'invitations', organizationId: ctx.member.organization_id } as const
      const row = await revoke(deps, scope, invitationId, actorOf(ctx, meta))
      return { ...invitationView(row), revoked_at: row.revoked_at.toISOString() }
    },

    ...createInvitationAcceptanceService(deps),
  }
}
