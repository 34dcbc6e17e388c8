import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { after, before, beforeEach, describe, test } from 'node:test'
import type { RouteOptions } from 'fastify'
import Type from 'typebox'
import { BODY_LIMIT } from '../../src/app.ts'
import { shapeOf, UnboundedSchemaError } from '../../src/http/body-shape.ts'
import { filled, type HostileBody, hostileBodies, MB } from '../fixtures/hostile-bodies.ts'
import {
  createTestApp,
  OPERATOR_TOKEN,
  orderBody,
  PUBLIC_BASE_URL,
  rowCounts,
  type TestApp,
  useTestApp,
} from '../helpers/app.ts'
import {
  cookieHeader,
  type DashboardClient,
  dashboardClient,
  memberOf,
  operatorOf,
} from '../helpers/dashboard.ts'
import { type Answer, assertError, assertValidation, type Entry } from '../helpers/errors.ts'
import { leastHold } from '../helpers/event-loop.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { collectRoutes } from '../helpers/openapi.ts'
import { sampleOf, variantsOf, withLoneSurrogate, withNul } from '../helpers/request-schemas.ts'
import { png } from '../helpers/uploads.ts'
import { createEndpoint } from '../helpers/webhook-endpoints.ts'

describe('bad input', () => {
  /**
   * Bad input on POST /v1/orders: every malformed, oversized, hostile or
   * wrongly typed body gets its documented error in the error shape, stores
   * nothing and never turns into a 500.
   */

  /** A valid body as JSON text, for edits that JSON.stringify cannot make. */
  const validText = (overrides: Record<string, unknown> = {}) => JSON.stringify(orderBody(overrides))

  /** A one-item order whose personalization `text` is the given raw JSON value text. */
  function withRawPersonalization(rawValue: string): string {
    const body = validText({
      items: [{ name: 'Mug', quantity: 1, personalization: { text: 'PLACEHOLDER' } }],
    })
    return body.replace('"PLACEHOLDER"', rawValue)
  }

  describe('bad input on POST /v1/orders', () => {
    let t: TestApp
    let key: string
    let counts: Record<string, number>

    before(async () => {
      t = await createTestApp()
      // A live key: an accepted order would also leave production rows and an event.
      key = (await t.tenant()).liveKey
    })
    after(() => t.close())

    beforeEach(async () => {
      counts = await rowCounts(t.db)
    })

    async function assertNothingStored() {
      assert.deepEqual(await rowCounts(t.db), counts, 'nothing stored')
      assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')
    }

    function send(
      payload: string | Buffer | Readable,
      headers: Record<string, string> = { 'content-type': 'application/json' },
    ) {
      return t.app.inject({
        method: 'POST',
        url: '/v1/orders',
        headers: { authorization: `Bearer ${key}`, ...headers },
        payload,
      })
    }

    describe('not JSON: 400 invalid_json', () => {
      const malformed: [string, string | Buffer][] = [
        ['a truncated body', '{"external_order_id": "A-1", "customer": {'],
        ['unquoted keys', "{external_order_id: 'A-1'}"],
        ['a trailing comma', '{"external_order_id": "A-1",}'],
        ['garbage after the document', `${validText()} x`],
        ['two documents', validText() + validText()],
        ['NaN', validText().replace(/"total_amount":[\d.]+/, '"total_amount":NaN')],
        ['a raw NUL byte inside a string', validText().replace('Jo Doe', 'Jo\u0000Doe')],
        ['a raw line break inside a string', validText().replace('Jo Doe', 'Jo\nDoe')],
        [
          'invalid UTF-8 bytes',
          Buffer.concat([
            Buffer.from('{"external_order_id": "A-'),
            Buffer.from([0xff, 0xfe]),
            Buffer.from('"}'),
          ]),
        ],
        ['only whitespace', '  \n\t '],
        ['an empty body', ''],
      ]
      for (const [name, payload] of malformed) {
        test(name, async () => {
          assertError(await send(payload), 400, 'invalid_json')
          await assertNothingStored()
        })
      }

      const contentTypes: [string, Record<string, string>][] = [
        ['Content-Type text/plain', { 'content-type': 'text/plain' }],
        ['no Content-Type', {}],
        [
          'Content-Type application/x-www-form-urlencoded',
          { 'content-type': 'application/x-www-form-urlencoded' },
        ],
        ['Content-Type multipart/form-data', { 'content-type': 'multipart/form-data; boundary=x' }],
        ['Content-Type application/json-patch+json', { 'content-type': 'application/json-patch+json' }],
        ['Content-Type application/jsonx', { 'content-type': 'application/jsonx' }],
      ]
      for (const [name, headers] of contentTypes) {
        test(`${name} with a valid order body`, async () => {
          assertError(await send(validText(), headers), 400, 'invalid_json')
          await assertNothingStored()
        })
      }

      test('a form-encoded body', async () => {
        const res = await send('external_order_id=A-1&customer[name]=Jo', {
          'content-type': 'application/x-www-form-urlencoded',
        })
        assertError(res, 400, 'invalid_json')
        await assertNothingStored()
      })
    })

    describe('application/json in any case and with parameters is accepted', () => {
      for (const type of [
        'Application/JSON; charset=utf-8',
        'APPLICATION/JSON',
        'application/json ;charset=UTF-8',
      ]) {
        test(type, async () => {
          const body = orderBody()
          const res = await send(JSON.stringify(body), { 'content-type': type })
          assert.equal(res.statusCode, 201, res.body)
          assert.equal(res.json().data.order.external_order_id, body.external_order_id)
          const after = await rowCounts(t.db)
          assert.equal(after.orders, counts.orders! + 1)
        })
      }
    })

    describe('size', () => {
      test('a 20 MB body: 413 request_too_large', async () => {
        const res = await send(`{"external_order_id": "${'x'.repeat(20 * 1024 * 1024)}"}`)
        assertError(res, 413, 'request_too_large')
        await assertNothingStored()
      })

      test('an 11 MB body streamed without Content-Length: 413 request_too_large', async () => {
        const chunks = Array.from({ length: 11 }, () => Buffer.alloc(1024 * 1024, 0x20))
        const res = await send(Readable.from(chunks))
        assertError(res, 413, 'request_too_large')
        await assertNothingStored()
      })

      /** Valid JSON of exactly `size` bytes whose personalization value is far too long. */
      function paddedOrder(size: number): string {
        const shell = withRawPersonalization('""')
        const padding = size - Buffer.byteLength(shell)
        const text = shell.replace('"text":""', `"text":"${'v'.repeat(padding)}"`)
        assert.equal(Buffer.byteLength(text), size)
        return text
      }

      test('a body of exactly 10 MB that is valid JSON but an invalid order: 422, not 413', async () => {
        const res = await send(paddedOrder(BODY_LIMIT))
        assertValidation(res, [['too_long', 'items.0.personalization.text']])
        await assertNothingStored()
      })

      test('one byte more than 10 MB: 413 request_too_large', async () => {
        assertError(await send(paddedOrder(BODY_LIMIT + 1)), 413, 'request_too_large')
        await assertNothingStored()
      })
    })

    describe('deep nesting never overflows into a 500', () => {
      test('a personalization value nested 10 000 levels (arrays and objects): invalid_type', async () => {
        const depth = 10_000
        const res = await send(withRawPersonalization(`${'[{"a":'.repeat(depth)}1${'}]'.repeat(depth)}`))
        assertValidation(res, [['invalid_type', 'items.0.personalization.text']])
        await assertNothingStored()
      })

      test('a personalization value of 1 000 000 nested arrays: invalid_type', async () => {
        const depth = 1_000_000
        const res = await send(withRawPersonalization(`${'['.repeat(depth)}${']'.repeat(depth)}`))
        assertValidation(res, [['invalid_type', 'items.0.personalization.text']])
        await assertNothingStored()
      })

      test('a raw body of 1 000 000 unclosed "[": invalid_json', async () => {
        assertError(await send('['.repeat(1_000_000)), 400, 'invalid_json')
        await assertNothingStored()
      })

      test('a whole body of 1 000 000 nested arrays: invalid_type on the body', async () => {
        const depth = 1_000_000
        const res = await send(`${'['.repeat(depth)}${']'.repeat(depth)}`)
        assertValidation(res, [['invalid_type', 'body']])
        await assertNothingStored()
      })

      test('1 000 000 nested objects under an unknown field: unknown_field', async () => {
        const depth = 1_000_000
        const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        const res = await send(validText().replace(/^\{/, `{"deep":${deep},`))
        assertValidation(res, [['unknown_field', 'deep']])
        await assertNothingStored()
      })
    })

    describe('text PostgreSQL cannot store: 422 invalid_format', () => {
      // Escapes as they appear in the JSON text: \u0000 and lone surrogates.
      const NUL = '\\u0000'
      const cases: [string, string, Entry[]][] = [
        [
          'NUL in the item name',
          validText({ items: [{ name: 'MUGNUL', quantity: 1 }] }).replace('MUGNUL', `Mug${NUL}`),
          [['invalid_format', 'items.0.name']],
        ],
        [
          'NUL in a personalization value',
          withRawPersonalization(`"Hello${NUL}World"`),
          [['invalid_format', 'items.0.personalization.text']],
        ],
        [
          'NUL in a personalization key',
          withRawPersonalization('"x"').replace('"text"', `"te${NUL}xt"`),
          [['invalid_format', 'items.0.personalization']],
        ],
        [
          'NUL in external_order_id, customer name, sku and role',
          validText({
            external_order_id: 'EXTNUL',
            customer: { name: 'JoNUL' },
            items: [
              {
                sku: 'SKUNUL',
                name: 'Mug',
                quantity: 1,
                files: [{ upload_id: randomUUID(), role: 'ROLENUL' }],
              },
            ],
          }).replace(/NUL/g, NUL),
          [
            ['invalid_format', 'external_order_id'],
            ['invalid_format', 'customer.name'],
            ['invalid_format', 'items.0.sku'],
            ['invalid_format', 'items.0.files.0.role'],
          ],
        ],
        [
          'a lone high surrogate in the item name',
          validText({ items: [{ name: 'LONE', quantity: 1 }] }).replace('LONE', 'Mug \\ud800'),
          [['invalid_format', 'items.0.name']],
        ],
        [
          'a lone low surrogate in a personalization value',
          withRawPersonalization('"\\udc00 text"'),
          [['invalid_format', 'items.0.personalization.text']],
        ],
        [
          'a lone surrogate in a personalization key',
          withRawPersonalization('"x"').replace('"text"', '"\\udfff"'),
          [['invalid_format', 'items.0.personalization']],
        ],
        [
          'a surrogate pair in the wrong order in customer.name',
          validText({ customer: { name: 'SWAP' } }).replace('SWAP', '\\udc00\\ud800'),
          [['invalid_format', 'customer.name']],
        ],
      ]
      for (const [name, payload, errors] of cases) {
        test(name, async () => {
          assertValidation(await send(payload), errors)
          await assertNothingStored()
        })
      }

      test('a correct escaped surrogate pair is an ordinary character and round-trips', async () => {
        const body = orderBody({ items: [{ name: 'PAIR', quantity: 1 }] })
        const res = await send(JSON.stringify(body).replace('PAIR', 'Mug \\ud83d\\ude00'))
        assert.equal(res.statusCode, 201, res.body)
        const id = res.json().data.order.id
        const read = await t.api(key, 'GET', `/v1/orders/${id}`)
        assert.equal(read.json().data.order.items[0].name, 'Mug 😀')
      })
    })

    describe('wrong types and lengths: 422 validation_failed', () => {
      test('numbers sent as strings: invalid_type', async () => {
        const body = orderBody({
          total_amount: '59.90',
          items: [{ name: 'Mug', quantity: '2', price: '12.50' }],
        })
        assertValidation(await t.api(key, 'POST', '/v1/orders', body), [
          ['invalid_type', 'total_amount'],
          ['invalid_type', 'items.0.quantity'],
          ['invalid_type', 'items.0.price'],
        ])
        await assertNothingStored()
      })

      test('numbers beyond double range (1e400 parses to Infinity): invalid_type', async () => {
        const text = withRawPersonalization('1e400')
          .replace(/"total_amount":[\d.]+/, '"total_amount":1e400')
          .replace('"quantity":1', '"quantity":1,"price":-1e400')
        assertValidation(await send(text), [
          ['invalid_type', 'total_amount'],
          ['invalid_type', 'items.0.price'],
          ['invalid_type', 'items.0.personalization.text'],
        ])
        await assertNothingStored()
      })

      test('a 10 000-character string in every string field', async () => {
        const long = 'x'.repeat(10_000)
        const body = {
          external_order_id: long,
          customer: { name: long, email: long, phone: long },
          currency: long,
          ordered_at: long,
          total_amount: 1,
          items: [
            {
              sku: long,
              name: long,
              quantity: 1,
              personalization: { text: long, [long]: 'value' },
              files: [{ upload_id: long, role: long }],
            },
          ],
        }
        const res = await t.api(key, 'POST', '/v1/orders', body)
        assertValidation(res, [
          ['too_long', 'external_order_id'],
          ['too_long', 'customer.name'],
          ['too_long', 'customer.email'],
          ['too_long', 'customer.phone'],
          ['invalid_format', 'currency'],
          ['invalid_format', 'ordered_at'],
          ['too_long', 'items.0.sku'],
          ['too_long', 'items.0.name'],
          ['too_long', 'items.0.personalization.text'],
          ['too_long', 'items.0.personalization'],
          ['invalid_format', 'items.0.files.0.upload_id'],
          ['too_long', 'items.0.files.0.role'],
        ])
        await assertNothingStored()
      })

      for (const [name, text] of [
        ['null', 'null'],
        ['an array', '[]'],
        ['an array holding an order', `[${validText()}]`],
        ['a number', '42'],
        ['a string', '"order"'],
        ['true', 'true'],
      ]) {
        test(`a JSON body that is ${name}: invalid_type on the body`, async () => {
          assertValidation(await send(text!), [['invalid_type', 'body']])
          await assertNothingStored()
        })
      }

      // The hostile bodies below and bench:hostile-bodies send 3.4 million.
      test('5 000 empty items: too_many and at most 50 entries', async () => {
        const res = await t.api(
          key,
          'POST',
          '/v1/orders',
          orderBody({ items: Array.from({ length: 5_000 }, () => ({})) }),
        )
        const error = assertError(res, 422, 'validation_failed')
        assert.equal(error.errors.length, 50)
        assert.deepEqual(error.errors[0], {
          code: 'too_many',
          field: 'items',
          message: error.errors[0].message,
        })
        await assertNothingStored()
      })
    })

    describe('prototype keys are never a 500 and never pollute', () => {
      const hostile: [string, string][] = [
        ['__proto__ at the top level', validText().replace(/^\{/, '{"__proto__":{"polluted":true},')],
        [
          '__proto__ in customer',
          validText().replace('"customer":{', '"customer":{"__proto__":{"polluted":true},'),
        ],
        [
          '__proto__ as a personalization key',
          withRawPersonalization('"x"').replace('"text"', '"__proto__"'),
        ],
        [
          'constructor.prototype at the top level',
          validText().replace(/^\{/, '{"constructor":{"prototype":{"polluted":true}},'),
        ],
        [
          'constructor.prototype in an item',
          validText().replace('"items":[{', '"items":[{"constructor":{"prototype":{"polluted":true}},'),
        ],
      ]
      for (const [name, payload] of hostile) {
        test(name, async () => {
          const res = await send(payload)
          if (res.statusCode === 400) assertError(res, 400, 'invalid_json')
          else assertError(res, 422, 'validation_failed')
          await assertNothingStored()
        })
      }

      test('keys named like Object.prototype members are ordinary personalization keys', async () => {
        const personalization = {
          constructor: 'c',
          toString: 't',
          hasOwnProperty: 'h',
          valueOf: 1,
          prototype: 'p',
        }
        const res = await t.api(
          key,
          'POST',
          '/v1/orders',
          orderBody({ items: [{ name: 'Mug', quantity: 1, personalization }] }),
        )
        assert.equal(res.statusCode, 201, res.body)
        const read = await t.api(key, 'GET', `/v1/orders/${res.json().data.order.id}`)
        assert.deepEqual(read.json().data.order.items[0].personalization, personalization)
      })
    })

    describe('duplicate JSON keys: the last one wins, for validation and storage alike', () => {
      test('the stored order carries the last value', async () => {
        const first = `DUP-A-${randomUUID()}`
        const last = `DUP-B-${randomUUID()}`
        const text = validText({ external_order_id: last }).replace(/^\{/, `{"external_order_id":"${first}",`)
        const res = await send(text)
        assert.equal(res.statusCode, 201, res.body)
        assert.equal(res.json().data.order.external_order_id, last)
        const stored = await t.db
          .selectFrom('orders')
          .select('external_order_id')
          .where('external_order_id', 'in', [first, last])
          .execute()
        assert.deepEqual(
          stored.map((r) => r.external_order_id),
          [last],
        )
      })

      test('a valid value followed by an invalid one is rejected', async () => {
        const text = validText({ items: [{ name: 'Mug', quantity: 1 }] }).replace(
          '"quantity":1',
          '"quantity":1,"quantity":0',
        )
        assertValidation(await send(text), [['too_small', 'items.0.quantity']])
        await assertNothingStored()
      })
    })
  })
})

describe('empty JSON body', () => {
  /**
   * `Content-Type: application/json` with an empty body (Content-Length: 0, as
   * some HTTP clients send on every POST) is no body: accepted where the body is
   * optional or not taken, refused (invalid_json) where one is required.
   */
  const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

  describe('an empty body sent as application/json', () => {
    let key: string
    let liveKey: string
    let endpointId: string

    before(async () => {
      ;({ testKey: key, liveKey } = await t.tenant())
      endpointId = (await createEndpoint(t, key, 'https://webhook.test/empty')).endpoint.id
    })

    const post = (url: string, payload: string, contentType?: string) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: {
          authorization: `Bearer ${key}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        payload,
      })

    for (const [name, path, status] of [
      ['the test trigger (takes no body)', '/test', 202],
      ['rotate-secret (optional body)', '/rotate-secret', 200],
    ] as const) {
      test(`${name}: answered as without the header`, async () => {
        const url = `/v1/webhook-endpoints/${endpointId}${path}`
        const without = await post(url, '')
        assert.equal(without.statusCode, status, without.body)
        const empty = await post(url, '', 'application/json')
        assert.equal(empty.statusCode, status, empty.body)
        assert.equal(empty.headers['content-type'], without.headers['content-type'])
      })

      test(`${name}: a body that is there but not JSON is still invalid_json`, async () => {
        const res = await post(`/v1/webhook-endpoints/${endpointId}${path}`, '{', 'application/json')
        assertError(res, 400, 'invalid_json')
      })
    }

    test('rotate-secret: an empty body keeps the default grace period, as no body does', async () => {
      const res = await post(`/v1/webhook-endpoints/${endpointId}/rotate-secret`, '', 'application/json')
      assert.equal(res.statusCode, 200, res.body)
      const { previous_secret_expires_at: expires } = res.json().data
      const graceMs = Date.parse(expires) - Date.now()
      assert.ok(graceMs > 23 * 3600_000 && graceMs <= 24 * 3600_000, `grace ${graceMs} ms`)
    })

    test('an operator action without a body (cancel an order) accepts it too', async () => {
      const order = await t.api(liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201, order.body)
      const res = await t.app.inject({
        method: 'POST',
        url: `/admin/v1/orders/${order.json().data.order.id}/cancel`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        payload: '',
      })
      assert.equal(res.statusCode, 200, res.body)
    })

    test('where a body is required (POST /v1/orders), an empty one is still invalid_json', async () => {
      assertError(await post('/v1/orders', '', 'application/json'), 400, 'invalid_json')
    })
  })
})

describe('hostile bodies', () => {
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
})

describe('storable text on every route', async () => {
  /**
   * Every string of every request, on every surface, is text PostgreSQL can
   * store: a NUL (or, in a JSON body, a lone UTF-16 surrogate) in any query
   * parameter or body string is 422 validation_failed naming it, before any
   * query runs or any download starts. The routes and their schemas are read
   * from the app, so a route added later is walked too. In a path, where every
   * parameter is an id, such text is an id that cannot exist: 404.
   */

  const { built: t, routes } = await collectRoutes(() => createTestApp())
  after(() => t.close())

  const SURFACES = ['/v1/', '/admin/v1/', '/dashboard/api/']
  const apiRoutes = routes.filter((r) => SURFACES.some((surface) => r.url.startsWith(surface)))
  const label = (r: RouteOptions) => `${r.method} ${r.url}`
  // biome-ignore lint/suspicious/noExplicitAny: route schemas, read as JSON
  const schemaOf = (r: RouteOptions): Record<string, any> => (r.schema ?? {}) as Record<string, any>

  let testKey: string
  let member: DashboardClient
  let operator: DashboardClient
  let visitor: DashboardClient
  before(async () => {
    const tenant = await t.tenant()
    testKey = tenant.testKey
    member = (await memberOf(t, tenant.orgId, 'owner')).client
    operator = (await operatorOf(t)).client
    visitor = await dashboardClient(t)
  })

  /** The credentials each surface takes: a key, the operator token, a member's or an operator's session. */
  function credentials(route: RouteOptions): Record<string, string> {
    if (route.url.startsWith('/v1/')) return { authorization: `Bearer ${testKey}` }
    if (route.url.startsWith('/admin/v1/')) return { authorization: `Bearer ${OPERATOR_TOKEN}` }
    const config = (route.config ?? {}) as { auth?: string; accounts?: string }
    const client = config.auth === 'none' ? visitor : config.accounts === 'operator' ? operator : member
    return { cookie: cookieHeader(client.cookies), origin: PUBLIC_BASE_URL, 'x-csrf-token': client.csrf }
  }

  /**
   * Calls a route: path parameters given or random UUIDs, the query given, and
   * the body given or the smallest valid one its schema allows. A stream (a
   * download, the listen stream) is read to its end or its failure, so a
   * download cut after its first line shows as such.
   */
  async function call(
    route: RouteOptions,
    input: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown } = {},
  ): Promise<Answer & { cut?: string }> {
    const path = route.url.replace(/:(\w+)/g, (_, name: string) =>
      encodeURIComponent(input.params?.[name] ?? randomUUID()),
    )
    const query = new URLSearchParams(input.query as Record<string, string>).toString()
    const body = 'body' in input ? input.body : schemaOf(route).body && sampleOf(schemaOf(route).body)
    const res = await t.app.inject({
      method: route.method as 'GET',
      url: query ? `${path}?${query}` : path,
      headers: {
        ...credentials(route),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      payloadAsStream: true,
    })
    const stream = res.stream()
    if (String(res.headers['content-type']).startsWith('text/event-stream')) {
      stream.destroy()
      return { statusCode: res.statusCode, headers: res.headers, body: '', cut: 'an event stream opened' }
    }
    const chunks: Buffer[] = []
    let cut: string | undefined
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer)
    } catch (error) {
      cut = String(error)
    }
    return {
      statusCode: res.statusCode,
      headers: res.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      cut,
    }
  }

  /**
   * 422 validation_failed, complete, with an invalid_format entry on `field`
   * and no entry on anything else (but what holds it: a value of anyOf whose
   * other branches are not arrays says so too).
   */
  function assertRefused(res: Answer & { cut?: string }, field: string, context: string) {
    assert.equal(res.cut, undefined, `${context}: the answer was cut (${res.body.slice(0, 200)})`)
    const error = assertError(res, 422, 'validation_failed', context)
    const entries: { code: string; field: string }[] = error.errors
    const listed = entries.map((e) => `${e.code} ${e.field}`)
    assert.ok(listed.includes(`invalid_format ${field}`), `${context}: entries ${listed}`)
    const others = entries.filter((e) => e.field !== field && !field.startsWith(`${e.field}.`))
    assert.deepEqual(others, [], `${context}: only ${field} is refused`)
  }

  const withQuery = apiRoutes.filter((r) => schemaOf(r).querystring)
  const withBody = apiRoutes.filter((r) => schemaOf(r).body)
  const withParams = apiRoutes.filter((r) => r.url.includes('/:'))

  test('the walk reaches the strings of the issue, and strings at every depth of a body', () => {
    const walked = [
      ...withQuery.flatMap((r) =>
        variantsOf(schemaOf(r).querystring, withNul).map((v) => `${label(r)} ?${v.field}`),
      ),
      ...withBody.flatMap((r) => variantsOf(schemaOf(r).body, withNul).map((v) => `${label(r)} ${v.field}`)),
    ]
    for (const expected of [
      'GET /dashboard/api/requests ?error_code',
      'GET /dashboard/api/requests ?request_id',
      'GET /dashboard/api/requests ?order_id',
      'GET /dashboard/api/audit-log.csv ?actor',
      'GET /dashboard/api/operator/audit-log.csv ?actor',
      'POST /dashboard/api/orders/:order_id/changes customer.name',
      'POST /dashboard/api/orders/:order_id/changes items.0.personalization.key',
      'POST /dashboard/api/automation/rules conditions.0.value.0',
      'POST /v1/orders items.0.personalization',
    ])
      assert.ok(walked.includes(expected), expected)
  })

  describe('a NUL in a query parameter: 422 naming it, before any query or download', () => {
    for (const route of withQuery) {
      test(label(route), async () => {
        for (const { value, field } of variantsOf(schemaOf(route).querystring, withNul)) {
          const res = await call(route, { query: value as Record<string, unknown> })
          assertRefused(res, field, `${label(route)}?${field}=NUL`)
        }
      })
    }
  })

  describe('a NUL or a lone surrogate in a JSON body string: 422 naming it', () => {
    for (const route of withBody) {
      test(label(route), async () => {
        const schema = schemaOf(route).body
        for (const [what, bad] of [
          ['NUL', withNul],
          ['lone surrogate', withLoneSurrogate],
        ] as const) {
          for (const { value, field } of variantsOf(schema, bad)) {
            const res = await call(route, { body: value })
            assertRefused(res, field || 'body', `${label(route)} ${what} in ${field || 'a key'}`)
          }
        }
      })
    }
  })

  /** Bodies the service checks by hand, past what the schema says: a valid one, so that the path's id is looked up. */
  const VALID_BODIES: Record<string, unknown> = {
    'POST /dashboard/api/operator/batches/:batch_id/orders': { select: { sku: 'MUG' } },
    'PUT /dashboard/api/automation/rules/:rule_id': {
      name: 'Rush',
      actions: [{ type: 'priority', value: 'rush' }],
    },
  }

  /** Where a path with such text answers otherwise: the signed upload URL was not signed for it. */
  const NOT_404: Record<string, [number, string]> = {
    'PUT /v1/uploads/:id/content': [403, 'upload_url_invalid'],
  }

  describe('a NUL in a path parameter: an id that cannot exist', () => {
    for (const route of withParams) {
      test(label(route), async () => {
        const [status, code] = NOT_404[label(route)] ?? [404, 'not_found']
        for (const [, name] of route.url.matchAll(/:(\w+)/g)) {
          const body = VALID_BODIES[label(route)]
          const res = await call(route, { params: { [name!]: '\u0000' }, ...(body ? { body } : {}) })
          const context = `${label(route)} with ${name}=NUL`
          assert.equal(res.cut, undefined, context)
          assertError(res, status, code, context)
        }
      })
    }
  })

  test('a filename is sanitized, not refused: a NUL or a lone surrogate becomes _ like any unusual character', async () => {
    const sanitized = withBody.flatMap((r) =>
      Object.entries((schemaOf(r).body?.properties ?? {}) as Record<string, { 'x-sanitized'?: boolean }>)
        .filter(([, sub]) => sub['x-sanitized'])
        .map(([name]) => `${label(r)} ${name}`),
    )
    assert.deepEqual(sanitized.sort(), [
      'POST /dashboard/api/operator/orders/:order_id/uploads filename',
      'POST /dashboard/api/orders/:order_id/uploads filename',
      'POST /v1/uploads filename',
    ])
    for (const [filename, expected] of [
      ['logo\u0000.png', 'logo_.png'],
      ['logo\ud800.png', 'logo_.png'],
    ]) {
      const slot = await t.api(testKey, 'POST', '/v1/uploads', { filename })
      assert.equal(slot.statusCode, 201, slot.body)
      assert.equal(slot.json().data.filename, expected)
    }
  })

  describe('the signed upload URL, checked by hand', () => {
    test('a NUL in its query is a URL the service did not sign (403); NUL bytes in the file are content', async () => {
      const slot = await t.api(testKey, 'POST', '/v1/uploads', { filename: 'logo.png' })
      assert.equal(slot.statusCode, 201, slot.body)
      const url = new URL(slot.json().data.upload_url)
      const file = png()
      assert.ok(file.includes(0), 'the file holds NUL bytes')
      for (const name of ['expires', 'signature']) {
        const bad = new URL(url)
        bad.searchParams.set(name, `${url.searchParams.get(name)}\u0000`)
        const res = await t.app.inject({ method: 'PUT', url: `${bad.pathname}${bad.search}`, payload: file })
        assertError(res, 403, 'upload_url_invalid', `${name} with a NUL`)
      }
      const put = await t.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: file })
      assert.equal(put.statusCode, 200, put.body)
      assert.equal(put.json().data.size_bytes, file.length)
    })
  })

  test('the published documents say it', async () => {
    for (const url of ['/v1/openapi.json', '/dashboard/api/openapi.json']) {
      const doc = (await t.app.inject({ method: 'GET', url })).json()
      assert.match(doc.info.description, /NUL character or a lone UTF-16 surrogate/, url)
    }
  })
})
