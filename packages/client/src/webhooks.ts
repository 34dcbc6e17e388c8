/**
 * Webhook signatures: `X-Service-Signature: t=<unix seconds>,v1=<hex>` where
 * v1 is HMAC-SHA256 over `<t>.<raw body>` keyed with the whole `whsec_...`
 * secret as UTF-8. WebCrypto only, so the same code runs in Node 20+ and browsers.
 */

import type { components } from './generated/openapi.ts'

export const SIGNATURE_HEADER = 'x-service-signature'
/** The receiver's allowed distance between `t` and its own clock, in seconds. */
export const DEFAULT_TOLERANCE_S = 300

type Schemas = components['schemas']

export type OrderReceivedEvent = Schemas['OrderReceivedEvent']
export type OrderProductionStartedEvent = Schemas['OrderProductionStartedEvent']
export type OrderProductionCompletedEvent = Schemas['OrderProductionCompletedEvent']
export type OrderProductionFailedEvent = Schemas['OrderProductionFailedEvent']
export type OrderCancelledEvent = Schemas['OrderCancelledEvent']
export type OrderItemCompletedEvent = Schemas['OrderItemCompletedEvent']
/** An order changed in the dashboard after it was accepted; `data.changed` names the fields. */
export type OrderUpdatedEvent = Schemas['OrderUpdatedEvent']
export type PingEvent = Schemas['PingEvent']

/**
 * The events the service sends today, from the OpenAPI document's webhooks
 * section. New types may be added: a receiver ignores (and answers 2xx to) a
 * `type` it does not know.
 */
export type WebhookEvent = Schemas['WebhookEvent']

export type WebhookEventType = WebhookEvent['type']

export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_v1_signature'
  | 'signature_mismatch'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'invalid_json'

/** The request did not verify: answer 401 and process nothing. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError'
  readonly reason: WebhookVerificationReason
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message)
    this.reason = reason
  }
}

export interface VerifyOptions {
  /** Seconds `t` may be from `now`, either way. Default 300. */
  tolerance?: number
  /** The receiver's clock in Unix seconds (tests). Default now. */
  now?: number
}

const utf8 = new TextEncoder()

async function hmacHex(secret: string, t: string, body: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    'raw',
    utf8.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const prefix = utf8.encode(`${t}.`)
  const message = new Uint8Array(prefix.length + body.length)
  message.set(prefix, 0)
  message.set(body, prefix.length)
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, message))
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('')
}

/** Equal-length strings compared without an early exit; the length (64) is public. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

const bytesOf = (body: string | Uint8Array | ArrayBuffer) =>
  typeof body === 'string' ? utf8.encode(body) : body instanceof Uint8Array ? body : new Uint8Array(body)

/** `t=...,v1=...[,v1=...]`: every v1 is a candidate (several appear while a secret is rolled); other schemes are ignored. */
function parseHeader(header: string): { t: string; v1: string[] } {
  let t: string | undefined
  const v1: string[] = []
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0)
      throw new WebhookVerificationError('malformed_header', 'The signature header is not t=...,v1=...')
    const name = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (name === 't') t = value
    else if (name === 'v1') v1.push(value)
  }
  if (t === undefined || !/^\d{1,12}$/.test(t)) {
    throw new WebhookVerificationError(
      'malformed_header',
      'The signature header has no valid t=<unix seconds>',
    )
  }
  if (v1.length === 0)
    throw new WebhookVerificationError('no_v1_signature', 'The signature header has no v1 signature')
  return { t, v1 }
}

/**
 * Checks `X-Service-Signature` against the raw body (exactly as received:
 * never JSON parsed and serialized again) and returns the parsed event.
 * Throws WebhookVerificationError when the header is missing or malformed, no
 * v1 matches, or `t` is more than `tolerance` seconds from now.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  if (!signatureHeader) throw new WebhookVerificationError('missing_header', 'No X-Service-Signature header')
  const { t, v1 } = parseHeader(signatureHeader)
  const body = bytesOf(rawBody)
  const expected = await hmacHex(secret, t, body)
  let match = false
  for (const candidate of v1) match = constantTimeEqual(expected, candidate) || match
  if (!match)
    throw new WebhookVerificationError('signature_mismatch', 'No v1 signature matches the body and secret')
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_S
  const now = options.now ?? Math.floor(Date.now() / 1000)
  if (now - Number(t) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `Signed ${now - Number(t)} s ago, more than ${tolerance} s`,
    )
  }
  if (Number(t) - now > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_in_future',
      `Signed ${Number(t) - now} s ahead of this clock`,
    )
  }
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent
  } catch {
    throw new WebhookVerificationError('invalid_json', 'The signed body is not JSON')
  }
}

/** The header the service sends: for tests of a receiver, and for the listen command. */
export async function signWebhook(
  rawBody: string | Uint8Array,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, String(timestamp), bytesOf(rawBody))}`
}
