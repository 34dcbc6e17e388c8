import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../src/index.ts'
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
