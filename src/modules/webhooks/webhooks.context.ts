import type { Database } from '../../db/database.ts'
import type { WebhookEndpointRow } from '../../db/schema.ts'
import { inScope } from '../../http/not-found.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { createSecretBox, type SecretBox } from '../../lib/secret-box.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { type AuditAction, type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { type EndpointScope, findEndpoint } from './endpoints/endpoints.repo.ts'
import { NO_WEBHOOKS, webhookHealthByOrganization } from './endpoints/health.repo.ts'
import { endpointNotFound } from './webhooks.views.ts'
import { parseCidrs, type Resolver } from './worker/ssrf.ts'

export const MAX_ACTIVE_ENDPOINTS = 5
export const MAX_LISTED_ENDPOINTS = 50

export type WebhookScope = EndpointScope

export interface WebhookDeps {
  db: Database
  clock: Clock
  resolver: Resolver
  allowPrivateCidrs: string[]
  /** The service's PUBLIC_BASE_URL, named in the listen command a refused URL's message suggests. */
  publicBaseUrl: string
}

/** What the endpoint and delivery halves of the webhook service share: the database, the URL checks, sealing, auditing and the caller's endpoint. */
export function webhookContext(deps: WebhookDeps) {
  const { db, clock } = deps
  const allowed = parseCidrs(deps.allowPrivateCidrs)
  let box: SecretBox | undefined

  async function secretBox(): Promise<SecretBox> {
    box ??= createSecretBox(await serviceSecret(db, 'webhook_secret_key'))
    return box
  }

  /**
   * The audit entry of a change made by a dashboard member (`actor`), in the
   * change's transaction; /v1 calls pass no actor and record none. Never a secret.
   */
  async function audit(
    trx: Database,
    actor: AuditActor | undefined,
    scope: { organizationId: string },
    action: AuditAction,
    endpoint: { id: string; url: string },
    details: Record<string, unknown> = {},
  ) {
    if (!actor) return
    await recordAudit(trx, clock, {
      organizationId: scope.organizationId,
      actor,
      action,
      subject: endpoint.url,
      details: { endpoint_id: endpoint.id, ...details },
    })
  }

  /**
   * The caller's endpoint, or 404 for unknown, foreign and other-environment
   * ids alike; without a scope (the operator), any endpoint.
   */
  async function ownEndpoint(scope: WebhookScope | undefined, id: string): Promise<WebhookEndpointRow> {
    // Read by id alone, so that a miss can say the id is this organization's other environment's.
    const row = isUuid(id) ? await findEndpoint(db, id) : undefined
    if (!row || !inScope(scope, row)) throw endpointNotFound(scope, row)
    return row
  }

  /**
   * Endpoints by state and deliveries that failed in the last 24 hours, for
   * many organizations (all when `organizationIds` is undefined) in one
   * statement: a lookup by organization id. `failed24h` false: endpoints only.
   */
  async function healthByOrganization(
    environment: WebhookScope['environment'],
    organizationIds?: readonly string[],
    failed24h = true,
  ) {
    const since = failed24h ? new Date(clock.now().getTime() - 24 * 3600_000) : null
    const health = await webhookHealthByOrganization(db, environment, since, organizationIds)
    return (organizationId: string) => health.get(organizationId) ?? NO_WEBHOOKS
  }

  return {
    db,
    clock,
    resolver: deps.resolver,
    allowed,
    serviceUrl: deps.publicBaseUrl,
    secretBox,
    audit,
    ownEndpoint,
    healthByOrganization,
  }
}

export type WebhookContext = ReturnType<typeof webhookContext>
