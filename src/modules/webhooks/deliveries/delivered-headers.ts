import type { WebhookAttemptRow, WebhookEndpointRow } from '../../../db/schema.ts'
import { USER_AGENT } from '../worker/http-attempt.ts'
import {
  SIGNATURE_HEADER,
  STANDARD_ID_HEADER,
  STANDARD_SIGNATURE_HEADER,
  STANDARD_TIMESTAMP_HEADER,
  signedHeaders,
  signingKeys,
} from '../worker/signing.ts'

/**
 * How long after a rotation the worker may still sign with the old secret: it
 * signs with the secret it read when it claimed the attempt, and holds a claim
 * at most its lease (the attempt's deadline plus 30 s by default). Generous,
 * so a configured longer deadline stays covered.
 */
export const SECRET_CHANGE_MARGIN_MS = 10 * 60_000

export const NOT_RECORDED =
  'No request was signed for this attempt, or it was made before the service recorded signing times: its headers are not known.'
export const SECRET_ROTATED =
  'The endpoint’s secret was rotated around or after this attempt: its signatures are not shown, as the current secret would give different ones. The other headers are as sent.'

/** What the dashboard shows of one attempt's request. */
export interface DeliveredHeaders {
  signature_timestamp: number | null
  headers: Record<string, string> | null
  /** Headers sent whose values this member may not read: the signatures, for viewers. */
  hidden_headers: string[]
  note: string | null
}

/** The headers that would let a reader replay an attempt within the tolerance. */
export const SIGNATURE_HEADERS = [SIGNATURE_HEADER, STANDARD_SIGNATURE_HEADER]

/**
 * An X-Service-Signature `v1=<hex>` or a Standard Webhooks `v1,<base64>` (its
 * `/` may be written `\/` by a JSON encoder), as a receiver echoing the
 * request's headers puts them in its answer.
 */
const SIGNATURE_VALUES = /\b(v1=)[0-9a-fA-F]{64}\b|\b(v1,)(?:[A-Za-z0-9+]|\\?\/){43}=/g

/** A receiver's answer with the signatures it may echo replaced, for viewers. */
export function withoutSignatures(text: string | null): string | null {
  return text === null ? null : text.replace(SIGNATURE_VALUES, (_, hex, base64) => `${hex ?? base64}hidden`)
}

/**
 * The headers an attempt sent, rebuilt from the stored body and the signing
 * time the worker recorded, never stored (docs/decisions/2026-11-29-delivered-headers.md).
 * The signatures are rebuilt only when the endpoint's secrets now are the ones
 * that signed: the attempt was signed well after the secret's last change.
 * `open` unseals a stored secret; neither secret leaves this function. Without
 * `open` (a viewer) the signatures are named in hidden_headers, not made.
 */
export function deliveredHeaders(
  attempt: WebhookAttemptRow,
  event: { id: string; type: string; body: string },
  endpoint: WebhookEndpointRow,
  open: ((sealed: string) => string) | undefined,
): DeliveredHeaders {
  const t = attempt.signature_timestamp
  if (t === null) return { signature_timestamp: null, headers: null, hidden_headers: [], note: NOT_RECORDED }
  const changed = endpoint.secret_changed_at
  const current = changed === null || t * 1000 > changed.getTime() + SECRET_CHANGE_MARGIN_MS
  const previous =
    current &&
    open &&
    endpoint.previous_secret_encrypted !== null &&
    endpoint.previous_secret_expires_at !== null &&
    attempt.started_at.getTime() < endpoint.previous_secret_expires_at.getTime()
      ? signingKeys(open(endpoint.previous_secret_encrypted))
      : undefined
  // Without the signing keys the signatures are left out, never made with the wrong secret.
  const signed =
    current && open
      ? signedHeaders(signingKeys(open(endpoint.secret_encrypted)), event.id, event.body, t, previous)
      : { [STANDARD_ID_HEADER]: event.id, [STANDARD_TIMESTAMP_HEADER]: String(t) }
  return {
    signature_timestamp: t,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-event-id': event.id,
      'x-service-event-type': event.type,
      ...signed,
    },
    hidden_headers: current && !open ? SIGNATURE_HEADERS : [],
    note: current ? null : SECRET_ROTATED,
  }
}
