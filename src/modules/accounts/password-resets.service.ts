import { AppError } from '../../http/errors.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { randomBase62, sha256Hex } from '../../lib/secrets.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../audit/audit.service.ts'
import type { AccountDeps } from './accounts.deps.ts'
import {
  endOtherSessions,
  findAccountByEmail,
  findMember,
  findMemberOfAccount,
  findOpenPasswordReset,
  findOperator,
  findOperatorOfAccount,
  insertPasswordReset,
  lockOpenPasswordReset,
  markPasswordResetUsed,
  revokeOpenPasswordResets,
  updatePassword,
} from './accounts.repo.ts'
import {
  type AccountView,
  accountView,
  actorOf,
  normalizeEmail,
  type RequestMeta,
  type SessionContext,
} from './accounts.views.ts'
import { PASSWORD_RESET_TTL_MS } from './limits.ts'
import { hashPassword } from './passwords.ts'
import { startSession } from './sessions.service.ts'

/** Whose password a link resets: a member (its organization's log) or an operator (the platform's). */
interface ResetTarget {
  accountId: string
  email: string
  organizationId: string | null
}

/** What issuing answers: the link, shown once (only the token's SHA-256 is stored). */
export interface PasswordResetIssued {
  password_reset: { email: string; created_at: string; expires_at: string; replaced: boolean }
  url: string
}

/**
 * A new link for the account, in one transaction with its audit entry: an
 * unused earlier link stops working. The token travels in the fragment, which
 * browsers never send to a server.
 */
async function issue(
  deps: AccountDeps,
  target: ResetTarget,
  actor: AuditActor,
): Promise<PasswordResetIssued> {
  const { db, clock } = deps
  const token = randomBase62(43)
  const now = clock.now()
  const expires = new Date(now.getTime() + PASSWORD_RESET_TTL_MS)
  const replaced = await db.transaction().execute(async (trx) => {
    const revoked = await revokeOpenPasswordResets(trx, target.accountId, now)
    await insertPasswordReset(trx, {
      id: newId(),
      account_id: target.accountId,
      token_hash: sha256Hex(token),
      issued_by: actor.accountId,
      created_at: now,
      expires_at: expires,
      used_at: null,
      revoked_at: null,
    })
    await recordAudit(trx, clock, {
      organizationId: target.organizationId,
      actor,
      action: target.organizationId ? 'member.password_reset_issued' : 'operator.password_reset_issued',
      subject: target.email,
      details: { replaced: revoked > 0 },
    })
    return revoked > 0
  })
  return {
    password_reset: {
      email: target.email,
      created_at: now.toISOString(),
      expires_at: expires.toISOString(),
      replaced,
    },
    url: `${deps.publicBaseUrl}/dashboard/password-reset#token=${token}`,
  }
}

const noMember = () => new AppError('not_found', { message: 'No member with this id.' })

/**
 * Password resets: an owner issues a link for a member of the organization,
 * an operator for any member or operator; the service sends no email. The
 * link sets the password once, within the hour, ends every session of the
 * account and signs in.
 */
export function createPasswordResetService(deps: AccountDeps) {
  const { db, clock } = deps

  const memberTarget = async (organizationId: string, memberId: string): Promise<ResetTarget> => {
    const member = isUuid(memberId) ? await findMember(db, organizationId, memberId) : undefined
    if (!member) throw noMember()
    return { accountId: member.account_id, email: member.email, organizationId }
  }

  return {
    /** An owner issues a link for a member of the organization (404 for anyone else). */
    async issuePasswordReset(ctx: SessionContext, memberId: string, meta: RequestMeta) {
      const target = await memberTarget(ctx.member.organization_id, memberId)
      return issue(deps, target, actorOf(ctx, meta))
    },

    /** The operator issues a link for a member of an organization (404 for an unknown one of either). */
    async issuePasswordResetByOperator(
      organizationId: string,
      memberId: string,
      actor: AuditActor = OPERATOR_TOKEN_ACTOR,
    ) {
      const organization = await deps.organizations.require(organizationId)
      return issue(deps, await memberTarget(organization.id, memberId), actor)
    },

    /** The operator issues a link for an operator account. */
    async issueOperatorPasswordReset(operatorId: string, actor: AuditActor = OPERATOR_TOKEN_ACTOR) {
      const operator = isUuid(operatorId) ? await findOperator(db, operatorId) : undefined
      if (!operator) throw new AppError('not_found', { message: 'No operator with this id.' })
      return issue(
        deps,
        { accountId: operator.account_id, email: operator.email, organizationId: null },
        actor,
      )
    },

    /** The operator issues a link for the account of an email, member or operator (404 for none). */
    async issuePasswordResetByEmail(email: string, actor: AuditActor = OPERATOR_TOKEN_ACTOR) {
      const account = await findAccountByEmail(db, normalizeEmail(email))
      const member = account ? await findMemberOfAccount(db, account.id) : undefined
      const operator = account && !member ? await findOperatorOfAccount(db, account.id) : undefined
      if (!account || (!member && !operator)) {
        throw new AppError('not_found', { message: 'No member or operator with this email.' })
      }
      return issue(
        deps,
        { accountId: account.id, email: account.email, organizationId: member?.organization_id ?? null },
        actor,
      )
    },

    /** What the reset page shows before the password is set. */
    async lookupPasswordReset(token: string) {
      const reset = await findOpenPasswordReset(db, sha256Hex(token), clock.now())
      if (!reset) throw new AppError('password_reset_invalid')
      return { email: reset.email, expires_at: reset.expires_at.toISOString() }
    },

    /**
     * Sets the password, ends every session of the account and starts this
     * one; the link works once. Recorded in the account's log, by the account.
     */
    async resetPassword(
      token: string,
      password: string,
      meta: RequestMeta,
    ): Promise<{ token: string; account: AccountView; sessions_ended: number }> {
      const passwordHash = await hashPassword(password, deps.passwordCost)
      return db.transaction().execute(async (trx) => {
        const now = clock.now()
        const reset = await lockOpenPasswordReset(trx, sha256Hex(token), now)
        if (!reset) throw new AppError('password_reset_invalid')
        const member = await findMemberOfAccount(trx, reset.account_id)
        const operator = member ? undefined : await findOperatorOfAccount(trx, reset.account_id)
        if (!member && !operator) throw new AppError('password_reset_invalid')
        await updatePassword(trx, reset.account_id, passwordHash, now)
        await markPasswordResetUsed(trx, reset.id, now)
        const ended = await endOtherSessions(trx, reset.account_id, null, now)
        await recordAudit(trx, clock, {
          organizationId: member ? member.organization_id : null,
          actor: {
            accountId: reset.account_id,
            label: reset.email,
            address: meta.address,
            operator: !member,
          },
          action: member ? 'member.password_reset' : 'operator.password_reset',
          subject: reset.email,
          details: { sessions_ended: ended },
        })
        const sessionToken = await startSession(trx, clock, reset.account_id, meta)
        return {
          token: sessionToken,
          account: accountView(member ? { member } : { operator: operator! }),
          sessions_ended: ended,
        }
      })
    },
  }
}
