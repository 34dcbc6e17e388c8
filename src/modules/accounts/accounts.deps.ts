import type { Database } from '../../db/database.ts'
import type { RateLimiter } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import type { PasswordCost } from './passwords.ts'

/** What the accounts service needs, shared by its parts. */
export interface AccountDeps {
  db: Database
  clock: Clock
  organizations: OrganizationLookup
  /** Counts sign-in attempts per address and per (account, address). */
  rateLimiter: RateLimiter
  publicBaseUrl: string
  /** The cost of new password hashes; PASSWORD_COST unless a test saves time. */
  passwordCost?: PasswordCost
}
