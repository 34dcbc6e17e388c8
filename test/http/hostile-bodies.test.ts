import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import Type from 'typebox'
import { shapeOf, UnboundedSchemaError } from '../../src/http/body-shape.ts'
import { filled, type HostileBody, hostileBodies, MB } from '../fixtures/hostile-bodies.ts'
import { createTestApp, OPERATOR_TOKEN, orderBody, rowCounts, type TestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/errors.ts'
import { leastHold } from '../helpers/event-loop.ts'

/**
 * Bodies of millions of tiny values or keys, within the byte limit, get their
 * documented 4xx at once and never hold the event loop: no single stretch of
 * work on them may keep other requests waiting 100 ms or more.
 */

const STALL_LIMIT_MS = 100
const pairs = (error: { errors: { code: string; field: string }[] }) =>
  error.errors.map((e) => [e.code, e.field])

describe('hostile request bodies', () => {
  let t: TestApp
  let key: string
  let orgId: string
  let counts: Record<string, number>
  const bodies = new Map(hostileBodies().map((b) => [b.name, b]))

  before(async () => {
    t = await createTestApp()
    const tenant = await t.tenant()
    key = tenant.liveKey
    orgId = tenant.orgId
  })
  after(() => t.close())
  beforeEach(async () => {
    counts = await rowCounts(t.db)
  })

  /** `payload`: the bytes, made before any measuring starts, as a client has them ready to send. */
  function send(body: HostileBody, payload: Buffer | string = body.body) {
    const token = body.auth === 'key' ? key : OPERATOR_TOKEN
    return t.app.inject({
      method: body.method,
      url: body.url,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload,
    })
  }

  /** Sends a body of the fixtures; `operatorUrl`: to that operator endpoint instead. */
  async function sendTimed(name: string, operatorUrl?: string) {
    const fixture = bodies.get(name)
    assert.ok(fixture, name)
    assert.ok(Buffer.byteLength(fixture.body) <= 10 * MB)
    const body: HostileBody = operatorUrl ? { ...fixture, auth: 'operator', url: operatorUrl } : fixture
    const payload = Buffer.from(body.body)
    const { result, stallMs } = await leastHold(() => send(body, payload), STALL_LIMIT_MS)
    assert.ok(stallMs < STALL_LIMIT_MS, `event loop held for ${stallMs.toFixed(0)} ms`)
    assert.deepEqual(await rowCounts(t.db), counts, 'nothing stored')
    return result
  }

  test('orders with 3.4 million {} items: too_many on items first, 50 entries', async () => {
    const error = assertError(
      await sendTimed('orders: 3.4 million {} items (10 MB)'),
      422,
      'validation_failed',
    )
    assert.equal(error.errors.length, 50)
    assert.deepEqual(pairs(error).slice(0, 3), [
      ['too_many', 'items'],
      ['required', 'items.0.name'],
      ['required', 'items.0.quantity'],
    ])
    assert.equal(error.errors[0].message, 'items must have at most 200 entries')
  })

  test('the same body on the operator shop-orders endpoint', async () => {
    const res = await sendTimed(
      'orders: 3.4 million {} items (10 MB)',
      `/admin/v1/organizations/${orgId}/shop-orders`,
    )
    const error = assertError(res, 422, 'validation_failed')
    assert.deepEqual(pairs(error)[0], ['too_many', 'items'])
  })

  test('an item with 5 million files: too_many on its files', async () => {
    const error = assertError(
      await sendTimed('orders: 1 item with 5 million files 0 (10 MB)'),
      422,
      'validation_failed',
    )
    assert.equal(error.errors.length, 50)
    assert.deepEqual(pairs(error).slice(0, 2), [
      ['too_many', 'items.0.files'],
      ['invalid_type', 'items.0.files.0'],
    ])
  })

  test('an item with a million personalization keys: too_many on personalization', async () => {
    const error = assertError(
      await sendTimed('orders: 1 million personalization keys (10 MB)'),
      422,
      'validation_failed',
    )
    assert.deepEqual(pairs(error), [['too_many', 'items.0.personalization']])
    assert.equal(error.field, 'items.0.personalization')
  })

  test('a million unknown top-level keys: too_many on the body, then the fields', async () => {
    const error = assertError(
      await sendTimed('orders: 1 million unknown top-level keys (10 MB)'),
      422,
      'validation_failed',
    )
    assert.equal(error.errors.length, 50)
    assert.deepEqual(pairs(error)[0], ['too_many', 'body'])
    const codes = new Set(error.errors.map((e: { code: string }) => e.code))
    assert.deepEqual([...codes].sort(), ['required', 'too_many', 'unknown_field'])
  })

  test('a customer name of 5 million escaped quotes: too_long', async () => {
    const res = await sendTimed('orders: a customer name of 5 million escaped quotes (10 MB)')
    const error = assertError(res, 422, 'validation_failed')
    assert.deepEqual(pairs(error), [
      ['too_long', 'customer.name'],
      ['too_few', 'items'],
    ])
    assert.equal(error.errors[0].message, 'customer.name must be at most 255 characters')
  })

  for (const [name, url] of [
    ['uploads: 1 million unknown keys (10 MB)', '/v1/uploads'],
    ['webhook-endpoints: 1 million unknown keys (10 MB)', '/v1/webhook-endpoints'],
  ]) {
    test(`${url} with 10 MB: 413 stating the endpoint's limit of 64 KB`, async () => {
      const error = assertError(await sendTimed(name!), 413, 'request_too_large')
      assert.equal(
        error.message,
        'The request body is larger than 64 KB (65536 bytes), the limit of this endpoint.',
      )
    })
  }

  test('/v1/uploads with 6 000 unknown keys within its limit: unknown_field entries, at most 50', async () => {
    const error = assertError(
      await sendTimed('uploads: 6 000 unknown keys (60 KB)'),
      422,
      'validation_failed',
    )
    assert.equal(error.errors.length, 50)
    assert.deepEqual(pairs(error).slice(0, 2), [
      ['too_many', 'body'],
      ['unknown_field', '0'],
    ])
  })

  // How long six at once hold the loop is measured by bench:hostile-bodies: on a
  // loaded two-core machine the collector's helper threads wait for a core and
  // the main thread does their work, which no test can tell from a held loop.
  test('six of the largest at once: all 422, nothing stored', async () => {
    const body = bodies.get('orders: 3.4 million {} items (10 MB)')!
    const payload = Buffer.from(body.body)
    const results = await Promise.all(Array.from({ length: 6 }, () => send(body, payload)))
    for (const res of results) assertError(res, 422, 'validation_failed')
    assert.deepEqual(await rowCounts(t.db), counts, 'nothing stored')
  })

  describe('what is cut away must still be JSON', () => {
    const head = '{"external_order_id":"X","customer":{"name":"Jo"},"items":['
    for (const [name, text] of [
      ['a bad literal far past the item limit', filled(head, '{}', ',{"a":tru}]}', MB)],
      ['a raw line break in a string far past the limit', filled(head, '{}', ',{"a":"x\ny"}]}', MB)],
      ['an unclosed array', filled(head, '{}', '', MB)],
      [
        'a bad escape in a string far longer than allowed',
        `${head}{"quantity":1,"name":"${'a'.repeat(MB)}\\q"}]}`,
      ],
      ['a bad escape under an unknown field', `{"extra":${filled('[', '"a"', ',"\\x"]', MB)},"items":[]}`],
    ]) {
      test(`${name}: 400 invalid_json`, async () => {
        assertError(
          await send({ name: name!, method: 'POST', url: '/v1/orders', auth: 'key', body: text! }),
          400,
          'invalid_json',
        )
      })
    }
  })

  test('an order of 10 MB is still accepted up to its limit: 413 states 10 MB just above it', async () => {
    const body = JSON.stringify(orderBody({ external_order_id: 'x'.repeat(10 * MB) }))
    const error = assertError(await t.api(key, 'POST', '/v1/orders', body), 413, 'request_too_large')
    assert.equal(
      error.message,
      'The request body is larger than 10 MB (10485760 bytes), the limit of this endpoint.',
    )
  })

  test('the largest valid upload slot body fits the 64 KB limit', async () => {
    // 4096 characters, each outside the BMP and escaped as a surrogate pair: 12 bytes apiece.
    const filename = `${'\\ud83d\\ude00'.repeat(4092)}.png`
    const text = `{"filename":"${filename}"}`
    assert.ok(text.length > 48_000)
    const res = await send({ name: 'slot', method: 'POST', url: '/v1/uploads', auth: 'key', body: text })
    assert.equal(res.statusCode, 201, res.body)
  })
})

describe('request body schemas are bounded', () => {
  test('an array without maxItems or an open object cannot be a body schema', () => {
    assert.throws(() => shapeOf(Type.Object({ a: Type.Array(Type.String()) })), UnboundedSchemaError)
    assert.throws(() => shapeOf(Type.Record(Type.String(), Type.String())), UnboundedSchemaError)
    assert.throws(
      () => shapeOf(Type.Object({ a: Type.Any() }, { additionalProperties: false })),
      UnboundedSchemaError,
    )
    const shape = shapeOf(
      Type.Object({ a: Type.Array(Type.String(), { maxItems: 3 }) }, { additionalProperties: false }),
    )
    assert.equal(shape.object?.limit, 1)
    assert.equal(shape.object?.properties.get('a')?.array?.limit, 3)
  })
})
