export const SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'] as const
export type Scope = (typeof SCOPES)[number]

export type Environment = 'test' | 'live'

/** The authenticated caller of a public route. */
export interface Principal {
  keyId: string
  keyPrefix: string
  organizationId: string
  organizationName: string
  environment: Environment
  scopes: string[]
}
