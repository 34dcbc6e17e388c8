/** Tables of the dashboard's accounts: members, operators, invitations, sessions, and the audit log. */
import type { Generated } from 'kysely'
import type { Json } from './common.ts'

export const ROLES = ['owner', 'developer', 'viewer'] as const

export type Role = (typeof ROLES)[number]

export interface AccountTable {
  id: string
  /** Lower-cased. */
  email: string
  /** scrypt$N$r$p$salt$hash (base64url). */
  password_hash: string
  created_at: Date
  password_changed_at: Date
}

export interface MemberTable {
  id: string
  organization_id: string
  account_id: string
  role: Role
  created_at: Date
}

export interface InvitationTable {
  id: string
  organization_id: string
  email: string
  role: Role
  token_hash: string
  /** The inviting account; null when the operator invited. */
  invited_by: string | null
  created_at: Date
  expires_at: Date
  accepted_at: Date | null
  revoked_at: Date | null
}

export interface DashboardSessionTable {
  id: string
  account_id: string
  token_hash: string
  created_at: Date
  last_seen_at: Date
  /** The absolute expiry; the idle one is last_seen_at plus the idle limit. */
  expires_at: Date
  ended_at: Date | null
  user_agent: string
  address: string
}

export interface OperatorTable {
  id: string
  account_id: string
  created_at: Date
}

/** An invitation to become an operator: no organization, no role. */
export interface OperatorInvitationTable {
  id: string
  email: string
  token_hash: string
  /** The inviting operator account; null when the operator token invited. */
  invited_by: string | null
  created_at: Date
  expires_at: Date
  accepted_at: Date | null
  revoked_at: Date | null
}

/** A link that sets an account's password once, issued by an owner or an operator. */
export interface PasswordResetTable {
  id: string
  account_id: string
  token_hash: string
  /** The issuing account; null when the operator token issued it. */
  issued_by: string | null
  created_at: Date
  expires_at: Date
  used_at: Date | null
  /** Replaced by a newer link, or made void by a password change. */
  revoked_at: Date | null
}

export interface AuditLogTable {
  id: string
  /** The organization the entry concerns; null for the platform's own changes (operators). */
  organization_id: string | null
  actor_account_id: string | null
  /** The actor as shown: an account's email, or `operator token`. */
  actor: string
  /** Done by an operator (an operator account or the operator token): the platform-wide log. */
  by_operator: Generated<boolean>
  action: string
  subject: string
  details: Json<Record<string, unknown>>
  address: string | null
  created_at: Date
}
