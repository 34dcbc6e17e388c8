import assert from 'node:assert/strict'
import { createServer as createHttpsServer } from 'node:https'
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, type TestContext, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { type TLSSocket, createServer as tlsCreateServer } from 'node:tls'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { Webhook as SvixWebhook } from 'svix'
import { verifyWebhook } from '../../../../packages/client/src/webhooks.ts'
import { SIGNATURE_VECTORS } from '../../../../packages/client/test/vectors.ts'
import {
  signatureHeader,
  signedHeaders,
  signingKeys,
} from '../../../../src/modules/webhooks/worker/signing.ts'
import { isBlockedAddress, parseCidrs, type Resolver } from '../../../../src/modules/webhooks/worker/ssrf.ts'
import { createTestApp, orderBody, type TestApp, useTestDatabase } from '../../../helpers/app.ts'
import { endpointDeliveries } from '../../../helpers/dispatcher.ts'
import {
  loopbackResolver,
  type Receiver,
  startReceiver,
  testCertificate,
} from '../../../helpers/https-receiver.ts'
import { waitUntil } from '../../../helpers/wait.ts'
import { createEndpoint } from '../../../helpers/webhook-endpoints.ts'

/** A local HTTPS receiver, an app whose worker delivers to it, and an organization of the app. */
async function startReceivingApp() {
  const receiver = await startReceiver()
  const t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  const tenant = await t.tenant()
  await t.startDispatcher({ ca: receiver.ca })
  return { t, receiver, tenant }
}

describe('signing', () => {
  /**
   * A receiver's signature check written from the reference alone (WebCrypto,
   * no node:crypto, nothing shared with src/modules/webhooks/worker/signing.ts):
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
          assert.throws(
            () => constructEvent(v.body, v.header, v.secret, v.now),
            /signature|timestamp/i,
            v.name,
          )
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
      ;({ t, receiver, tenant } = await startReceivingApp())
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
})

describe('Standard Webhooks', () => {
  /**
   * The Standard Webhooks headers (webhook-id, webhook-timestamp,
   * webhook-signature) on real deliveries, checked with the libraries receivers
   * use, unchanged: standardwebhooks and svix with `new Webhook(secret)`, and
   * Stripe's verifier on X-Service-Signature of the same request.
   */
  type Received = Receiver['received'][number]
  const stripe = new Stripe('sk_test_unused')
  const OTHER_SECRET = 'whsec_q3ZL0v8mXc1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR1tY'

  const standardSet = (req: Received) => ({
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  })

  /** What each library makes of the request with `secret`: the event id, or the error's message. */
  function verdicts(req: Received, secret: string) {
    const body = req.body.toString('utf8')
    const attempt = (check: () => object) => {
      try {
        return String((check() as { id?: unknown }).id)
      } catch (err) {
        return `refused: ${(err as Error).message}`
      }
    }
    return {
      standardwebhooks: attempt(() => new StandardWebhook(secret).verify(body, standardSet(req)) as object),
      // svix 2 returns nothing and throws on a failure.
      svix: attempt(() => {
        new SvixWebhook(secret).verify(body, standardSet(req))
        return JSON.parse(body)
      }),
      stripe: attempt(() =>
        stripe.webhooks.constructEvent(body, String(req.headers['x-service-signature']), secret, 300),
      ),
    }
  }

  describe('Standard Webhooks headers on real deliveries', () => {
    let t: TestApp
    let receiver: Receiver
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    before(async () => {
      ;({ t, receiver, tenant } = await startReceivingApp())
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    async function ping(id: string, path: string): Promise<Received> {
      const known = new Set(receiver.received.map((r) => r.headers['webhook-id']))
      const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)
      assert.equal(res.statusCode, 202, res.body)
      return waitUntil(
        () => receiver.received.find((r) => r.url === path && !known.has(r.headers['webhook-id'])),
        'the ping to arrive',
      )
    }

    test('one order.received delivery verifies with standardwebhooks, svix, stripe-node and the client', async () => {
      const { secret } = await createEndpoint(t, tenant.liveKey, receiver.url('/one'))
      assert.match(secret, /^whsec_[A-Za-z0-9]{43}$/, 'letters and digits: valid in both base64 alphabets')
      const before = receiver.received.length
      const order = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201, order.body)
      await receiver.waitFor(before + 1)
      const req = receiver.received[before]!
      const event = JSON.parse(req.body.toString('utf8')) as { id: string; type: string }
      assert.equal(event.type, 'order.received')

      // The id is the event's, the timestamp X-Service-Signature's t, one v1 signature in base64.
      const serviceSignature = String(req.headers['x-service-signature'])
      assert.match(serviceSignature, /^t=\d+,v1=[0-9a-f]{64}$/, 'X-Service-Signature keeps its form')
      assert.equal(req.headers['webhook-id'], event.id)
      assert.equal(req.headers['x-service-event-id'], event.id)
      assert.equal(`t=${req.headers['webhook-timestamp']}`, serviceSignature.split(',')[0])
      assert.match(String(req.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/)

      assert.deepEqual(verdicts(req, secret), {
        standardwebhooks: event.id,
        svix: event.id,
        stripe: event.id,
      })
      const wrong = verdicts(req, OTHER_SECRET)
      for (const verdict of Object.values(wrong)) assert.match(verdict, /^refused: /)

      // The client takes the request's headers, either set.
      const { 'x-service-signature': _s, ...standardOnly } = req.headers
      assert.equal((await verifyWebhook(req.body, req.headers, secret)).id, event.id)
      assert.equal((await verifyWebhook(req.body, standardOnly, secret)).id, event.id)
      await assert.rejects(verifyWebhook(req.body, standardOnly, OTHER_SECRET), {
        reason: 'signature_mismatch',
      })

      // The id is signed: the same signature under another id does not verify.
      const moved = { ...standardSet(req), 'webhook-id': '01900000-0000-7000-8000-000000000000' }
      assert.throws(() => new StandardWebhook(secret).verify(req.body.toString('utf8'), moved), /signature/)
      const tampered = Buffer.from(req.body)
      tampered[tampered.length - 2] = tampered.at(-2)! ^ 1
      assert.throws(() => new SvixWebhook(secret).verify(tampered.toString('utf8'), standardSet(req)))
    })

    test('a redelivery carries the same webhook-id, signed afresh, and verifies with the libraries', async () => {
      const { endpoint, secret } = await createEndpoint(t, tenant.liveKey, receiver.url('/again'))
      const first = await ping(endpoint.id, '/again')
      const id = JSON.parse(first.body.toString('utf8')).id as string
      await waitUntil(async () => {
        const res = await t.admin('GET', `/admin/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
        return res.json().data[0]?.status === 'succeeded'
      }, 'the first attempt to be recorded')
      const log = await t.admin('GET', `/admin/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      const original = log.json().data[0] as { id: string }
      const count = receiver.received.filter((r) => r.url === '/again').length
      const res = await t.admin('POST', `/admin/v1/webhook-deliveries/${original.id}/redeliver`)
      assert.equal(res.statusCode, 202, res.body)
      const again = await waitUntil(
        () => receiver.received.filter((r) => r.url === '/again')[count],
        'the redelivery to arrive',
      )
      assert.equal(again.headers['webhook-id'], id, 'the same message id: receivers deduplicate on it')
      assert.deepEqual(again.body, first.body)
      assert.deepEqual(verdicts(again, secret), { standardwebhooks: id, svix: id, stripe: id })
    })

    test('during a rotation both secrets sign, space-separated; with grace 0 only the new one', async () => {
      const { endpoint, secret: old } = await createEndpoint(t, tenant.liveKey, receiver.url('/rolling'))
      const rotate = async (grace: number) => {
        const res = await t.api(
          tenant.liveKey,
          'POST',
          `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
          {
            grace_period_seconds: grace,
          },
        )
        assert.equal(res.statusCode, 200, res.body)
        return res.json().data.secret as string
      }
      const fresh = await rotate(3600)
      const during = await ping(endpoint.id, '/rolling')
      const id = JSON.parse(during.body.toString('utf8')).id as string
      assert.match(
        String(during.headers['webhook-signature']),
        /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/,
      )
      assert.deepEqual(verdicts(during, old), { standardwebhooks: id, svix: id, stripe: id })
      assert.deepEqual(verdicts(during, fresh), { standardwebhooks: id, svix: id, stripe: id })
      for (const verdict of Object.values(verdicts(during, OTHER_SECRET))) assert.match(verdict, /^refused: /)

      const newest = await rotate(0)
      const cut = await ping(endpoint.id, '/rolling')
      const cutId = JSON.parse(cut.body.toString('utf8')).id as string
      assert.match(String(cut.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/)
      assert.deepEqual(verdicts(cut, newest), { standardwebhooks: cutId, svix: cutId, stripe: cutId })
      for (const verdict of Object.values(verdicts(cut, fresh))) assert.match(verdict, /^refused: /)
    })
  })

  describe('Standard Webhooks key of a secret made before secrets were alphanumeric', () => {
    test('a secret with - and _ signs with its base64url bytes; the libraries verify it written in base64', () => {
      const legacy = 'whsec_q3ZL0v8m-c1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR_tY'
      const body = '{"id":"0192f1a2-7c3e-7b8a-9d4e-5f6a7b8c9d0e","type":"ping","data":{}}'
      const now = Math.floor(Date.now() / 1000)
      const headers = signedHeaders(signingKeys(legacy), '0192f1a2-7c3e-7b8a-9d4e-5f6a7b8c9d0e', body, now)
      const base64 = `whsec_${legacy.slice(6).replace(/-/g, '+').replace(/_/g, '/')}`
      const standard = {
        'webhook-id': headers['webhook-id']!,
        'webhook-timestamp': headers['webhook-timestamp']!,
        'webhook-signature': headers['webhook-signature']!,
      }
      assert.deepEqual(new StandardWebhook(base64).verify(body, standard), JSON.parse(body))
      assert.doesNotThrow(() => new SvixWebhook(base64).verify(body, standard))
      assert.throws(() => new SvixWebhook(OTHER_SECRET).verify(body, standard))
      // X-Service-Signature is unchanged: keyed with the secret string as it is.
      assert.equal(
        stripe.webhooks.constructEvent(body, headers['x-service-signature']!, legacy, 300).type,
        'ping',
      )
    })
  })
})

describe('blocked addresses (SSRF)', () => {
  function listen(server: Server, port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  }

  /** One database for the file (a fresh embedded one is slow to build); each app on it has its own config. */
  const testDb = useTestDatabase()

  /** Creates a webhook endpoint for `url` (201 expected); the addresses stored as its pinned ones. */
  async function pinnedAddresses(t: TestApp, key: string, url: string): Promise<string[]> {
    const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url })
    assert.equal(res.statusCode, 201, res.body)
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .select('pinned_addresses')
      .where('id', '=', res.json().data.endpoint.id)
      .executeTakeFirstOrThrow()
    return row.pinned_addresses
  }

  describe('isBlockedAddress', () => {
    const none = parseCidrs([])
    const cases: [string, string[]][] = [
      ['IPv4 "this network" 0.0.0.0/8', ['0.0.0.0', '0.1.2.3']],
      ['IPv4 RFC 1918', ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.0.1']],
      ['IPv4 CGNAT 100.64.0.0/10', ['100.64.0.1', '100.127.255.254']],
      ['IPv4 loopback', ['127.0.0.1', '127.255.255.254']],
      ['IPv4 link-local and cloud metadata', ['169.254.0.1', '169.254.169.254']],
      [
        'IPv4 special purpose and documentation',
        ['192.0.0.1', '192.0.2.1', '198.18.0.1', '198.19.255.254', '198.51.100.1', '203.0.113.1'],
      ],
      ['IPv4 multicast', ['224.0.0.1', '239.255.255.250']],
      ['IPv4 reserved and broadcast', ['240.0.0.1', '255.255.255.255']],
      ['IPv6 unspecified and loopback', ['::', '::1', '0:0:0:0:0:0:0:1']],
      ['IPv6 link-local', ['fe80::1', 'febf::1']],
      ['IPv6 unique-local', ['fc00::1', 'fd00::1', 'fdff:ffff::1']],
      ['IPv6 site-local (deprecated)', ['fec0::1']],
      ['IPv6 multicast', ['ff02::1', 'ff0e::1']],
      [
        'IPv4-mapped IPv6 of private addresses',
        ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0'],
      ],
      ['IPv4-compatible IPv6 (::/96, reserved)', ['::127.0.0.1', '::7f00:1', '::a00:1']],
      ['IPv4-translated IPv6 (RFC 6145)', ['::ffff:0:7f00:1', '::ffff:0:a00:1']],
      [
        'NAT64 64:ff9b::/96 of private addresses',
        ['64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b::a9fe:a9fe'],
      ],
      ['6to4 2002::/16 of private addresses', ['2002:7f00:1::1', '2002:a00:1::', '2002:c0a8:101::1']],
      ['IPv6 documentation and discard', ['2001:db8::1', '100::1']],
      ['not an address at all', ['not-an-address', '', '1.2.3.4.5', 'fe80::1::2']],
    ]
    for (const [name, addresses] of cases) {
      test(`blocks ${name}`, () => {
        for (const address of addresses) assert.equal(isBlockedAddress(address, none), true, address)
      })
    }

    test('lets public unicast addresses through, right next to the blocked ranges', () => {
      for (const address of [
        '1.1.1.1',
        '8.8.8.8',
        '9.255.255.255',
        '11.0.0.1',
        '93.184.216.34',
        '100.63.255.255',
        '100.128.0.1',
        '169.253.255.255',
        '172.15.255.255',
        '172.32.0.1',
        '192.167.255.255',
        '192.169.0.1',
        '223.255.255.254',
        '2606:4700:4700::1111',
        '2001:4860:4860::8888',
        '2a00:1450:4001:81c::200e',
      ]) {
        assert.equal(isBlockedAddress(address, none), false, address)
      }
    })

    test('WEBHOOK_ALLOW_PRIVATE_CIDRS exempts exactly its ranges', () => {
      const loopback = parseCidrs(['127.0.0.0/8'])
      for (const address of ['127.0.0.1', '127.1.2.3', '::ffff:127.0.0.1']) {
        assert.equal(isBlockedAddress(address, loopback), false, address)
      }
      for (const address of ['10.0.0.1', '::1', '169.254.169.254', '0.0.0.0']) {
        assert.equal(isBlockedAddress(address, loopback), true, address)
      }

      const mixed = parseCidrs(['10.0.0.0/8', 'fd00::/8'])
      for (const address of ['10.1.2.3', '10.255.255.255', 'fd12::1']) {
        assert.equal(isBlockedAddress(address, mixed), false, address)
      }
      for (const address of ['192.168.0.1', '172.16.0.1', 'fc00::1', 'fe80::1', '127.0.0.1']) {
        assert.equal(isBlockedAddress(address, mixed), true, address)
      }

      const single = parseCidrs(['169.254.169.254/32'])
      assert.equal(isBlockedAddress('169.254.169.254', single), false)
      assert.equal(isBlockedAddress('169.254.169.253', single), true)

      assert.throws(() => parseCidrs(['nope']), /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
      assert.throws(() => parseCidrs(['10.0.0.0/33']), /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
    })
  })

  describe('SSRF: a refused target never sees a connection', () => {
    /** Every connection a loopback listener saw, on 127.0.0.1 or [::1]. */
    const connections: string[] = []
    const servers: Server[] = []
    let port: number
    const answers = new Map<string, string[]>()
    const resolverCalls: string[] = []
    const resolver: Resolver = async (host) => {
      resolverCalls.push(host)
      const answer = answers.get(host)
      if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
      return answer
    }
    let t: TestApp
    let tenant: Awaited<ReturnType<TestApp['tenant']>>

    before(async () => {
      const record = (socket: Socket) => {
        connections.push(`${socket.localAddress}:${socket.localPort}`)
        socket.destroy()
      }
      const v4 = createServer(record)
      await listen(v4, 0, '127.0.0.1')
      port = (v4.address() as { port: number }).port
      const v6 = createServer(record)
      await listen(v6, port, '::1')
      servers.push(v4, v6)
      // No allow-list: every private or reserved address is refused.
      t = await createTestApp({ testDb, resolver })
      tenant = await t.tenant()
      // A worker runs throughout, so anything stored would be attempted.
      await t.startDispatcher({ retryDelaysMs: [10], pollIntervalMs: 20 })
    })
    after(async () => {
      await t.close()
      for (const server of servers) server.close()
    })

    async function assertBlocked(url: string) {
      const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url })
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'webhook_target_blocked', `${url}: ${res.body}`)
    }

    test('the listener works (a control connection is seen)', async () => {
      const { connect } = await import('node:net')
      for (const host of ['127.0.0.1', '::1']) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect({ host, port }, () => {
            socket.destroy()
            resolve()
          })
          socket.on('error', reject)
        })
      }
      await sleep(50)
      assert.equal(connections.length, 2)
      connections.length = 0
    })

    test('host names resolving to private or reserved addresses: 422 webhook_target_blocked, no connection', async () => {
      const battery: Record<string, string[]> = {
        'loopback4.test': ['127.0.0.1'],
        'loopback6.test': ['::1'],
        'rfc1918-a.test': ['10.0.0.1'],
        'rfc1918-b.test': ['172.16.0.1'],
        'rfc1918-c.test': ['192.168.0.1'],
        'metadata.test': ['169.254.169.254'],
        'cgnat.test': ['100.64.0.1'],
        'ula.test': ['fd00::1'],
        'linklocal6.test': ['fe80::1'],
        'zoned.test': ['fe80::1%lo'],
        'mapped.test': ['::ffff:127.0.0.1'],
        'compat.test': ['::127.0.0.1'],
        'nat64.test': ['64:ff9b::7f00:1'],
        'zero.test': ['0.0.0.0'],
        'unspecified6.test': ['::'],
        'multicast.test': ['224.0.0.1'],
        'mixed4.test': ['93.184.216.34', '10.0.0.1'],
        'mixed6.test': ['2606:4700:4700::1111', '::1'],
        'mixed-loopback.test': ['8.8.8.8', '127.0.0.1'],
      }
      for (const [host, addresses] of Object.entries(battery)) answers.set(host, addresses)
      for (const host of Object.keys(battery)) await assertBlocked(`https://${host}:${port}/hook`)
      assert.deepEqual(resolverCalls.filter((h) => h in battery).sort(), Object.keys(battery).sort())

      // Nothing stored, so an event has nowhere to go.
      const order = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201)
      await sleep(300)
      assert.deepEqual(connections, [])
      assert.equal(
        (
          await t.db
            .selectFrom('webhook_endpoints')
            .select('id')
            .where('organization_id', '=', tenant.orgId)
            .execute()
        ).length,
        0,
      )
      assert.equal(
        (
          await t.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('organization_id', '=', tenant.orgId)
            .execute()
        ).length,
        0,
      )
    })

    test('IP-literal URLs in every spelling: 422 webhook_target_blocked, no connection, no DNS', async () => {
      const callsBefore = resolverCalls.length
      for (const host of [
        '127.0.0.1',
        '127.1',
        '2130706433',
        '0x7f000001',
        '0177.0.0.1',
        '0.0.0.0',
        '0',
        '[::1]',
        '[0:0:0:0:0:0:0:1]',
        '[::]',
        '[::ffff:127.0.0.1]',
        '[::ffff:7f00:1]',
        '[::127.0.0.1]',
        '[64:ff9b::7f00:1]',
        '[2002:7f00:1::1]',
        '169.254.169.254',
        '10.0.0.1',
        '[fd00::1]',
        '[fe80::1]',
        '224.0.0.1',
      ]) {
        await assertBlocked(`https://${host}:${port}/hook`)
      }
      await assertBlocked('https://169.254.169.254/latest/meta-data/')
      assert.equal(resolverCalls.length, callsBefore, 'IP literals are checked without DNS')
      await sleep(200)
      assert.deepEqual(connections, [])
    })

    test('a public address is accepted (the battery is not refusing everything)', async () => {
      answers.set('public.test', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
      // In the test environment: test endpoints get pings only, so nothing is sent.
      assert.deepEqual(await pinnedAddresses(t, tenant.testKey, 'https://public.test/hook'), [
        '93.184.216.34',
        '2606:2800:220:1:248:1893:25c8:1946',
      ])
    })
  })

  describe('with WEBHOOK_ALLOW_PRIVATE_CIDRS=127.0.0.0/8', () => {
    let t: TestApp
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    let mode: 'first' | 'moved' | 'broken' = 'first'
    let resolverCalls = 0
    const others = new Map<string, string[]>([
      ['allowed.test', ['127.0.0.5']],
      ['half-allowed.test', ['127.0.0.1', '10.0.0.1']],
      ['v6-loopback.test', ['::1']],
    ])
    const resolver: Resolver = async (host) => {
      if (others.has(host)) return others.get(host)!
      resolverCalls++
      assert.equal(host, 'hooks.example.test')
      if (mode === 'broken') throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' })
      return mode === 'first' ? ['127.0.0.1'] : ['127.0.0.2']
    }
    /** The pinned target (127.0.0.1) and where DNS later points (127.0.0.2), on one port. */
    const pinned: { servername: string | false | null; host: string | undefined; eventId: string }[] = []
    const moved: string[] = []
    let port: number
    let ca: string
    const servers: Server[] = []

    before(async () => {
      const certificate = await testCertificate()
      ca = certificate.cert
      const https = createHttpsServer(certificate, (req, res) => {
        req.resume()
        req.on('end', () => {
          pinned.push({
            servername: (req.socket as TLSSocket).servername,
            host: req.headers.host,
            eventId: String(req.headers['x-service-event-id']),
          })
          res.writeHead(200).end()
        })
      })
      await listen(https, 0, '127.0.0.1')
      port = (https.address() as { port: number }).port
      const trap = createServer((socket) => {
        moved.push(`${socket.localAddress}:${socket.localPort}`)
        socket.destroy()
      })
      await listen(trap, port, '127.0.0.2')
      servers.push(https, trap)
      t = await createTestApp({ testDb, resolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
      tenant = await t.tenant()
    })
    after(async () => {
      await t.close()
      for (const server of servers) {
        ;(server as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
        server.close()
      }
    })

    test('an address inside the allow-list passes; any address outside it still refuses the URL', async () => {
      const ok = await t.api(tenant.testKey, 'POST', '/v1/webhook-endpoints', {
        url: 'https://allowed.test/hook',
      })
      assert.equal(ok.statusCode, 201, ok.body)
      for (const host of ['half-allowed.test', 'v6-loopback.test', '[::1]', '10.0.0.1']) {
        const res = await t.api(tenant.testKey, 'POST', '/v1/webhook-endpoints', {
          url: `https://${host}/hook`,
        })
        assert.equal(res.statusCode, 422, `${host}: ${res.body}`)
        assert.equal(res.json().error.code, 'webhook_target_blocked')
      }
    })

    test('DNS pinning: deliveries go to the address resolved at creation, whatever DNS says later; the worker never resolves', async () => {
      assert.deepEqual(
        await pinnedAddresses(t, tenant.liveKey, `https://hooks.example.test:${port}/pinned`),
        ['127.0.0.1'],
      )
      assert.equal(resolverCalls, 1)

      // DNS now points elsewhere.
      mode = 'moved'
      assert.deepEqual(await resolver('hooks.example.test'), ['127.0.0.2'])
      resolverCalls = 0
      await t.startDispatcher({ ca })
      const deadline = Date.now() + 10_000
      const order = async () => {
        const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
        assert.equal(created.statusCode, 201)
      }
      await order()
      while (pinned.length < 1 && Date.now() < deadline) await sleep(20)
      assert.equal(pinned.length, 1, 'delivered to the pinned address')

      // DNS now fails outright.
      mode = 'broken'
      await order()
      while (pinned.length < 2 && Date.now() < deadline) await sleep(20)
      assert.equal(pinned.length, 2, 'delivered to the pinned address with DNS down')

      await sleep(200)
      assert.deepEqual(moved, [], 'the address DNS moved to saw no connection')
      assert.equal(resolverCalls, 0, 'the worker never calls the resolver')
      for (const request of pinned) {
        assert.equal(request.servername, 'hooks.example.test', 'SNI carries the host name')
        assert.equal(request.host, `hooks.example.test:${port}`, 'so does the Host header')
      }
      const deliveries = await t.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'event_id'])
        .where('organization_id', '=', tenant.orgId)
        .execute()
      assert.deepEqual(
        deliveries.map((d) => d.status),
        ['succeeded', 'succeeded'],
      )
      assert.deepEqual(deliveries.map((d) => d.event_id).sort(), pinned.map((p) => p.eventId).sort())
    })

    test('a host that resolved to several addresses keeps them all pinned, and deliveries reach it', async () => {
      others.set('webhook.test', ['127.0.0.1', '127.0.0.3'])
      assert.deepEqual(await pinnedAddresses(t, tenant.liveKey, `https://webhook.test:${port}/several`), [
        '127.0.0.1',
        '127.0.0.3',
      ])
      await t.startDispatcher({ ca })
      const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(created.statusCode, 201)
      const deadline = Date.now() + 10_000
      const reached = () => pinned.filter((p) => p.host === `webhook.test:${port}`)
      while (reached().length < 1 && Date.now() < deadline) await sleep(20)
      assert.equal(reached().length, 1, 'delivered through the pinned addresses')
      assert.equal(reached()[0]!.servername, 'webhook.test')
      assert.deepEqual(moved, [], 'no connection went anywhere DNS did not answer at creation')
    })
  })

  describe('a range allowed when an endpoint was created and no longer', () => {
    const requests: string[] = []
    let port: number
    let ca: string
    let server: Server
    const resolver: Resolver = async () => ['127.0.0.1']

    before(async () => {
      const certificate = await testCertificate()
      ca = certificate.cert
      const https = createHttpsServer(certificate, (req, res) => {
        requests.push(String(req.url))
        req.resume()
        res.writeHead(200).end()
      })
      await listen(https, 0, '127.0.0.1')
      port = (https.address() as { port: number }).port
      server = https
    })
    after(() => {
      ;(server as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
      server.close()
    })

    test('each attempt checks the pinned addresses against the settings of now: a failed attempt that says why, and no connection', async () => {
      // Created while the service allowed 127.0.0.0/8 (its worker delivers there)...
      const lenient = await createTestApp({ testDb, resolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
      const tenant = await lenient.tenant()
      let endpointId: string
      try {
        const created = await lenient.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
          url: `https://hooks.example.test:${port}/withdrawn`,
        })
        assert.equal(created.statusCode, 201, created.body)
        endpointId = created.json().data.endpoint.id
        await lenient.startDispatcher({ ca })
        assert.equal((await lenient.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
        const deadline = Date.now() + 10_000
        while (requests.length < 1 && Date.now() < deadline) await sleep(20)
        assert.deepEqual(requests, ['/withdrawn'], 'delivered while the range was allowed')
      } finally {
        await lenient.close()
      }
      // ...then served by a service whose settings no longer allow it.
      const strict = await createTestApp({ testDb, resolver })
      try {
        await strict.startDispatcher({ ca, retryDelaysMs: [60_000] })
        const order = await strict.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
        assert.equal(order.statusCode, 201, order.body)
        const query = `/v1/webhook-deliveries?endpoint_id=${endpointId}&status=pending`
        let delivery: Record<string, unknown> | undefined
        const deadline = Date.now() + 10_000
        while (Date.now() < deadline) {
          const res = await strict.api(tenant.liveKey, 'GET', query)
          assert.equal(res.statusCode, 200, res.body)
          delivery = res.json().data[0]
          if (delivery && delivery.attempts === 1) break
          await sleep(20)
        }
        assert.ok(delivery, 'a delivery was logged')
        assert.equal(delivery.status, 'pending', 'an ordinary failed attempt: retried on the schedule')
        assert.equal(delivery.attempts, 1)
        assert.equal(delivery.error_code, 'connection_error', JSON.stringify(delivery))
        assert.equal(delivery.response_status, null)
        assert.match(String(delivery.error_message), /127\.0\.0\.1.*no longer allowed/)
        await sleep(200)
        assert.deepEqual(requests, ['/withdrawn'], 'the refused address saw no second request')
        const one = await strict.api(tenant.liveKey, 'GET', `/v1/webhook-deliveries/${delivery.id}`)
        assert.equal(one.statusCode, 200, one.body)
        const attempts = one.json().data.attempts as Record<string, unknown>[]
        assert.deepEqual(
          attempts.map((a) => [a.error_code, a.response_status]),
          [['connection_error', null]],
        )
        assert.match(String(attempts[0]!.error_message), /no longer allowed/)
        const endpoint = await strict.db
          .selectFrom('webhook_endpoints')
          .select(['consecutive_failures', 'is_active'])
          .where('id', '=', endpointId)
          .executeTakeFirstOrThrow()
        assert.deepEqual(endpoint, { consecutive_failures: 1, is_active: true }, 'it counts as a failure')
      } finally {
        await strict.close()
      }
    })
  })
})

describe('interim responses', () => {
  /**
   * A receiver on raw TLS: for each request on a connection (kept alive), it
   * writes `reply(n)`'s pieces one after another, `gapMs` apart, so interim
   * responses and the final one can arrive in one TCP segment or split anywhere.
   */
  async function rawReceiver(reply: (n: number) => string[], gapMs = 20) {
    const { key, cert } = await testCertificate()
    const requests: { at: number; connection: number }[] = []
    const sockets = new Set<TLSSocket>()
    const server = tlsCreateServer({ key, cert }, (socket: TLSSocket) => {
      sockets.add(socket)
      const connection = sockets.size
      let buffer = Buffer.alloc(0)
      socket.on('error', () => {})
      socket.on('data', async (data: Buffer) => {
        buffer = Buffer.concat([buffer, data])
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n')
          if (end === -1) return
          const length = Number(/content-length: *(\d+)/i.exec(buffer.subarray(0, end).toString())?.[1] ?? 0)
          if (buffer.length < end + 4 + length) return
          buffer = buffer.subarray(end + 4 + length)
          requests.push({ at: Date.now(), connection })
          for (const piece of reply(requests.length)) {
            await sleep(gapMs)
            if (!socket.destroyed) socket.write(piece)
          }
        }
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    return {
      ca: cert,
      requests,
      url: `https://webhook.test:${port}/hook`,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    }
  }

  const final = (status: string, body: string) =>
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  /**
   * An endpoint on `receiver` and a worker with one slot trusting it; then
   * `orders` orders, each once the previous one's delivery has its first
   * attempt recorded. Returns the deliveries.
   */
  async function deliver(ctx: TestContext, receiver: Awaited<ReturnType<typeof rawReceiver>>, orders = 1) {
    ctx.after(() => receiver.close())
    const tenant = await t.tenant()
    const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url: receiver.url })
    assert.equal(res.statusCode, 201, res.body)
    const endpointId = res.json().data.endpoint.id as string
    const worker = await t.startDispatcher({ ca: receiver.ca, retryDelaysMs: [60_000], concurrency: 1 })
    ctx.after(() => worker.stop(100))
    const deliveries = () => endpointDeliveries(t, endpointId)
    for (let i = 1; i <= orders; i++) {
      const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(created.statusCode, 201, created.body)
      const deadline = Date.now() + 10_000
      for (;;) {
        const rows = await deliveries()
        if (rows.length === i && rows.every((r) => r.attempts > 0)) break
        if (Date.now() > deadline) throw new Error(`delivery ${i} did not settle: ${JSON.stringify(rows)}`)
        await sleep(20)
      }
    }
    return deliveries()
  }

  describe('webhook dispatcher: interim (1xx) responses before the final one', () => {
    test('100 Continue, unasked for, then 200: the 200 counts, a success at the first attempt', async (ctx) => {
      const receiver = await rawReceiver(() => ['HTTP/1.1 100 Continue\r\n\r\n', final('200 OK', 'thanks')])
      const [row] = await deliver(ctx, receiver)
      assert.equal(row!.status, 'succeeded')
      assert.equal(row!.attempts, 1)
      assert.equal(row!.response_status, 200)
      assert.equal(row!.response_snippet, 'thanks')
      assert.equal(row!.error_code, null)
      assert.equal(receiver.requests.length, 1)
    })

    test('103 Early Hints then 500: a failed attempt with http_error and the final status', async (ctx) => {
      const receiver = await rawReceiver(() => [
        'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n',
        final('500 Internal Server Error', 'broken'),
      ])
      const [row] = await deliver(ctx, receiver)
      assert.equal(row!.status, 'pending', 'a retry is scheduled')
      assert.equal(row!.attempts, 1)
      assert.equal(row!.error_code, 'http_error')
      assert.equal(row!.response_status, 500)
      assert.equal(row!.response_snippet, 'broken')
    })

    test('several interim responses, split anywhere or sent with the final one, on a kept-alive connection', async (ctx) => {
      const pieces = [
        // Split inside the status line, and inside the interim response's end.
        ['HTTP/1.1 10', '0 Continue\r\n\r', '\nHTTP/1.1 102 Processing\r\n\r\n', final('204 No Content', '')],
        // Everything in one piece.
        [
          `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${final('200 OK', 'ok')}`,
        ],
        // No interim response at all, then a final status split early.
        ['HTTP/1.', final('202 Accepted', 'queued').slice(7)],
      ]
      const receiver = await rawReceiver((n) => pieces[n - 1]!)
      const rows = await deliver(ctx, receiver, 3)
      assert.deepEqual(
        rows.map((r) => [r.status, r.response_status, r.response_snippet, r.attempts]),
        [
          ['succeeded', 204, null, 1],
          ['succeeded', 200, 'ok', 1],
          ['succeeded', 202, 'queued', 1],
        ],
      )
      assert.equal(new Set(receiver.requests.map((r) => r.connection)).size, 1, 'one kept-alive connection')
    })
  })
})
