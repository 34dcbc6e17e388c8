import type { WebhookEndpointRow } from '../../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../../http/errors.ts'
import { newId } from '../../../lib/ids.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import { cancelReplays } from '../deliveries/replays.repo.ts'
import { failPendingDeliveries } from '../outbox/outbox.service.ts'
import {
  MAX_ACTIVE_ENDPOINTS,
  MAX_LISTED_ENDPOINTS,
  type WebhookContext,
  type WebhookScope,
} from '../webhooks.context.ts'
import { disabled, endpointView, newSecret } from '../webhooks.views.ts'
import { checkWebhookUrl } from '../worker/ssrf.ts'
import { checkEnabledEvents, parseEnabledEvents } from './enabled-events.ts'
import {
  deactivateEndpoint,
  insertEndpoint,
  listEndpoints,
  lockAndCountActive,
  updateActiveEndpoint,
} from './endpoints.repo.ts'
import { createEndpointHealthService } from './health.service.ts'
import { createSecretService } from './secrets.service.ts'
import { createTestEventService } from './test-events.service.ts'

/**
 * Webhook endpoints: registering, changing and removing them here; their
 * health (health.service.ts), secrets (secrets.service.ts) and test pings and
 * sample events (test-events.service.ts) beside.
 */
export function createEndpointService(ctx: WebhookContext) {
  const { db, clock, allowed, secretBox, audit, ownEndpoint } = ctx

  return {
    async create(
      scope: WebhookScope,
      input: { url: string; description?: string | undefined; enabled_events?: string[] | undefined },
      actor?: AuditActor,
    ) {
      const enabledEvents = checkEnabledEvents(input.enabled_events ?? ['*'])
      const { url, addresses } = await checkWebhookUrl(input.url, {
        resolver: ctx.resolver,
        allowed,
        serviceUrl: ctx.serviceUrl,
      })
      const secret = newSecret()
      const sealed = (await secretBox()).seal(secret)
      const now = clock.now()
      const row: WebhookEndpointRow = {
        id: newId(),
        organization_id: scope.organizationId,
        environment: scope.environment,
        url: url.href,
        description: input.description ?? '',
        secret_encrypted: sealed,
        previous_secret_encrypted: null,
        previous_secret_expires_at: null,
        pinned_addresses: addresses,
        enabled_events: enabledEvents,
        is_active: true,
        disabled_reason: null,
        consecutive_failures: 0,
        last_success_at: null,
        last_failure_at: null,
        created_at: now,
        disabled_at: null,
        next_probe_at: null,
        secret_changed_at: null,
      }
      await db.transaction().execute(async (trx) => {
        // Locked per organization, so two simultaneous requests cannot both see four active endpoints.
        if ((await lockAndCountActive(trx, scope)) >= MAX_ACTIVE_ENDPOINTS) {
          throw new AppError('webhook_limit_reached', {
            message: `This environment already has ${MAX_ACTIVE_ENDPOINTS} active webhook endpoints; delete one first.`,
          })
        }
        await insertEndpoint(trx, row)
        await audit(trx, actor, scope, 'webhook_endpoint.created', row, {
          environment: row.environment,
          description: row.description,
          enabled_events: row.enabled_events,
        })
      })
      return { endpoint: endpointView(row, now), secret }
    },

    ...createEndpointHealthService(ctx),

    /** One endpoint of the caller's (disabled ones too), or 404. */
    async get(scope: WebhookScope, id: string) {
      return endpointView(await ownEndpoint(scope, id), clock.now())
    },

    async list(scope: WebhookScope) {
      const now = clock.now()
      return (await listEndpoints(db, scope, MAX_LISTED_ENDPOINTS)).map((row) => endpointView(row, now))
    },

    ...createSecretService(ctx),

    /**
     * Changes the description and/or the event filter of an active endpoint.
     * Its URL is fixed: a new address is a new endpoint (register it, then
     * delete this one).
     */
    async update(
      scope: WebhookScope,
      id: string,
      input: { url?: unknown; description?: string | undefined; enabled_events?: string[] | undefined },
      actor?: AuditActor,
    ) {
      const endpoint = await ownEndpoint(scope, id)
      const { events, errors } = parseEnabledEvents(input.enabled_events ?? ['*'])
      if (input.url !== undefined) {
        const url: ValidationEntry = {
          code: 'invalid_format',
          field: 'url',
          message: 'url cannot be changed: register a new endpoint for the new URL, then delete this one.',
        }
        throw AppError.validation(
          [url, ...errors],
          'An endpoint\u2019s URL cannot be changed: register a new endpoint for the new URL, then delete this one.',
        )
      }
      if (errors.length > 0) throw AppError.validation(errors)
      const changes = {
        ...(input.description === undefined ? {} : { description: input.description }),
        ...(input.enabled_events === undefined ? {} : { enabled_events: events }),
      }
      if (!endpoint.is_active) throw disabled('The endpoint is disabled and cannot be changed.')
      const updated = await db.transaction().execute(async (trx) => {
        const row = await updateActiveEndpoint(trx, endpoint.id, changes)
        if (row) await audit(trx, actor, scope, 'webhook_endpoint.updated', row, { changes })
        return row
      })
      if (!updated) throw disabled('The endpoint is disabled and cannot be changed.')
      return { endpoint: endpointView(updated, clock.now()) }
    },

    /** Permanent; a second delete answers the same. Pending deliveries fail with endpoint_disabled. */
    async remove(scope: WebhookScope, id: string, actor?: AuditActor) {
      const endpoint = await ownEndpoint(scope, id)
      if (endpoint.is_active) {
        await db.transaction().execute(async (trx) => {
          await deactivateEndpoint(trx, endpoint.id, clock.now())
          await audit(trx, actor, scope, 'webhook_endpoint.deleted', endpoint)
          await failPendingDeliveries(trx, endpoint.id, clock.now())
          await cancelReplays(trx, endpoint.id, clock.now())
        })
      }
      return { id: endpoint.id, is_active: false }
    },

    ...createTestEventService(ctx),
  }
}
