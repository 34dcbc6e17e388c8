import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import Stripe from 'stripe'
import { verifyWebhook } from '../../../packages/client/src/webhooks.ts'
import { loggerOptions } from '../../../src/http/logging.ts'
import { createTestApp, manualClock, OPERATOR_TOKEN, type TestApp } from '../../helpers/app.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { createEndpoint } from '../../helpers/webhook-endpoints.ts'

/**
 * Deliveries while an endpoint's secret is rotated, with the app and its worker
 * on a manual clock: the grace period ends when the test moves the clock, not
 * when a loaded machine gets round to it. Receivers check with the client's
 * verifyWebhook and with Stripe's verifier, each knowing one secret.
 */
const HOUR_MS = 3_600_000
const stripe = new Stripe('sk_test_unused')

const verifies = async (req: Received, secret: string) => {
  try {
    await verifyWebhook(req.body, header(req), secret)
    return true
  } catch {
    return false
  }
}
const stripeVerifies = (req: Received, secret: string) => {
  try {
    stripe.webhooks.constructEvent(req.body.toString('utf8'), header(req), secret, 300)
    return true
  } catch {
    return false
  }
}

type Received = Receiver['received'][number]
const header = (req: Received) => String(req.headers['x-service-signature'])
const hmac = (secret: string, t: string, body: Buffer) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')

/** The header's t and its v1 values, in order; the form must be `t=<digits>(,v1=<64 hex>)+`. */
function parts(req: Received) {
  const value = header(req)
  assert.match(value, /^t=\d+(,v1=[0-9a-f]{64})+$/)
  const [t, ...v1] = value.split(',').map((p) => p.slice(p.indexOf('=') + 1))
  return { t: t!, v1 }
}

describe('webhook deliveries while a secret is rotated', () => {
  const clock = manualClock(new Date())
  const logs: string[] = []
  let t: TestApp
  let receiver: Receiver
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  const secretsSeen: string[] = []

  before(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk))
        done()
      },
    })
    t = await createTestApp({
      clock,
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
      logger: loggerOptions({ level: 'trace', pretty: false, secrets: [OPERATOR_TOKEN], stream }),
    })
    receiver = await startReceiver((req) => ({ status: req.url === '/failing' ? 500 : 200 }))
    tenant = await t.tenant()
    // A retry would wait for the manual clock: the first attempt gets time even on a busy machine.
    await t.startDispatcher({ ca: receiver.ca, timeoutMs: 10_000 })
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  async function rotate(id: string, body?: unknown) {
    const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, body)
    assert.equal(res.statusCode, 200, res.body)
    const secret = res.json().data.secret as string
    secretsSeen.push(secret)
    return secret
  }

  /**
   * Queues a ping to the endpoint and returns its request, once the worker has
   * recorded the attempt: the clock may then move on without a claimed attempt
   * outliving its lease on the manual clock (it would be sent again).
   */
  async function ping(id: string, path: string): Promise<Received> {
    const eventId = (r: Received) => String(r.headers['x-service-event-id'])
    const known = new Set(receiver.received.filter((r) => r.url === path).map(eventId))
    const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)
    assert.equal(res.statusCode, 202, res.body)
    const req = await waitUntil(
      () => receiver.received.find((r) => r.url === path && !known.has(eventId(r))),
      'the ping to arrive',
    )
    await waitUntil(async () => {
      const rows = await t.db
        .selectFrom('webhook_deliveries')
        .select('last_attempt_at')
        .where('endpoint_id', '=', id)
        .execute()
      return rows.every((row) => row.last_attempt_at !== null)
    }, 'the attempt to be recorded')
    return req
  }

  test('both secrets verify throughout the grace period; after it only the new one, with one v1', async () => {
    const { endpoint, secret: old } = await createEndpoint(t, tenant.liveKey, receiver.url('/rolling'))
    secretsSeen.push(old)

    // Outside a rotation: the reference's form, exactly one v1.
    const plain = await ping(endpoint.id, '/rolling')
    assert.match(header(plain), /^t=\d+,v1=[0-9a-f]{64}$/)
    assert.equal(await verifies(plain, old), true)

    const fresh = await rotate(endpoint.id, { grace_period_seconds: 3600 })
    // At the start, in the middle and in the last millisecond of the grace period.
    for (const step of [0, 30 * 60_000, 30 * 60_000 - 1]) {
      clock.advance(step)
      const req = await ping(endpoint.id, '/rolling')
      const { t: ts, v1 } = parts(req)
      assert.deepEqual(v1, [hmac(fresh, ts, req.body), hmac(old, ts, req.body)], 'new first, then old')
      // A receiver that knows only the old secret, and one that knows only the new one.
      assert.equal(await verifies(req, old), true)
      assert.equal(await verifies(req, fresh), true)
      assert.equal(stripeVerifies(req, old), true)
      assert.equal(stripeVerifies(req, fresh), true)
      assert.equal(await verifies(req, 'whsec_someone-elses-secret'), false)
    }

    clock.advance(1)
    const afterGrace = await ping(endpoint.id, '/rolling')
    assert.match(header(afterGrace), /^t=\d+,v1=[0-9a-f]{64}$/)
    assert.equal(await verifies(afterGrace, fresh), true)
    assert.equal(await verifies(afterGrace, old), false)
    assert.equal(stripeVerifies(afterGrace, old), false)
  })

  test('grace period 0 cuts over at once; a second rotation drops the oldest secret', async () => {
    const { endpoint, secret: first } = await createEndpoint(t, tenant.liveKey, receiver.url('/cut'))
    secretsSeen.push(first)
    await ping(endpoint.id, '/cut')

    const second = await rotate(endpoint.id, { grace_period_seconds: 0 })
    const cut = await ping(endpoint.id, '/cut')
    assert.match(header(cut), /^t=\d+,v1=[0-9a-f]{64}$/)
    assert.equal(await verifies(cut, second), true)
    assert.equal(await verifies(cut, first), false)

    const third = await rotate(endpoint.id, { grace_period_seconds: 600 })
    const fourth = await rotate(endpoint.id)
    const req = await ping(endpoint.id, '/cut')
    assert.equal(parts(req).v1.length, 2)
    assert.equal(await verifies(req, fourth), true)
    assert.equal(await verifies(req, third), true)
    assert.equal(await verifies(req, second), false)
    clock.advance(24 * HOUR_MS)
    const later = await ping(endpoint.id, '/cut')
    assert.equal(parts(later).v1.length, 1)
    assert.equal(await verifies(later, fourth), true)
  })

  test('failed attempts during a rotation are signed the same; no secret appears in the logs', async () => {
    const { endpoint, secret: old } = await createEndpoint(t, tenant.liveKey, receiver.url('/failing'))
    secretsSeen.push(old)
    const fresh = await rotate(endpoint.id, { grace_period_seconds: 60 })
    const req = await ping(endpoint.id, '/failing')
    assert.equal(await verifies(req, old), true)
    assert.equal(await verifies(req, fresh), true)

    const text = logs.join('')
    assert.ok(text.includes('rotate-secret'), 'the rotation requests were logged')
    for (const secret of secretsSeen) {
      assert.equal(text.includes(secret.slice('whsec_'.length)), false, 'a secret was logged')
    }
    const sealed = await t.db.selectFrom('webhook_endpoints').selectAll().execute()
    for (const row of sealed) {
      for (const value of [row.secret_encrypted, row.previous_secret_encrypted]) {
        if (value) assert.equal(text.includes(value), false, 'a sealed secret was logged')
      }
    }
  })
})
