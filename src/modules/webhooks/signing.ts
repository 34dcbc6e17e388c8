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

/**
 * `t=<unix seconds>,v1=<hex>`: lowercase hex HMAC-SHA256 over `<t>.<raw body>`,
 * keyed with the endpoint secret (see signingKey). t is taken fresh for every attempt.
 */
export function signatureHeader(key: KeyObject | string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', typeof key === 'string' ? signingKey(key) : key)
    .update(`${unixSeconds}.${body}`, 'utf8')
    .digest('hex')
  return `t=${unixSeconds},v1=${v1}`
}
