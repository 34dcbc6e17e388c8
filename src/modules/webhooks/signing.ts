import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-service-signature'

/**
 * The HMAC key of an endpoint secret: the whole secret string as UTF-8 (prefix
 * included, nothing decoded). Made once per secret: Node checks a KeyObject
 * several times faster than a Buffer key on every createHmac.
 */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'))
}

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
