import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import { newId } from '../../lib/ids.ts'
import { sha256Hex } from '../../lib/secrets.ts'
import { recordAudit } from '../audit/audit.service.ts'
import type { AccountDeps } from './accounts.deps.ts'
import {
  findAccountByEmail,
  findMemberOfAccount,
  findOpenInvitation,
  findOperatorOfAccount,
  insertAccount,
  insertMember,
  insertOperator,
  lockOpenInvitation,
  markInvitationAccepted,
} from './accounts.repo.ts'
import { type AccountView, accountView, type RequestMeta } from './accounts.views.ts'
import { hashPassword } from './passwords.ts'
import { startSession } from './sessions.service.ts'

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

/** The invitee's side of both kinds of invitation: what its page shows, and accepting it. */
export function createInvitationAcceptanceService(deps: AccountDeps) {
  const { db, clock } = deps
  const newSession = (trx: Database, accountId: string, meta: RequestMeta) =>
    startSession(trx, clock, accountId, meta)

  return {
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
