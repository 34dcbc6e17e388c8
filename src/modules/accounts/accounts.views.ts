import type { Role } from '../../db/schema.ts'
import type { AuditActor } from '../audit/audit.service.ts'
import type { InvitationRow, MemberRecord, OperatorRecord } from './accounts.repo.ts'

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
export const accountIdOf = (ctx: AccountContext) => (isOperator(ctx) ? ctx.operator : ctx.member).account_id
export const emailOf = (ctx: AccountContext) => (isOperator(ctx) ? ctx.operator : ctx.member).email

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
  browser?: string
  address: string
  created_at: string
  last_seen_at: string
  expires_at: string
}

export const memberView = (m: MemberRecord): MemberView => ({
  id: m.id,
  email: m.email,
  role: m.role,
  organization: { id: m.organization_id, name: m.organization_name },
  created_at: m.created_at.toISOString(),
})

export const operatorView = (o: OperatorRecord): OperatorView => ({
  id: o.id,
  email: o.email,
  created_at: o.created_at.toISOString(),
})

export const operatorInvitationView = (r: InvitationRow<'operator_invitations'>): OperatorInvitationView => ({
  id: r.id,
  email: r.email,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at.toISOString(),
})

export const invitationView = (r: InvitationRow<'invitations'>): InvitationView => ({
  ...operatorInvitationView(r),
  role: r.role,
})

export const accountView = (found: { member?: MemberRecord; operator?: OperatorRecord }): AccountView =>
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
