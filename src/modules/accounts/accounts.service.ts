import type { AccountDeps } from './accounts.deps.ts'
import { createInvitationService } from './invitations.service.ts'
import { createMemberService } from './members/members.service.ts'
import { createPasswordResetService } from './password-resets.service.ts'
import { createSessionService } from './sessions.service.ts'

export type { AccountDeps } from './accounts.deps.ts'

/**
 * The dashboard's accounts: invitations, members and their roles, sign-in and
 * sessions, password resets, operators. Every change that matters is written to the audit log
 * in the same transaction. One service made of four parts, each in its file.
 */
export function createAccountService(deps: AccountDeps) {
  return {
    ...createInvitationService(deps),
    ...createMemberService(deps),
    ...createSessionService(deps),
    ...createPasswordResetService(deps),
  }
}

export type AccountService = ReturnType<typeof createAccountService>
