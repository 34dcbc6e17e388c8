import { createHmac } from 'node:crypto'

export const SIGNATURE_HEADER = 'x-service-signature'

/**
 * `t=<unix seconds>,v1=<hex>`: lowercase hex HMAC-SHA256 over `<t>.<raw body>`,
 * keyed with the whole secret string as UTF-8 (prefix included, nothing
 * decoded). t is taken fresh for every attempt.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${unixSeconds}.${body}`, 'utf8')
    .digest('hex')
  return `t=${unixSeconds},v1=${v1}`
}
