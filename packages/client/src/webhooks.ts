/**
 * Webhook signatures. Every delivery carries two header sets from one secret:
 * `X-Service-Signature: t=<unix seconds>,v1=<hex>` where v1 is HMAC-SHA256
 * over `<t>.<raw body>` keyed with the whole `whsec_...` secret as UTF-8, and
 * the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64>`, HMAC-SHA256 over `<id>.<t>.<raw body>`
 * keyed with the base64-decoded part after `whsec_`. WebCrypto only, so the
 * same code runs in Node 20+ and browsers.
 */

import type { components } from './generated/openapi.ts'

export const SIGNATURE_HEADER = 'x-service-signature'
export const STANDARD_ID_HEADER = 'webhook-id'
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp'
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature'
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

async function hmac(key: Uint8Array, prefix: string, body: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const head = utf8.encode(prefix)
  const message = new Uint8Array(head.length + body.length)
  message.set(head, 0)
  message.set(body, head.length)
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, message))
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))

/**
 * The Standard Webhooks key: the part after `whsec_`, base64-decoded. Secrets
 * made before they were alphanumeric may hold `-` or `_`: read as base64url.
 */
function standardKey(secret: string): Uint8Array {
  const encoded = secret
    .replace(/^whsec_/, '')
    .replace(/-/g, '+')
    .replace(/_/g, '/')
  try {
    return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))
  } catch {
    throw new WebhookVerificationError('signature_mismatch', 'The secret is not whsec_<base64>')
  }
}

/** Equal-length strings compared without an early exit; the length (64 or 44) is public. */
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

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value
  }
  return undefined
}

/** A signature that matched, at time `t`: refused when `t` is out of tolerance; else the parsed body. */
function accept(t: string, body: Uint8Array, options: VerifyOptions): WebhookEvent {
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

async function verifyService(body: Uint8Array, header: string, secret: string, options: VerifyOptions) {
  const { t, v1 } = parseHeader(header)
  const expected = hex(await hmac(utf8.encode(secret), `${t}.`, body))
  let match = false
  for (const candidate of v1) match = constantTimeEqual(expected, candidate) || match
  if (!match)
    throw new WebhookVerificationError('signature_mismatch', 'No v1 signature matches the body and secret')
  return accept(t, body, options)
}

/** `webhook-signature` holds space-separated `<version>,<base64>`; only v1 counts. */
async function verifyStandard(
  body: Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions,
) {
  const id = headerOf(headers, STANDARD_ID_HEADER)
  const t = headerOf(headers, STANDARD_TIMESTAMP_HEADER)
  const signatures = headerOf(headers, STANDARD_SIGNATURE_HEADER) ?? ''
  if (!id || !t)
    throw new WebhookVerificationError('missing_header', 'No webhook-id or webhook-timestamp header')
  if (!/^\d{1,12}$/.test(t))
    throw new WebhookVerificationError('malformed_header', 'webhook-timestamp is not Unix seconds')
  const v1: string[] = []
  for (const entry of signatures.split(' ').filter(Boolean)) {
    const comma = entry.indexOf(',')
    if (comma <= 0)
      throw new WebhookVerificationError('malformed_header', 'webhook-signature is not v1,<base64>')
    if (entry.slice(0, comma) === 'v1') v1.push(entry.slice(comma + 1))
  }
  if (v1.length === 0)
    throw new WebhookVerificationError('no_v1_signature', 'webhook-signature has no v1 signature')
  const expected = base64(await hmac(standardKey(secret), `${id}.${t}.`, body))
  let match = false
  for (const candidate of v1) match = constantTimeEqual(expected, candidate) || match
  if (!match)
    throw new WebhookVerificationError('signature_mismatch', 'No v1 signature matches the body and secret')
  return accept(t, body, options)
}

/**
 * Checks a delivery against the raw body (exactly as received: never JSON
 * parsed and serialized again) and returns the parsed event. The second
 * argument is either the `X-Service-Signature` value or the request's headers:
 * then `X-Service-Signature` is checked when present, else the Standard
 * Webhooks headers. Throws WebhookVerificationError when the headers are
 * missing or malformed, no v1 matches, or the signing time is more than
 * `tolerance` seconds from now.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeaderOrHeaders: string | null | undefined | WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const body = bytesOf(rawBody)
  if (signatureHeaderOrHeaders !== null && typeof signatureHeaderOrHeaders === 'object') {
    const headers = signatureHeaderOrHeaders
    const service = headerOf(headers, SIGNATURE_HEADER)
    if (service) return verifyService(body, service, secret, options)
    if (headerOf(headers, STANDARD_SIGNATURE_HEADER)) return verifyStandard(body, headers, secret, options)
    throw new WebhookVerificationError('missing_header', 'No X-Service-Signature or webhook-signature header')
  }
  if (!signatureHeaderOrHeaders)
    throw new WebhookVerificationError('missing_header', 'No X-Service-Signature header')
  return verifyService(body, signatureHeaderOrHeaders, secret, options)
}

/** The header the service sends: for tests of a receiver, and for the listen command. */
export async function signWebhook(
  rawBody: string | Uint8Array,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `t=${timestamp},v1=${hex(await hmac(utf8.encode(secret), `${timestamp}.`, bytesOf(rawBody)))}`
}

/**
 * Every signature header the service sends, with one `t`: X-Service-Signature
 * and the Standard Webhooks set, whose `webhook-id` is the event id.
 */
export async function webhookHeaders(
  rawBody: string | Uint8Array,
  secret: string,
  { id, timestamp = Math.floor(Date.now() / 1000) }: { id: string; timestamp?: number },
): Promise<Record<string, string>> {
  const body = bytesOf(rawBody)
  const standard = base64(await hmac(standardKey(secret), `${id}.${timestamp}.`, body))
  return {
    [SIGNATURE_HEADER]: await signWebhook(body, secret, timestamp),
    [STANDARD_ID_HEADER]: id,
    [STANDARD_TIMESTAMP_HEADER]: String(timestamp),
    [STANDARD_SIGNATURE_HEADER]: `v1,${standard}`,
  }
}
