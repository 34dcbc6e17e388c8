import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { signWebhook, verifyWebhook, WebhookVerificationError, webhookHeaders } from '../src/index.ts'
import { SIGNATURE_VECTORS } from './vectors.ts'

const { tolerance, vectors } = SIGNATURE_VECTORS

describe('verifyWebhook: the published test vectors', () => {
  test('the file covers each failure the docs name', () => {
    const reasons = new Set(vectors.flatMap((v) => (v.expected.valid ? [] : [v.expected.reason])))
    assert.deepEqual([...reasons].sort(), [
      'malformed_header',
      'missing_header',
      'no_v1_signature',
      'signature_mismatch',
      'timestamp_in_future',
      'timestamp_too_old',
    ])
    assert.ok(vectors.filter((v) => v.expected.valid).length >= 4)
  })

  for (const v of vectors) {
    test(v.name, async () => {
      const verify = () => verifyWebhook(v.body, v.header, v.secret, { tolerance, now: v.now })
      if (v.expected.valid) {
        const event = await verify()
        assert.equal(event.id, v.expected.event_id)
        assert.equal(event.type, v.expected.event_type)
        assert.deepEqual(event, JSON.parse(v.body))
        // Bytes in, the same answer: what a server framework hands over.
        const fromBytes = await verifyWebhook(new TextEncoder().encode(v.body), v.header, v.secret, {
          tolerance,
          now: v.now,
        })
        assert.equal(fromBytes.id, v.expected.event_id)
      } else {
        const reason = v.expected.reason
        await assert.rejects(
          verify,
          (err) => err instanceof WebhookVerificationError && err.reason === reason,
        )
      }
    })
  }

  test('signWebhook makes the header of every single-signature valid vector', async () => {
    for (const v of vectors.filter((v) => v.expected.valid && /^t=\d+,v1=[0-9a-f]{64}$/.test(v.header))) {
      assert.equal(await signWebhook(v.body, v.secret, v.timestamp), v.header, v.name)
    }
  })

  test('a null or undefined header is missing_header; tolerance defaults to 300 s of the real clock', async () => {
    const v = vectors[0]!
    for (const header of [null, undefined]) {
      await assert.rejects(
        verifyWebhook(v.body, header, v.secret),
        (err) => err instanceof WebhookVerificationError && err.reason === 'missing_header',
      )
    }
    const now = Math.floor(Date.now() / 1000)
    const fresh = await signWebhook(v.body, v.secret, now - 299)
    assert.equal(
      (await verifyWebhook(v.body, fresh, v.secret)).id,
      v.expected.valid ? v.expected.event_id : '',
    )
    const old = await signWebhook(v.body, v.secret, now - 302)
    await assert.rejects(verifyWebhook(v.body, old, v.secret), /ago/)
    assert.ok(await verifyWebhook(v.body, old, v.secret, { tolerance: 600 }))
  })

  test('a signed body that is not JSON is refused as invalid_json', async () => {
    const header = await signWebhook('not json', 'whsec_x', 1000)
    await assert.rejects(
      verifyWebhook('not json', header, 'whsec_x', { now: 1000 }),
      (err) => err instanceof WebhookVerificationError && err.reason === 'invalid_json',
    )
  })
})

describe('verifyWebhook with the request headers: X-Service-Signature or Standard Webhooks', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwV4x2d7JzBNs'
  const body = vectors[0]!.body
  const id = JSON.parse(body).id as string
  const nowS = () => Math.floor(Date.now() / 1000)
  /** The Standard Webhooks set as the reference library signs it. */
  const standard = (key = secret, msgId = id, at = new Date()) => ({
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(msgId, at, body),
  })
  const reason = async (headers: Parameters<typeof verifyWebhook>[1], key = secret) => {
    try {
      await verifyWebhook(body, headers, key)
      return 'valid'
    } catch (err) {
      assert.ok(err instanceof WebhookVerificationError)
      return err.reason
    }
  }

  test('the Standard Webhooks set alone verifies, as Node, fetch or a plain object holds it', async () => {
    const headers = standard()
    assert.deepEqual(await verifyWebhook(body, headers, secret), JSON.parse(body))
    assert.deepEqual(await verifyWebhook(body, new Headers(headers), secret), JSON.parse(body))
    const capitalized = {
      'Webhook-Id': headers['webhook-id'],
      'Webhook-Timestamp': headers['webhook-timestamp'],
      'Webhook-Signature': headers['webhook-signature'],
    }
    assert.equal(await reason(capitalized), 'valid')
    assert.equal(
      await reason(headers, 'whsec_TWZLUTlyOEdLWXFyVHdqVVBEOElMUFpJbzJMYUxhU3c'),
      'signature_mismatch',
    )
  })

  test('X-Service-Signature in the headers verifies too, and decides when both sets are there', async () => {
    const signature = await signWebhook(body, secret)
    assert.equal(await reason({ 'x-service-signature': signature }), 'valid')
    assert.equal(await reason({ ...standard(), 'x-service-signature': signature }), 'valid')
    const wrong = await signWebhook(body, 'whsec_other')
    assert.equal(await reason({ ...standard(), 'x-service-signature': wrong }), 'signature_mismatch')
    assert.equal(await reason({}), 'missing_header')
    assert.equal(await reason(new Headers()), 'missing_header')
  })

  test('each broken Standard Webhooks set gets its reason', async () => {
    const good = standard()
    assert.equal(await reason({ ...good, 'webhook-id': `${id}x` }), 'signature_mismatch', 'the id is signed')
    assert.equal(await reason({ ...good, 'webhook-timestamp': String(nowS() + 1) }), 'signature_mismatch')
    const { 'webhook-timestamp': _t, ...noTimestamp } = good
    assert.equal(await reason(noTimestamp), 'missing_header')
    const { 'webhook-id': _i, ...noId } = good
    assert.equal(await reason(noId), 'missing_header')
    assert.equal(await reason({ ...good, 'webhook-timestamp': 'soon' }), 'malformed_header')
    assert.equal(await reason({ ...good, 'webhook-signature': 'garbage' }), 'malformed_header')
    const v2 = good['webhook-signature'].replace(/^v1,/, 'v2,')
    assert.equal(await reason({ ...good, 'webhook-signature': v2 }), 'no_v1_signature')
    assert.equal(await reason(standard(secret, id, new Date(Date.now() - 301_000))), 'timestamp_too_old')
    assert.equal(await reason(standard(secret, id, new Date(Date.now() + 301_000))), 'timestamp_in_future')
  })

  test('during a rotation two space-separated signatures: a receiver of either secret verifies', async () => {
    const previous = 'whsec_Vb7nK2pQ9xR4tW1yZ6cF3hJ8mL0sD5gA2eU7iO4rT9u'
    const at = new Date()
    const both = {
      ...standard(secret, id, at),
      'webhook-signature': `${new Webhook(secret).sign(id, at, body)} ${new Webhook(previous).sign(id, at, body)}`,
    }
    assert.equal(await reason(both, secret), 'valid')
    assert.equal(await reason(both, previous), 'valid')
    assert.equal(
      await reason(both, 'whsec_q3ZL0v8mXc1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR1tY'),
      'signature_mismatch',
    )
  })

  test('webhookHeaders signs both sets with one t; the standardwebhooks library verifies its set', async () => {
    const t = nowS()
    const headers = await webhookHeaders(body, secret, { id, timestamp: t })
    assert.deepEqual(Object.keys(headers).sort(), [
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-service-signature',
    ])
    assert.equal(headers['x-service-signature'], await signWebhook(body, secret, t))
    assert.equal(headers['webhook-timestamp'], String(t))
    assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/)
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body))
  })

  test('a secret with - or _ (made before secrets were alphanumeric) is read as base64url', async () => {
    const legacy = 'whsec_q3ZL0v8m-c1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR_tY'
    const headers = await webhookHeaders(body, legacy, { id, timestamp: nowS() })
    assert.throws(() => new Webhook(legacy), /incorrect characters/, 'the library needs standard base64')
    const converted = `whsec_${legacy.slice(6).replace(/-/g, '+').replace(/_/g, '/')}`
    assert.deepEqual(new Webhook(converted).verify(body, headers), JSON.parse(body))
    const { 'x-service-signature': _s, ...standardOnly } = headers
    assert.equal(await reason(standardOnly, legacy), 'valid')
    assert.equal(await reason(standardOnly, converted), 'valid')
  })
})
