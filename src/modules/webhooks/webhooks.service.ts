import { randomBytes } from 'node:crypto'
import type { Database } from '../../db/database.ts'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { createSecretBox, type SecretBox } from '../../lib/secret-box.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { type AuditAction, type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { attemptView, DEFAULT_LOG_LIMIT, type DeliveryLogQuery, logFilter, logPage } from './delivery-log.ts'
import { checkEnabledEvents, parseEnabledEvents } from './enabled-events.ts'
import {
  deactivateEndpoint,
  type EndpointScope,
  findEndpoint,
  insertEndpoint,
  isEndpointActive,
  listEndpoints,
  lockAndCountActive,
  lockEndpoint,
  replaceSecret,
  updateActiveEndpoint,
} from './endpoints.repo.ts'
import { NO_WEBHOOKS, webhookHealthByOrganization } from './health.repo.ts'
import { orderTimeline } from './order-timeline.repo.ts'
import {
  enqueueRedelivery,
  eventData,
  failPendingDeliveries,
  findDelivery,
  listAttempts,
  listDeliveries,
  recordEvent,
} from './outbox/outbox.service.ts'
import { cancelReplays, latestReplay } from './replays.repo.ts'
import { type ReplayRequest, replayOf, replayView, requestReplay } from './replays.service.ts'
import { checkWebhookUrl, parseCidrs, type Resolver } from './ssrf.ts'
import { DEFAULT_ROTATION_GRACE_S, MAX_ROTATION_GRACE_S } from './webhooks.schemas.ts'

export const MAX_ACTIVE_ENDPOINTS = 5
export const MAX_LISTED_ENDPOINTS = 50
/** How long a rotated secret keeps signing beside the new one, unless the request says otherwise. */
export { DEFAULT_ROTATION_GRACE_S, MAX_ROTATION_GRACE_S }

export type WebhookScope = EndpointScope

const iso = (d: Date | null) => d?.toISOString() ?? null

/** 422 for an operation on a disabled or deleted endpoint. */
const disabled = (message: string) =>
  AppError.validation(
    [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled; register a new one.' }],
    message,
  )

const endpointNotFound = () => new AppError('not_found', { message: 'No webhook endpoint with this id.' })

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

/** When the previous secret stops signing, while a rotation of an active endpoint is under way. */
function rotationEndsAt(row: WebhookEndpointRow, now: Date): string | null {
  const ends = row.previous_secret_expires_at
  return row.is_active && ends !== null && ends > now ? ends.toISOString() : null
}

export function endpointView(row: WebhookEndpointRow, now: Date) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabled_events: row.enabled_events,
    is_active: row.is_active,
    disabled_reason: row.disabled_reason,
    consecutive_failures: row.consecutive_failures,
    last_success_at: iso(row.last_success_at),
    last_failure_at: iso(row.last_failure_at),
    created_at: row.created_at.toISOString(),
    secret_rotation_ends_at: rotationEndsAt(row, now),
  }
}

export function deliveryView(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    last_attempt_at: iso(row.last_attempt_at),
    response_status: row.response_status,
    response_snippet: row.response_snippet,
    error_code: row.error_code,
    error_message: row.error_message,
    created_at: row.created_at.toISOString(),
    redelivery_of: row.redelivery_of,
    superseded_by: row.superseded_by,
    replay_id: row.replay_id,
  }
}

function operatorDeliveryView(row: WebhookDeliveryRow) {
  return {
    ...deliveryView(row),
    organization_id: row.organization_id,
    environment: row.environment,
    duration_ms: row.duration_ms,
  }
}

export function createWebhookService(deps: {
  db: Database
  clock: Clock
  resolver: Resolver
  allowPrivateCidrs: string[]
}) {
  const { db, clock } = deps
  const allowed = parseCidrs(deps.allowPrivateCidrs)
  let box: SecretBox | undefined

  async function secretBox(): Promise<SecretBox> {
    box ??= createSecretBox(await serviceSecret(db, 'webhook_secret_key'))
    return box
  }

  /**
   * The caller's endpoint, or 404 for unknown, foreign and other-environment
   * ids alike; without a scope (the operator), any endpoint.
   */
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

  async function ownEndpoint(scope: WebhookScope | undefined, id: string): Promise<WebhookEndpointRow> {
    const row = isUuid(id) ? await findEndpoint(db, scope, id) : undefined
    if (!row) throw endpointNotFound()
    return row
  }

  /**
   * The same for many organizations (all when `organizationIds` is
   * undefined) in one statement: a lookup by organization id.
   */
  async function healthByOrganization(
    environment: WebhookScope['environment'],
    organizationIds?: readonly string[],
  ) {
    const since = new Date(clock.now().getTime() - 24 * 3600_000)
    const health = await webhookHealthByOrganization(db, environment, since, organizationIds)
    return (organizationId: string) => health.get(organizationId) ?? NO_WEBHOOKS
  }

  return {
    async create(
      scope: WebhookScope,
      input: { url: string; description?: string | undefined; enabled_events?: string[] | undefined },
      actor?: AuditActor,
    ) {
      const enabledEvents = checkEnabledEvents(input.enabled_events ?? ['*'])
      const { url, addresses } = await checkWebhookUrl(input.url, { resolver: deps.resolver, allowed })
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

    /** Active and automatically disabled endpoints, and deliveries that failed in the last 24 hours. */
    async health(scope: WebhookScope) {
      return (await healthByOrganization(scope.environment, [scope.organizationId]))(scope.organizationId)
    },

    healthByOrganization,

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
        if (!current) throw endpointNotFound()
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
          await failPendingDeliveries(trx, endpoint.id)
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
      return { queued: true }
    },

    /** The delivery log, newest first, narrowed by the query's filters; next_cursor pages on. */
    async deliveries(scope: WebhookScope, query: DeliveryLogQuery) {
      if (query.endpoint_id !== undefined) await ownEndpoint(scope, query.endpoint_id)
      const rows = await listDeliveries(db, {
        ...logFilter(query),
        organizationId: scope.organizationId,
        environment: scope.environment,
      })
      return logPage(rows, query.limit ?? DEFAULT_LOG_LIMIT, deliveryView)
    },

    /** One log entry of the caller's and its attempts, oldest first; 404 for any other id. */
    async delivery(scope: WebhookScope, id: string) {
      const row = isUuid(id) ? await findDelivery(db, id) : undefined
      if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
        throw new AppError('not_found', { message: 'No delivery with this id.' })
      }
      return { delivery: deliveryView(row), attempts: (await listAttempts(db, row.id)).map(attemptView) }
    },

    /**
     * An order's events and their deliveries, for the dashboard's order page;
     * the caller has checked that the order is the organization's.
     */
    async orderTimeline(organizationId: string, orderId: string) {
      return orderTimeline(db, { organizationId, orderId })
    },

    async operatorDeliveries(
      query: DeliveryLogQuery & {
        organization_id?: string | undefined
        environment?: WebhookScope['environment'] | undefined
      },
    ) {
      for (const id of [query.organization_id, query.endpoint_id]) {
        if (id !== undefined && !isUuid(id)) return { data: [], next_cursor: null }
      }
      const rows = await listDeliveries(db, {
        ...logFilter(query),
        ...(query.organization_id ? { organizationId: query.organization_id } : {}),
        ...(query.environment ? { environment: query.environment } : {}),
      })
      return logPage(rows, query.limit ?? DEFAULT_LOG_LIMIT, operatorDeliveryView)
    },

    async operatorDelivery(id: string) {
      const row = isUuid(id) ? await findDelivery(db, id) : undefined
      if (!row) throw new AppError('not_found', { message: 'No delivery with this id.' })
      return {
        delivery: operatorDeliveryView(row),
        attempts: (await listAttempts(db, row.id)).map(attemptView),
      }
    },

    /**
     * A new pending log entry for the same event and endpoint: the dashboard's
     * manual redelivery (no scope) and POST /v1/webhook-deliveries/{id}/redeliver
     * (the key's organization and environment only). Its success ends the
     * retries of the entry it repeats.
     */
    async redeliver(scope: WebhookScope | undefined, deliveryId: string, actor?: AuditActor) {
      const original = isUuid(deliveryId) ? await findDelivery(db, deliveryId, scope) : undefined
      if (!original) throw new AppError('not_found', { message: 'No delivery with this id.' })
      if (!(await isEndpointActive(db, original.endpoint_id))) {
        throw AppError.validation(
          [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled.' }],
          'The delivery’s endpoint is disabled; it receives nothing further.',
        )
      }
      const endpoint = actor ? await findEndpoint(db, undefined, original.endpoint_id) : undefined
      const row = await enqueueRedelivery(db, original, clock.now(), (trx, created) =>
        audit(
          trx,
          actor,
          { organizationId: original.organization_id },
          'webhook_delivery.redelivered',
          { id: original.endpoint_id, url: endpoint?.url ?? '' },
          {
            delivery_id: original.id,
            redelivery_id: created.id,
            event_id: original.event_id,
            event_type: original.event_type,
          },
        ),
      )
      return deliveryView(row)
    },

    /** Queues the endpoint's matching events again, in the background (see replays.service.ts). */
    async replay(
      scope: WebhookScope | undefined,
      endpointId: string,
      input: ReplayRequest,
      actor?: AuditActor,
    ) {
      const endpoint = await ownEndpoint(scope, endpointId)
      const row = await requestReplay(db, endpoint, input, clock.now(), (trx, replay) =>
        audit(
          trx,
          actor,
          { organizationId: endpoint.organization_id },
          'webhook_endpoint.replayed',
          endpoint,
          {
            replay_id: replay.id,
            since: replay.since.toISOString(),
            until: replay.until?.toISOString() ?? null,
            event_types: replay.event_types,
            only_failed: replay.only_failed,
            total: replay.total,
          },
        ),
      )
      return replayView(row)
    },

    /** The endpoint's newest replay and how far it got. */
    async replayStatus(scope: WebhookScope | undefined, endpointId: string) {
      return replayView(await replayOf(db, await ownEndpoint(scope, endpointId)))
    },

    /** The endpoint's latest replay, or null when it has never been replayed. */
    async lastReplay(scope: WebhookScope, endpointId: string) {
      const row = await latestReplay(db, (await ownEndpoint(scope, endpointId)).id)
      return row ? replayView(row) : null
    },
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>

/**
 * After the statement that recorded the results disabled endpoints whose
 * failure streak reached the limit (the worker's call): fails their pending
 * deliveries with endpoint_disabled and cancels their replays.
 */
export async function settleDisabledEndpoints(db: Database, ids: readonly string[], at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const id of ids) {
      await failPendingDeliveries(trx, id)
      await cancelReplays(trx, id, at)
    }
  })
}
