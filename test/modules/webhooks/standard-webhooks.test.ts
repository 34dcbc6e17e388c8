import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Webhook as StandardWebhook } from 'standardwebhooks'
import Stripe from 'stripe'
import { Webhook as SvixWebhook } from 'svix'
import { verifyWebhook } from '../../../packages/client/src/webhooks.ts'
import { signedHeaders, signingKeys } from '../../../src/modules/webhooks/signing.ts'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { createEndpoint } from '../../helpers/webhook-endpoints.ts'

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
    receiver = await startReceiver()
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    tenant = await t.tenant()
    await t.startDispatcher({ ca: receiver.ca })
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

    assert.deepEqual(verdicts(req, secret), { standardwebhooks: event.id, svix: event.id, stripe: event.id })
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
      const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
        grace_period_seconds: grace,
      })
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data.secret as string
    }
    const fresh = await rotate(3600)
    const during = await ping(endpoint.id, '/rolling')
    const id = JSON.parse(during.body.toString('utf8')).id as string
    assert.match(String(during.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/)
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
