import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-service-signature'

/** The Standard Webhooks headers (standardwebhooks.com), sent beside X-Service-Signature. */
export const STANDARD_ID_HEADER = 'webhook-id'
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp'
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature'

/**
 * The HMAC key of an endpoint secret: the whole secret string as UTF-8 (prefix
 * included, nothing decoded). Made once per secret: Node checks a KeyObject
 * several times faster than a Buffer key on every createHmac.
 */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'))
}

/**
 * The Standard Webhooks key of the same secret: what follows `whsec_`,
 * base64-decoded, as the standardwebhooks and svix libraries derive it from
 * `new Webhook(secret)`. Node reads both base64 alphabets, so a secret made
 * before secrets were alphanumeric (with `-` or `_`) gives its base64url bytes
 * (docs/decisions/2026-11-29-standard-webhooks-signatures.md).
 */
export function standardSigningKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
}

/** Both keys of one secret: X-Service-Signature's and Standard Webhooks'. */
export interface SigningKeys {
  service: KeyObject
  standard: KeyObject
}

export const signingKeys = (secret: string): SigningKeys => ({
  service: signingKey(secret),
  standard: standardSigningKey(secret),
})

const v1 = (key: KeyObject | string, signed: string) =>
  createHmac('sha256', typeof key === 'string' ? signingKey(key) : key)
    .update(signed, 'utf8')
    .digest('hex')

/**
 * `t=<unix seconds>,v1=<hex>`: lowercase hex HMAC-SHA256 over `<t>.<raw body>`,
 * keyed with the endpoint secret (see signingKey). t is taken fresh for every attempt.
 * While a secret is rotated, `previous` adds a second v1 made with the old
 * secret (`t=..,v1=<new>,v1=<old>`, as Stripe does): a receiver accepts the
 * request when any v1 matches its secret.
 */
export function signatureHeader(
  key: KeyObject | string,
  body: string,
  unixSeconds: number,
  previous?: KeyObject | string,
): string {
  const signed = `${unixSeconds}.${body}`
  const header = `t=${unixSeconds},v1=${v1(key, signed)}`
  return previous === undefined ? header : `${header},v1=${v1(previous, signed)}`
}

const standardV1 = (key: KeyObject | string, signed: string) =>
  `v1,${createHmac('sha256', typeof key === 'string' ? standardSigningKey(key) : key)
    .update(signed, 'utf8')
    .digest('base64')}`

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of <id>.<t>.<raw body>>` keyed
 * with standardSigningKey; while a secret is rotated the previous secret's
 * signature follows, space-separated, as the specification allows.
 */
export function standardSignatureHeader(
  key: KeyObject | string,
  id: string,
  body: string,
  unixSeconds: number,
  previous?: KeyObject | string,
): string {
  const signed = `${id}.${unixSeconds}.${body}`
  const header = standardV1(key, signed)
  return previous === undefined ? header : `${header} ${standardV1(previous, signed)}`
}

/**
 * The signature headers of one attempt: X-Service-Signature and the three
 * Standard Webhooks headers, all with the same t. `webhook-id` is the event
 * id, the same on every attempt, so a receiver deduplicates on either.
 */
export function signedHeaders(
  keys: SigningKeys,
  eventId: string,
  body: string,
  unixSeconds: number,
  previous?: SigningKeys,
): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: signatureHeader(keys.service, body, unixSeconds, previous?.service),
    [STANDARD_ID_HEADER]: eventId,
    [STANDARD_TIMESTAMP_HEADER]: String(unixSeconds),
    [STANDARD_SIGNATURE_HEADER]: standardSignatureHeader(
      keys.standard,
      eventId,
      body,
      unixSeconds,
      previous?.standard,
    ),
  }
}
