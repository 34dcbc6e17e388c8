import type { Role } from '../../../db/schema.ts'
import { AppError } from '../../../http/errors.ts'
import { isUuid } from '../../../lib/ids.ts'
import { type AuditActor, OPERATOR_TOKEN_ACTOR, recordAudit } from '../../audit/audit.service.ts'
import type { AccountDeps } from '../accounts.deps.ts'
import {
  deleteAccount,
  endOtherSessions,
  findMember,
  findOperator,
  listMembers,
  listOperators,
  lockOwners,
  type MemberRecord,
  updateRole,
} from '../accounts.repo.ts'
import {
  actorOf,
  type MemberView,
  memberView,
  type OperatorView,
  operatorView,
  type RequestMeta,
  type SessionContext,
} from '../accounts.views.ts'

/** An organization's members and their roles, and the platform's operators. */
export function createMemberService(deps: AccountDeps) {
  const { db, clock } = deps

  /** The member to act on, in the actor's organization only. */
  async function memberOf(ctx: SessionContext, memberId: string): Promise<MemberRecord> {
    const member = isUuid(memberId) ? await findMember(db, ctx.member.organization_id, memberId) : undefined
    if (!member) throw new AppError('not_found', { message: 'No member with this id.' })
    return member
  }

  return {
    /** An organization's members, for the operator console (404 for an unknown organization). */
    async listMembersOf(organizationId: string): Promise<MemberView[]> {
      const organization = await deps.organizations.require(organizationId)
      return (await listMembers(db, organization.id)).map(memberView)
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

    async listOperators(): Promise<OperatorView[]> {
      return (await listOperators(db)).map(operatorView)
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
  }
}
