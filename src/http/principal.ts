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
}

/**
 * What authentication needs from whoever keeps the API keys (the auth module,
 * wired in by app.ts): the principal of a presented key, or undefined for every
 * kind of bad key alike.
 */
export interface KeyAuthenticator {
  authenticate(presented: string | undefined): Promise<Principal | undefined>
}
