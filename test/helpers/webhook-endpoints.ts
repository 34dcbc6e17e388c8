import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { completeAttempts } from '../../src/modules/webhooks/outbox/complete.repo.ts'
import type { TestApp } from './app.ts'

export { ISO_MS } from './app.ts'
export const ENDPOINT_KEYS = [
  'consecutive_failures',
  'created_at',
  'description',
  'disabled_reason',
  'enabled_events',
  'id',
  'is_active',
  'last_failure_at',
  'last_success_at',
  'secret_rotation_ends_at',
  'url',
]
export const DELIVERY_KEYS = [
  'attempts',
  'created_at',
  'endpoint_id',
  'error_code',
  'error_message',
  'event_id',
  'event_type',
  'id',
  'last_attempt_at',
  'next_attempt_at',
  'redelivery_of',
  'replay_id',
  'response_snippet',
  'response_status',
  'status',
  'superseded_by',
]
export const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000'
export const NO_WEBHOOK_SCOPE = ['orders:read', 'orders:write', 'files:write']

export interface Endpoint {
  id: string
  url: string
  description: string
  enabled_events: string[]
  is_active: boolean
  disabled_reason: string | null
  consecutive_failures: number
  last_success_at: string | null
  last_failure_at: string | null
  created_at: string
  secret_rotation_ends_at: string | null
}

export interface Delivery {
  id: string
  endpoint_id: string
  event_id: string
  event_type: string
  status: string
  attempts: number
  next_attempt_at: string | null
  last_attempt_at: string | null
  response_status: number | null
  response_snippet: string | null
  error_code: string | null
  error_message: string | null
  created_at: string
  redelivery_of: string | null
  superseded_by: string | null
  replay_id: string | null
}

export async function createEndpoint(t: TestApp, key: string, url: string, description?: string) {
  const res = await t.api(key, 'POST', '/v1/webhook-endpoints', {
    url,
    ...(description === undefined ? {} : { description }),
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { endpoint: Endpoint; secret: string }
}

export async function listEndpoints(t: TestApp, key: string): Promise<Endpoint[]> {
  const res = await t.api(key, 'GET', '/v1/webhook-endpoints')
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(Object.keys(res.json()), ['data'])
  return res.json().data
}

export async function listDeliveries(t: TestApp, key: string, query = ''): Promise<Delivery[]> {
  const res = await t.api(key, 'GET', `/v1/webhook-deliveries${query}`)
  assert.equal(res.statusCode, 200, res.body)
  const data = res.json().data as Delivery[]
  for (const d of data) assert.deepEqual(Object.keys(d).sort(), DELIVERY_KEYS)
  return data
}

export async function activeCount(t: TestApp, orgId: string, environment: 'test' | 'live') {
  const { n } = await t.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', orgId)
    .where('environment', '=', environment)
    .where('is_active', '=', true)
    .executeTakeFirstOrThrow()
  return Number(n)
}

export async function endpointRows(t: TestApp, orgId: string) {
  return t.db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', orgId).execute()
}

/**
 * One attempt at a pending delivery, recorded by the worker's own statement
 * as if a worker had claimed it: `succeeded`, `failed` for good (no retry
 * left) or `pending` (a retry due in an hour).
 */
export async function settleDelivery(
  t: TestApp,
  deliveryId: string,
  status: 'succeeded' | 'failed' | 'pending',
  at: Date,
  /** What the receiver answered. */
  snippet: string | null = null,
): Promise<void> {
  const claimed = await sql<{ endpoint_id: string }>`
    update webhook_queue set locked_by = 'test-worker', locked_until = ${new Date(at.getTime() + 60_000)},
      attempts = attempts + 1
    where delivery_id = ${deliveryId}::uuid
    returning endpoint_id`.execute(t.db)
  assert.equal(claimed.rows.length, 1, `delivery ${deliveryId} is not in the queue`)
  const ok = status === 'succeeded'
  await completeAttempts(
    t.db,
    'test-worker',
    [
      {
        deliveryId,
        endpointId: claimed.rows[0]!.endpoint_id,
        status,
        errorCode: ok ? null : 'http_error',
        errorMessage: ok ? null : 'the endpoint answered 500',
        responseStatus: ok ? 200 : 500,
        snippet,
        durationMs: 12,
        nextAttemptAt: status === 'pending' ? new Date(at.getTime() + 3600_000) : null,
        startedAt: at,
        at,
        counts: true,
        probeAt: ok ? null : new Date(at.getTime() + 60_000),
        signedAt: null,
        traceId: null,
      },
    ],
    25,
  )
}

export { sleep }
