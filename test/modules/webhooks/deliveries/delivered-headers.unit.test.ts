import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { WebhookAttemptRow, WebhookEndpointRow } from '../../../../src/db/schema.ts'
import {
  deliveredHeaders,
  NOT_RECORDED,
  SECRET_CHANGE_MARGIN_MS,
  SECRET_ROTATED,
  withoutSignatures,
} from '../../../../src/modules/webhooks/deliveries/delivered-headers.ts'
import { signedHeaders, signingKeys } from '../../../../src/modules/webhooks/worker/signing.ts'

/** The headers an attempt sent, rebuilt, against what signedHeaders made when it was sent. */
const CURRENT = 'whsec_Y3VycmVudC1zZWNyZXQtb2YtdGhlLWVuZHBvaW50MDE='
const PREVIOUS = 'whsec_cHJldmlvdXMtc2VjcmV0LW9mLXRoZS1lbmRwb2ludDA='
const T = 1_800_000_000
const event = { id: '0190a000-0000-7000-8000-000000000001', type: 'order.received', body: '{"id":"x"}' }
// The sealed form is the secret itself here: `open` is the identity.
const open = (sealed: string) => sealed

const attempt = (signed: number | null, startedMs = T * 1000): WebhookAttemptRow => ({
  delivery_id: 'd',
  attempt: 1,
  started_at: new Date(startedMs),
  duration_ms: 5,
  response_status: 200,
  response_snippet: null,
  error_code: null,
  error_message: null,
  signature_timestamp: signed,
  trace_id: null,
})
const endpoint = (patch: Partial<WebhookEndpointRow> = {}) =>
  ({
    secret_encrypted: CURRENT,
    previous_secret_encrypted: null,
    previous_secret_expires_at: null,
    secret_changed_at: null,
    ...patch,
  }) as WebhookEndpointRow

describe('delivered headers', () => {
  test('an attempt signed with the current secret: every header as sent', () => {
    const seen = deliveredHeaders(attempt(T), event, endpoint(), open)
    assert.equal(seen.note, null)
    assert.deepEqual(seen.headers, {
      'content-type': 'application/json',
      'user-agent': 'Service-Webhooks/1.0',
      'x-service-event-id': event.id,
      'x-service-event-type': event.type,
      ...signedHeaders(signingKeys(CURRENT), event.id, event.body, T),
    })
    assert.deepEqual(seen.hidden_headers, [])
  })

  test('for a reader without signatures (a viewer): the other headers, the signatures named, no secret opened', () => {
    const seen = deliveredHeaders(attempt(T), event, endpoint(), undefined)
    const {
      'x-service-signature': _,
      'webhook-signature': __,
      ...unsigned
    } = deliveredHeaders(attempt(T), event, endpoint(), open).headers!
    assert.deepEqual(seen, {
      signature_timestamp: T,
      headers: unsigned,
      hidden_headers: ['x-service-signature', 'webhook-signature'],
      note: null,
    })
  })

  test("signatures a receiver echoed in its answer are replaced for viewers, whatever the answer's shape", () => {
    const signed = signedHeaders(signingKeys(CURRENT), event.id, event.body, T, signingKeys(PREVIOUS))
    const [hex1, hex2] = signed['x-service-signature']!.match(/[0-9a-f]{64}/g)!
    const [b1, b2] = signed['webhook-signature']!.match(/(?<=v1,)\S{44}/g)!
    const echoed = [
      JSON.stringify(signed),
      JSON.stringify(signed).replaceAll('/', '\\/'),
      `webhook-id: ${event.id}\nX-Service-Signature: ${signed['x-service-signature']}\nwebhook-signature: ${signed['webhook-signature']}`,
    ]
    for (const answer of echoed) {
      const shown = withoutSignatures(answer)!
      for (const part of [hex1, hex2, b1, b2, b1!.replaceAll('/', '\\/')])
        assert.ok(!shown.includes(part!), shown)
      assert.ok(shown.includes(`t=${T},v1=hidden,v1=hidden`), shown)
      assert.ok(shown.includes('v1,hidden v1,hidden'), shown)
      assert.ok(shown.includes(event.id), 'the rest as answered')
    }
    assert.equal(withoutSignatures('v1=short, v1,notbase64'), 'v1=short, v1,notbase64')
    assert.equal(withoutSignatures(null), null)
  })

  test('during a grace period the previous secret signs too, until it expires', () => {
    const rotated = endpoint({
      previous_secret_encrypted: PREVIOUS,
      previous_secret_expires_at: new Date(T * 1000 + 1),
      secret_changed_at: new Date(T * 1000 - SECRET_CHANGE_MARGIN_MS - 1000),
    })
    const both = signedHeaders(signingKeys(CURRENT), event.id, event.body, T, signingKeys(PREVIOUS))
    assert.equal(
      deliveredHeaders(attempt(T), event, rotated, open).headers!['x-service-signature'],
      both['x-service-signature'],
    )
    const later = deliveredHeaders(attempt(T + 1, T * 1000 + 1), event, rotated, open)
    assert.equal(
      later.headers!['webhook-signature'],
      signedHeaders(signingKeys(CURRENT), event.id, event.body, T + 1)['webhook-signature'],
    )
  })

  test('signed before, or too soon after, the secret changed: no signature, said so', () => {
    for (const changedMs of [T * 1000 + 1000, T * 1000 - SECRET_CHANGE_MARGIN_MS + 1000]) {
      const seen = deliveredHeaders(
        attempt(T),
        event,
        endpoint({ secret_changed_at: new Date(changedMs) }),
        open,
      )
      assert.equal(seen.note, SECRET_ROTATED)
      assert.deepEqual(Object.keys(seen.headers!), [
        'content-type',
        'user-agent',
        'x-service-event-id',
        'x-service-event-type',
        'webhook-id',
        'webhook-timestamp',
      ])
      assert.equal(seen.headers!['webhook-timestamp'], String(T))
    }
  })

  test('no signing time recorded: no headers, said so, and no secret opened', () => {
    const seen = deliveredHeaders(attempt(null), event, endpoint(), () => assert.fail('opened a secret'))
    assert.deepEqual(seen, {
      signature_timestamp: null,
      headers: null,
      hidden_headers: [],
      note: NOT_RECORDED,
    })
  })
})
