import { randomBytes } from 'node:crypto'
import type { Database } from '../../db/database.ts'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { createSecretBox, type SecretBox } from '../../lib/secret-box.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import {
  deactivateEndpoint,
  disableEndpoints,
  type EndpointScope,
  findEndpoint,
  insertEndpoint,
  isEndpointActive,
  listEndpoints,
  lockAndCountActive,
} from './endpoints.repo.ts'
import {
  enqueueRedelivery,
  eventData,
  failPendingDeliveries,
  findDelivery,
  listDeliveries,
  recordEvent,
} from './outbox/outbox.service.ts'
import { cancelReplays } from './replays.repo.ts'
import { type ReplayRequest, replayOf, replayView, requestReplay } from './replays.service.ts'
import { checkWebhookUrl, parseCidrs, type Resolver } from './ssrf.ts'

export const MAX_ACTIVE_ENDPOINTS = 5
export const MAX_LISTED_ENDPOINTS = 50

export type WebhookScope = EndpointScope

const iso = (d: Date | null) => d?.toISOString() ?? null

export function endpointView(row: WebhookEndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    is_active: row.is_active,
    disabled_reason: row.disabled_reason,
    consecutive_failures: row.consecutive_failures,
    last_success_at: iso(row.last_success_at),
    last_failure_at: iso(row.last_failure_at),
    created_at: row.created_at.toISOString(),
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
    created_at: row.created_at.toISOString(),
    redelivery_of: row.redelivery_of,
    superseded_by: row.superseded_by,
    replay_id: row.replay_id,
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
  async function ownEndpoint(scope: WebhookScope | undefined, id: string): Promise<WebhookEndpointRow> {
    const row = isUuid(id) ? await findEndpoint(db, scope, id) : undefined
    if (!row) throw new AppError('not_found', { message: 'No webhook endpoint with this id.' })
    return row
  }

  return {
    async create(scope: WebhookScope, input: { url: string; description?: string | undefined }) {
      const { url, addresses } = await checkWebhookUrl(input.url, { resolver: deps.resolver, allowed })
      const secret = `whsec_${randomBytes(32).toString('base64url')}`
      const sealed = (await secretBox()).seal(secret)
      const now = clock.now()
      const row: WebhookEndpointRow = {
        id: newId(),
        organization_id: scope.organizationId,
        environment: scope.environment,
        url: url.href,
        description: input.description ?? '',
        secret_encrypted: sealed,
        pinned_addresses: addresses,
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
      })
      return { endpoint: endpointView(row), secret }
    },

    async list(scope: WebhookScope) {
      return (await listEndpoints(db, scope, MAX_LISTED_ENDPOINTS)).map(endpointView)
    },

    /** Permanent; a second delete answers the same. Pending deliveries fail with endpoint_disabled. */
    async remove(scope: WebhookScope, id: string) {
      const endpoint = await ownEndpoint(scope, id)
      if (endpoint.is_active) {
        await db.transaction().execute(async (trx) => {
          await deactivateEndpoint(trx, endpoint.id, clock.now())
          await failPendingDeliveries(trx, endpoint.id)
          await cancelReplays(trx, endpoint.id, clock.now())
        })
      }
      return { id: endpoint.id, is_active: false }
    },

    /** Queues a ping to one endpoint. */
    async test(scope: WebhookScope, id: string) {
      const endpoint = await ownEndpoint(scope, id)
      if (!endpoint.is_active) {
        throw AppError.validation(
          [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled; register a new one.' }],
          'The endpoint is disabled and cannot receive test events.',
        )
      }
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

    async deliveries(
      scope: WebhookScope,
      query: { endpoint_id?: string | undefined; limit?: number | undefined },
    ) {
      if (query.endpoint_id !== undefined) await ownEndpoint(scope, query.endpoint_id)
      const rows = await listDeliveries(db, {
        organizationId: scope.organizationId,
        environment: scope.environment,
        ...(query.endpoint_id ? { endpointId: query.endpoint_id } : {}),
        limit: query.limit ?? 25,
      })
      return rows.map(deliveryView)
    },

    async operatorDeliveries(query: { organization_id?: string; endpoint_id?: string; limit?: number }) {
      for (const id of [query.organization_id, query.endpoint_id]) {
        if (id !== undefined && !isUuid(id)) return []
      }
      const rows = await listDeliveries(db, {
        ...(query.organization_id ? { organizationId: query.organization_id } : {}),
        ...(query.endpoint_id ? { endpointId: query.endpoint_id } : {}),
        limit: query.limit ?? 25,
      })
      return rows.map((row) => ({
        ...deliveryView(row),
        organization_id: row.organization_id,
        environment: row.environment,
        duration_ms: row.duration_ms,
      }))
    },

    /**
     * A new pending log entry for the same event and endpoint: the dashboard's
     * manual redelivery (no scope) and POST /v1/webhook-deliveries/{id}/redeliver
     * (the key's organization and environment only). Its success ends the
     * retries of the entry it repeats.
     */
    async redeliver(scope: WebhookScope | undefined, deliveryId: string) {
      const original = isUuid(deliveryId) ? await findDelivery(db, deliveryId, scope) : undefined
      if (!original) throw new AppError('not_found', { message: 'No delivery with this id.' })
      if (!(await isEndpointActive(db, original.endpoint_id))) {
        throw AppError.validation(
          [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled.' }],
          'The delivery’s endpoint is disabled; it receives nothing further.',
        )
      }
      return deliveryView(await enqueueRedelivery(db, original, clock.now()))
    },

    /** Queues the endpoint's matching events again, in the background (see replays.service.ts). */
    async replay(scope: WebhookScope | undefined, endpointId: string, input: ReplayRequest) {
      const endpoint = await ownEndpoint(scope, endpointId)
      return replayView(await requestReplay(db, endpoint, input, clock.now()))
    },

    /** The endpoint's newest replay and how far it got. */
    async replayStatus(scope: WebhookScope | undefined, endpointId: string) {
      return replayView(await replayOf(db, await ownEndpoint(scope, endpointId)))
    },
  }
}

export type WebhookService = ReturnType<typeof createWebhookService>

/**
 * Disables endpoints whose failure streak reached the limit (the worker's
 * call) and fails their pending deliveries with endpoint_disabled.
 */
export async function disableFailingEndpoints(db: Database, ids: readonly string[], at: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await disableEndpoints(trx, ids, at)
    for (const id of ids) {
      await failPendingDeliveries(trx, id)
      await cancelReplays(trx, id, at)
    }
  })
}
