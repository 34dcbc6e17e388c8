import type { WebhookEndpointRow } from '../../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../../http/errors.ts'
import { isUuid, newId } from '../../../lib/ids.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import { webhookDailyOutcomes } from '../deliveries/daily-outcomes.repo.ts'
import { cancelReplays } from '../deliveries/replays.repo.ts'
import { sampleEventData } from '../listen/sample-events.ts'
import { type EventType, eventData, failPendingDeliveries, recordEvent } from '../outbox/outbox.service.ts'
import {
  MAX_ACTIVE_ENDPOINTS,
  MAX_LISTED_ENDPOINTS,
  type WebhookContext,
  type WebhookScope,
} from '../webhooks.context.ts'
import { DEFAULT_ROTATION_GRACE_S } from '../webhooks.schemas.ts'
import { disabled, endpointNotFound, endpointView, iso, newSecret } from '../webhooks.views.ts'
import { checkWebhookUrl } from '../worker/ssrf.ts'
import { checkEnabledEvents, parseEnabledEvents } from './enabled-events.ts'
import {
  deactivateEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  lockAndCountActive,
  lockEndpoint,
  replaceSecret,
  updateActiveEndpoint,
} from './endpoints.repo.ts'

/** The UTC day `back` days before `now`, as YYYY-MM-DD. */
function utcDay(now: Date, back: number): string {
  return new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
}

/** Webhook endpoints: registering, changing, rotating secrets, removing, test pings and health. */
export function createEndpointService(ctx: WebhookContext) {
  const { db, clock, allowed, secretBox, audit, ownEndpoint, healthByOrganization } = ctx

  return {
    async create(
      scope: WebhookScope,
      input: { url: string; description?: string | undefined; enabled_events?: string[] | undefined },
      actor?: AuditActor,
    ) {
      const enabledEvents = checkEnabledEvents(input.enabled_events ?? ['*'])
      const { url, addresses } = await checkWebhookUrl(input.url, { resolver: ctx.resolver, allowed })
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

    /** The environment's endpoints: active, failing (waiting for a probe), disabled after too many failures. */
    async endpointHealth(scope: WebhookScope) {
      const lookup = await healthByOrganization(scope.environment, [scope.organizationId], false)
      const { failed_deliveries_24h: _, ...endpoints } = lookup(scope.organizationId)
      return endpoints
    },

    /** Endpoints by state and deliveries that failed in the last 24 hours, per organization (the console). */
    healthByOrganization: (environment: WebhookScope['environment'], organizationIds?: readonly string[]) =>
      healthByOrganization(environment, organizationIds),

    /**
     * The deliveries settled (succeeded, or failed for good) on each of the
     * last `days` UTC days (today included), oldest first; of one
     * organization or of all.
     */
    async dailyOutcomes(environment: WebhookScope['environment'], days: number, organizationId?: string) {
      const rows = await webhookDailyOutcomes(db, environment, utcDay(clock.now(), days - 1), organizationId)
      const byDay = new Map(rows.map((row) => [row.day, row]))
      return Array.from({ length: days }, (_, n) => {
        const day = utcDay(clock.now(), days - 1 - n)
        return byDay.get(day) ?? { day, succeeded: 0, failed: 0 }
      })
    },

    /** One endpoint of the caller's (disabled ones too), or 404. */
    async get(scope: WebhookScope, id: string) {
      return endpointView(await ownEndpoint(scope, id), clock.now())
    },

    async list(scope: WebhookScope) {
      const now = clock.now()
      return (await listEndpoints(db, scope, MAX_LISTED_ENDPOINTS)).map((row) => endpointView(row, now))
    },

    /**
     * A new secret, returned this once. The current one becomes the previous
     * secret and signs beside the new one for the grace period (0: not at all).
     * An endpoint keeps one previous secret: rotating again during a grace
     * period drops the older one at once.
     */
    async rotateSecret(
      scope: WebhookScope,
      id: string,
      input: { grace_period_seconds?: number | undefined },
      actor?: AuditActor,
    ) {
      if (!isUuid(id)) throw endpointNotFound()
      const grace = input.grace_period_seconds ?? DEFAULT_ROTATION_GRACE_S
      const secret = newSecret()
      const sealed = (await secretBox()).seal(secret)
      const now = clock.now()
      const endsAt = new Date(now.getTime() + grace * 1000)
      const row = await db.transaction().execute(async (trx) => {
        // Locked, so two rotations at once run one after the other: the second keeps the first's secret as previous.
        const current = await lockEndpoint(trx, scope, id)
        if (!current) throw endpointNotFound(scope, await findEndpoint(trx, id))
        if (!current.is_active) {
          throw AppError.validation(
            [
              {
                code: 'invalid_format',
                field: 'id',
                message: 'The endpoint is disabled; register a new one.',
              },
            ],
            'The endpoint is disabled; its secret cannot be rotated.',
          )
        }
        const rotated = await replaceSecret(trx, current.id, {
          secret_encrypted: sealed,
          previous_secret_encrypted: grace > 0 ? current.secret_encrypted : null,
          previous_secret_expires_at: grace > 0 ? endsAt : null,
        })
        await audit(trx, actor, scope, 'webhook_endpoint.secret_rotated', current, {
          grace_period_seconds: grace,
          previous_secret_expires_at: endsAt.toISOString(),
        })
        return rotated
      })
      return { endpoint: endpointView(row, now), secret, previous_secret_expires_at: endsAt.toISOString() }
    },

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

    /** Queues a ping to one endpoint. */
    async test(scope: WebhookScope, id: string) {
      const endpoint = await ownEndpoint(scope, id)
      if (!endpoint.is_active) throw disabled('The endpoint is disabled and cannot receive test events.')
      await db.transaction().execute((trx) =>
        recordEvent(trx, {
          organizationId: scope.organizationId,
          environment: scope.environment,
          type: 'ping',
          orderId: null,
          data: eventData.ping(),
          at: clock.now(),
          endpointId: endpoint.id,
        }),
      )
      return { queued: true, endpoint_next_probe_at: iso(endpoint.next_probe_at) }
    },

    /**
     * Queues a sample event of the type to one live endpoint (test endpoints
     * receive pings only): the sample builder's
     * data (`sample: true`, an order that exists nowhere), stored as an event
     * without an order, so no order, sequence counter or order statistic
     * changes, and no replay picks it up. The endpoint must take the type.
     */
    async sendSample(scope: WebhookScope, id: string, type: Exclude<EventType, 'ping'>, actor?: AuditActor) {
      const endpoint = await ownEndpoint(scope, id)
      // Test endpoints receive pings only (as with real orders); test mode's samples go to `listen`.
      if (endpoint.environment === 'test') {
        throw AppError.validation(
          [
            {
              code: 'invalid_format',
              field: 'endpoint_id',
              message:
                'Test endpoints receive ping events only. Send samples to a live endpoint, or to your machine with listen and trigger and a test key.',
            },
          ],
          'Sample events go to live endpoints only; nothing was sent.',
        )
      }
      if (!endpoint.is_active) throw disabled('The endpoint is disabled and cannot receive sample events.')
      if (!endpoint.enabled_events.includes('*') && !endpoint.enabled_events.includes(type)) {
        throw AppError.validation(
          [
            {
              code: 'invalid_format',
              field: 'type',
              message: `type must be one the endpoint receives: ${endpoint.enabled_events.map((t) => JSON.stringify(t)).join(', ')}`,
            },
          ],
          'The endpoint does not receive events of this type; nothing was sent.',
        )
      }
      const event = await db.transaction().execute(async (trx) => {
        const recorded = await recordEvent(trx, {
          organizationId: scope.organizationId,
          environment: scope.environment,
          type,
          orderId: null,
          data: sampleEventData(type),
          at: clock.now(),
          endpointId: endpoint.id,
        })
        await audit(trx, actor, scope, 'webhook_endpoint.sample_sent', endpoint, {
          event_id: recorded.id,
          event_type: type,
        })
        return recorded
      })
      return { queued: true, event_id: event.id, type, endpoint_next_probe_at: iso(endpoint.next_probe_at) }
    },
  }
}
