import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
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
 * A fixed vector, computed once outside this code base with
 *   printf '%s' "<t>.<body>" | openssl dgst -sha256 -hmac "<secret>"
 * (OpenSSL 3.0.19). The body has non-ASCII characters, so UTF-8 handling counts.
 */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwV4x2d7JzBNs',
  t: 1764064800,
  body: '{"id":"0192f1a2-7c3e-7b8a-9d4e-5f6a7b8c9d0e","type":"ping","created_at":"2025-11-25T10:00:00.000Z","api_version":"v1","data":{"message":"Grüße – test"}}',
  v1: '81126e6932d60cec84ddcf1c94d7e1fbae6e75f5b8bd034ea774f838d0ddad5e',
  /** The same with the key stripped of `whsec_` (what a wrong receiver computes). */
  v1StrippedKey: '50bc9605bb71222d6fec5a078a18b4cfa28ca16bd63e4eeecfa928314fb5ee0a',
}

describe('X-Service-Signature: the published-style test vector', () => {
  test('the independent verifier accepts the vector and rejects the stripped-key variant', async () => {
    const body = utf8.encode(VECTOR.body)
    assert.equal(await verify(VECTOR.secret, `t=${VECTOR.t},v1=${VECTOR.v1}`, body, VECTOR.t), true)
    assert.equal(
      await verify(VECTOR.secret, `t=${VECTOR.t},v1=${VECTOR.v1StrippedKey}`, body, VECTOR.t),
      false,
    )
    assert.equal(
      await verifyWithKey(
        strippedKey(VECTOR.secret),
        `t=${VECTOR.t},v1=${VECTOR.v1StrippedKey}`,
        body,
        VECTOR.t,
      ),
      true,
      'the stripped-key vector is what the stripped key computes (the verifier itself is sound)',
    )
  })

  test('the service signs the vector exactly', () => {
    assert.equal(signatureHeader(VECTOR.secret, VECTOR.body, VECTOR.t), `t=${VECTOR.t},v1=${VECTOR.v1}`)
  })

  test('the tolerance is 300 seconds either way of the receiver clock', async () => {
    const body = utf8.encode(VECTOR.body)
    const header = `t=${VECTOR.t},v1=${VECTOR.v1}`
    for (const [skew, ok] of [
      [300, true],
      [-300, true],
      [301, false],
      [-301, false],
    ] as const) {
      assert.equal(await verify(VECTOR.secret, header, body, VECTOR.t + skew), ok, `skew ${skew}`)
    }
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
