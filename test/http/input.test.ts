import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { after, before, beforeEach, describe, test } from 'node:test'
import { BODY_LIMIT } from '../../src/app.ts'
import { createTestApp, orderBody, rowCounts, type TestApp } from '../helpers/app.ts'
import { assertError, assertValidation, type Entry } from '../helpers/errors.ts'

/**
 * Bad input on POST /v1/orders: every malformed, oversized, hostile or
 * wrongly typed body gets its documented error in the error shape, stores
 * nothing and never turns into a 500.
 */

/** A valid body as JSON text, for edits that JSON.stringify cannot make. */
const validText = (overrides: Record<string, unknown> = {}) => JSON.stringify(orderBody(overrides))

/** A one-item order whose personalization `text` is the given raw JSON value text. */
function withRawPersonalization(rawValue: string): string {
  const body = validText({ items: [{ name: 'Mug', quantity: 1, personalization: { text: 'PLACEHOLDER' } }] })
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

    // hostile-bodies.test.ts and bench:hostile-bodies send 3.4 million.
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
      ['__proto__ as a personalization key', withRawPersonalization('"x"').replace('"text"', '"__proto__"')],
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
