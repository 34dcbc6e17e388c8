import type { Environment } from '../db/schema.ts'

/** The scopes an API key may carry; a route names those it needs in `config.scopes`. */
export const SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'] as const
export type Scope = (typeof SCOPES)[number]

/**
 * What each scope lets a key do: `label` for a person picking scopes,
 * `permits` the /v1 operations it opens. The dashboard's key form, the OpenAPI
 * document and docs/api.md say these; a test checks `covers` (an operation,
 * `METHOD /path`, or every operation under a path) against the routes.
 */
export const SCOPE_PERMITS: Record<Scope, { label: string; permits: string; covers: readonly string[] }> = {
  'orders:read': {
    label: 'Read orders',
    permits: 'GET /v1/orders (the list for polling) and GET /v1/orders/{id}',
    covers: ['GET /v1/orders', 'GET /v1/orders/{id}'],
  },
  'orders:write': {
    label: 'Create orders',
    permits: 'POST /v1/orders; orders cannot be changed or cancelled through the API',
    covers: ['POST /v1/orders'],
  },
  'files:write': {
    label: 'Upload files',
    permits: 'POST /v1/uploads, the upload slots for order files (the signed PUT itself needs no key)',
    covers: ['POST /v1/uploads'],
  },
  'webhooks:manage': {
    label: 'Manage webhooks',
    permits:
      'every webhook endpoint operation (register, list, change, delete, test, rotate the secret, replay), the delivery log and redelivery, and the listen stream and trigger',
    covers: ['/v1/webhook-endpoints', '/v1/webhook-deliveries', '/v1/webhook-events'],
  },
}

/** One line per scope, for descriptions: `` `orders:read` (Read orders): GET /v1/orders ... ``. */
export const SCOPE_LINES = SCOPES.map(
  (s) => `\`${s}\` (${SCOPE_PERMITS[s].label}): ${SCOPE_PERMITS[s].permits}.`,
)

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
