import { randomInt } from 'node:crypto'
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { type LookupScope, notFoundHere } from '../../http/not-found.ts'

/** How webhook rows look in answers, and the errors both halves of the service share. */
export const iso = (d: Date | null) => d?.toISOString() ?? null

/** 422 for an operation on a disabled or deleted endpoint. */
export const disabled = (message: string) =>
  AppError.validation(
    [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled; register a new one.' }],
    message,
  )

/** 404 for an endpoint id that is not the caller's; `found`: the endpoint it names, if read. */
export const endpointNotFound = (scope?: LookupScope, found?: WebhookEndpointRow) =>
  notFoundHere('webhook endpoint', scope, found)

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * `whsec_` and 43 random letters and digits (256 bits): the same string in
 * both base64 alphabets, so Standard Webhooks libraries decode it as the
 * service does (signing.ts, standardSigningKey).
 */
export const newSecret = () =>
  `whsec_${Array.from({ length: 43 }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('')}`

/** When the previous secret stops signing, while a rotation of an active endpoint is under way. */
export function rotationEndsAt(row: WebhookEndpointRow, now: Date): string | null {
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
    // The dashboard's answers only (/v1's schema leaves it out): while its circuit is open (claim.repo.ts).
    next_probe_at: row.is_active ? iso(row.next_probe_at) : null,
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

export function operatorDeliveryView(row: WebhookDeliveryRow) {
  return {
    ...deliveryView(row),
    organization_id: row.organization_id,
    environment: row.environment,
    duration_ms: row.duration_ms,
  }
}
