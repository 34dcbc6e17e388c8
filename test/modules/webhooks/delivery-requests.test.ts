import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import Stripe from 'stripe'
import { SIGNATURE_VECTORS } from '../../../packages/client/test/vectors.ts'
import { signatureHeader } from '../../../src/modules/webhooks/signing.ts'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'

/**
 * A receiver's signature check written from the reference alone (WebCrypto,
 * no node:crypto, nothing shared with src/modules/webhooks/signing.ts):
 * parse `t=<unix seconds>,v1=<hex>`, HMAC-SHA256 over `<t>.` plus the raw body
 * bytes keyed with the given key bytes, 300 s tolerance, constant-time compare.
 */
const TOLERANCE_S = 300
const utf8 = new TextEncoder()

function parseSignature(header: string | undefined): { t: string; v1: string } | undefined {
  if (typeof header !== 'string' || header.length === 0) return undefined
  const fields = new Map<string, string>()
  for (const part of header.split(',')) {
    const eq = part.indexOf('=')
    if (eq <= 0) return undefined
    fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  const t = fields.get('t')
  const v1 = fields.get('v1')
  if (!t || !/^\d+$/.test(t) || !v1 || !/^[0-9a-f]{64}$/.test(v1)) return undefined
  return { t, v1 }
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

async function hmacSha256(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  return new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, message as Uint8Array<ArrayBuffer>))
}

async function verifyWithKey(
  key: Uint8Array,
  header: string | undefined,
  rawBody: Uint8Array,
  nowSeconds: number,
): Promise<boolean> {
  const parsed = parseSignature(header)
  if (!parsed) return false
  if (Math.abs(nowSeconds - Number(parsed.t)) > TOLERANCE_S) return false
  const prefix = utf8.encode(`${parsed.t}.`)
  const signed = new Uint8Array(prefix.length + rawBody.length)
  signed.set(prefix, 0)
  signed.set(rawBody, prefix.length)
  return constantTimeEqual(await hmacSha256(key, signed), hexToBytes(parsed.v1))
}

/** The reference's rule: the key is the complete secret string as UTF-8. */
const verify = (secret: string, header: string | undefined, rawBody: Uint8Array, nowSeconds: number) =>
  verifyWithKey(utf8.encode(secret), header, rawBody, nowSeconds)

/** The two classic receiver mistakes, which must not verify. */
const strippedKey = (secret: string) => utf8.encode(secret.slice('whsec_'.length))
const base64DecodedKey = (secret: string) =>
  new Uint8Array(Buffer.from(secret.slice('whsec_'.length), 'base64'))

/**
 * The published vectors (packages/client/test-vectors/webhook-signatures.json),
 * the same the client's tests use. Their valid headers were checked outside
 * this code base with
 *   printf '%s' "<t>.<body>" | openssl dgst -sha256 -hmac "<secret>"
 * (OpenSSL 3.0.19). The bodies have non-ASCII characters, so UTF-8 handling counts.
 */
const { tolerance: TOLERANCE, vectors: VECTORS } = SIGNATURE_VECTORS
const singleV1 = (header: string) => (header.match(/v1=/g) ?? []).length <= 1
const stripe = new Stripe('sk_test_unused')

describe('X-Service-Signature: the published test vectors', () => {
  test('the service signs every valid single-signature vector exactly', () => {
    const valid = VECTORS.filter((v) => v.expected.valid && /^t=\d+,v1=[0-9a-f]{64}$/.test(v.header))
    assert.ok(valid.length >= 3)
    for (const v of valid) assert.equal(signatureHeader(v.secret, v.body, v.timestamp), v.header, v.name)
  })

  test('the service signs every two-signature vector exactly (new secret, then previous)', () => {
    const rotating = VECTORS.filter((v) => v.signing_secrets)
    assert.ok(rotating.length >= 2)
    for (const v of rotating) {
      const [fresh, previous] = v.signing_secrets!
      assert.equal(signatureHeader(fresh!, v.body, v.timestamp, previous), v.header, v.name)
      assert.match(v.header, /^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    }
    // A receiver of either secret verifies, one of neither does not.
    assert.deepEqual(
      rotating.map((v) => v.expected.valid),
      [true, true, false],
    )
  })

  test('the independent verifier reaches the expected verdict on every single-signature vector', async () => {
    assert.equal(TOLERANCE, TOLERANCE_S)
    for (const v of VECTORS.filter((v) => singleV1(v.header))) {
      assert.equal(await verify(v.secret, v.header, utf8.encode(v.body), v.now), v.expected.valid, v.name)
    }
  })

  test("Stripe's verifier (webhooks.constructEvent) accepts the service's headers and refuses the bad ones", () => {
    const constructEvent = (body: string, header: string, secret: string, nowS: number) =>
      stripe.webhooks.constructEvent(body, header, secret, TOLERANCE, undefined, nowS * 1000)
    for (const v of VECTORS) {
      // Stripe does not refuse a t ahead of its clock; everything else it judges as we do.
      if (!v.expected.valid && v.expected.reason === 'timestamp_in_future') continue
      if (v.expected.valid) {
        const header = signatureHeader(v.secret, v.body, v.timestamp)
        assert.equal(constructEvent(v.body, header, v.secret, v.now).id, v.expected.event_id, v.name)
        assert.equal(constructEvent(v.body, v.header, v.secret, v.now).id, v.expected.event_id, v.name)
      } else {
        assert.throws(() => constructEvent(v.body, v.header, v.secret, v.now), /signature|timestamp/i, v.name)
      }
    }
    const now = Math.floor(Date.now() / 1000)
    const fresh = VECTORS[0]!
    const event = stripe.webhooks.constructEvent(
      fresh.body,
      signatureHeader(fresh.secret, fresh.body, now),
      fresh.secret,
    )
    assert.equal(event.type, JSON.parse(fresh.body).type)
  })
})

describe('X-Service-Signature on real deliveries', () => {
  let t: TestApp
  let receiver: Receiver
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    receiver = await startReceiver()
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    tenant = await t.tenant()
    await t.startDispatcher({ ca: receiver.ca })
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  async function createEndpoint(key: string, path: string) {
    const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: receiver.url(path) })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as { endpoint: { id: string }; secret: string }
  }

  test('an order.received delivery verifies with the full whsec_ secret over the raw body', async () => {
    const { secret } = await createEndpoint(tenant.liveKey, '/live')
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43,}$/)
    const before = receiver.received.length
    const order = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(order.statusCode, 201)
    await receiver.waitFor(before + 1)
    const req = receiver.received[before]!
    const header = req.headers['x-service-signature'] as string
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/)
    const signedAt = Number(parseSignature(header)!.t)
    assert.ok(Math.abs(signedAt - req.at / 1000) < 5, 't is the Unix time in seconds at signing')

    const now = Math.floor(Date.now() / 1000)
    assert.equal(await verify(secret, header, req.body, now), true)

    // The key is the whole string as UTF-8: no stripping, no decoding.
    assert.equal(await verifyWithKey(strippedKey(secret), header, req.body, now), false)
    assert.equal(await verifyWithKey(base64DecodedKey(secret), header, req.body, now), false)

    // Raw bytes: one changed byte, or the same JSON re-serialized, fails.
    const tampered = Buffer.from(req.body)
    tampered[tampered.length - 2] = tampered.at(-2)! ^ 1
    assert.equal(await verify(secret, header, tampered, now), false)
    const reserialized = utf8.encode(JSON.stringify(JSON.parse(req.body.toString('utf8')), null, 1))
    assert.equal(await verify(secret, header, reserialized, now), false)

    // Receiver clock more than 300 s away.
    assert.equal(await verify(secret, header, req.body, signedAt + 301), false)
    assert.equal(await verify(secret, header, req.body, signedAt - 301), false)

    // Missing or unparsable headers fail.
    const v1 = parseSignature(header)!.v1
    for (const bad of [
      undefined,
      '',
      `v1=${v1}`,
      `t=${signedAt}`,
      `t=abc,v1=${v1}`,
      `t=${signedAt},v1=${v1.toUpperCase()}`,
      `t=${signedAt},v1=${v1.slice(0, 63)}`,
      `${signedAt},${v1}`,
    ]) {
      assert.equal(await verify(secret, bad, req.body, now), false, `header ${bad}`)
    }

    // The rest of the delivery request.
    assert.equal(req.method, 'POST')
    assert.equal(req.headers['content-type'], 'application/json')
    assert.equal(req.headers['user-agent'], 'Service-Webhooks/1.0')
    const envelope = JSON.parse(req.body.toString('utf8'))
    assert.equal(req.headers['x-service-event-id'], envelope.id)
    assert.equal(req.headers['x-service-event-type'], 'order.received')
    assert.equal(envelope.type, 'order.received')
    assert.equal(envelope.api_version, 'v1')
    assert.equal(envelope.data.order_id, order.json().data.order.id)
    const event = await t.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', envelope.id)
      .executeTakeFirstOrThrow()
    assert.equal(envelope.created_at, event.created_at.toISOString())
  })

  test('each endpoint signs with its own secret (a test-environment ping)', async () => {
    const a = await createEndpoint(tenant.testKey, '/test-a')
    const b = await createEndpoint(tenant.testKey, '/test-b')
    assert.notEqual(a.secret, b.secret)
    const before = receiver.received.length
    const res = await t.api(tenant.testKey, 'POST', `/v1/webhook-endpoints/${a.endpoint.id}/test`)
    assert.equal(res.statusCode, 202)
    await receiver.waitFor(before + 1)
    await new Promise((r) => setTimeout(r, 200))
    const pings = receiver.received.slice(before)
    assert.deepEqual(
      pings.map((r) => r.url),
      ['/test-a'],
    )
    const req = pings[0]!
    const header = req.headers['x-service-signature'] as string
    const now = Math.floor(Date.now() / 1000)
    assert.equal(await verify(a.secret, header, req.body, now), true)
    assert.equal(await verify(b.secret, header, req.body, now), false)
    assert.equal(req.headers['x-service-event-type'], 'ping')
  })
})
