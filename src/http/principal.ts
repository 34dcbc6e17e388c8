import type { Environment } from '../db/schema.ts'

/** The scopes an API key may carry; a route names those it needs in `config.scopes`. */
export const SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'] as const
export type Scope = (typeof SCOPES)[number]

/** The authenticated caller of a public route. */
export interface Principal {
  keyId: string
  keyPrefix: string
  organizationId: string
  organizationName: string
  environment: Environment
  scopes: string[]
  /**
   * false: the key came from this instance's memory, and another instance
   * may have revoked it since; a request must check it in the database
   * (`KeyAuthenticator.confirm`, or the route's own statement) before it acts.
   */
  confirmed: boolean
}

/**
 * What authentication needs from whoever keeps the API keys (the auth module,
 * wired in by app.ts): the principal of a presented key, or undefined for every
 * kind of bad key alike.
 */
export interface KeyAuthenticator {
  authenticate(presented: string | undefined): Promise<Principal | undefined>
  /** Whether the key is still not revoked (forgotten if it is). */
  confirm(principal: Pick<Principal, 'keyId' | 'confirmed'>): Promise<boolean>
}
