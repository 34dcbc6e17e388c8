import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { orderBody, rowCounts, type TestApp, useTestApp } from '../../helpers/app.ts'
import { assertValidation, type Entry } from '../../helpers/errors.ts'
import { type Body, item, keys, x } from '../../helpers/order-bodies.ts'

/**
 * POST /v1/orders schema validation: every rule of the reference and of
 * DECISIONS §1 Orders. A rejected order is 422 validation_failed with the exact
 * errors[] entries and leaves no row behind (the boundaries that pass:
 * orders.create.test.ts).
 */

const files = (n: number, role?: string) =>
  Array.from({ length: n }, () => ({ upload_id: randomUUID(), ...(role === undefined ? {} : { role }) }))

/** A valid body with one field replaced or removed (undefined removes). */
function withCustomer(customer: Body | undefined): Body {
  const body: Body = orderBody()
  if (customer === undefined) delete body.customer
  else body.customer = customer
  return body
}
function without(field: string): Body {
  const body: Body = orderBody()
  delete body[field]
  return body
}
function withItem(overrides: Body, removed: string[] = []): Body {
  const it = item(overrides)
  for (const r of removed) delete it[r]
  return orderBody({ items: [it] })
}

interface Case {
  name: string
  body: Body
  errors: Entry[]
}

const CASES: Case[] = [
  // required (dot notation)
  {
    name: 'external_order_id missing',
    body: without('external_order_id'),
    errors: [['required', 'external_order_id']],
  },
  { name: 'customer missing', body: withCustomer(undefined), errors: [['required', 'customer']] },
  {
    name: 'customer.name missing',
    body: withCustomer({ email: 'a@b.c' }),
    errors: [['required', 'customer.name']],
  },
  { name: 'items missing', body: without('items'), errors: [['required', 'items']] },
  { name: 'items.N.name missing', body: withItem({}, ['name']), errors: [['required', 'items.0.name']] },
  {
    name: 'items.N.quantity missing',
    body: withItem({}, ['quantity']),
    errors: [['required', 'items.0.quantity']],
  },
  {
    name: 'an empty object: every required field, no top-level field',
    body: {},
    errors: [
      ['required', 'external_order_id'],
      ['required', 'customer'],
      ['required', 'items'],
    ],
  },
  {
    name: 'required in a later item uses its index',
    body: orderBody({ items: [item(), item(), { quantity: 1 }] }),
    errors: [['required', 'items.2.name']],
  },

  // invalid_type
  { name: 'quantity 1.5', body: withItem({ quantity: 1.5 }), errors: [['invalid_type', 'items.0.quantity']] },
  { name: 'quantity "2"', body: withItem({ quantity: '2' }), errors: [['invalid_type', 'items.0.quantity']] },
  { name: 'price "12"', body: withItem({ price: '12' }), errors: [['invalid_type', 'items.0.price']] },
  {
    name: 'total_amount "59.90"',
    body: orderBody({ total_amount: '59.90' }),
    errors: [['invalid_type', 'total_amount']],
  },
  {
    name: 'external_order_id a number',
    body: orderBody({ external_order_id: 12345 }),
    errors: [['invalid_type', 'external_order_id']],
  },
  { name: 'sku a number', body: withItem({ sku: 42 }), errors: [['invalid_type', 'items.0.sku']] },
  {
    name: 'personalization value a nested object',
    body: withItem({ personalization: { ok: 'yes', color: { r: 255 } } }),
    errors: [['invalid_type', 'items.0.personalization.color']],
  },
  {
    name: 'personalization value an array',
    body: withItem({ personalization: { lines: ['a', 'b'] } }),
    errors: [['invalid_type', 'items.0.personalization.lines']],
  },
  {
    name: 'personalization itself an array',
    body: withItem({ personalization: ['a'] }),
    errors: [['invalid_type', 'items.0.personalization']],
  },
  {
    name: 'items not an array',
    body: orderBody({ items: { 0: item() } }),
    errors: [['invalid_type', 'items']],
  },
  {
    name: 'an item that is a string',
    body: orderBody({ items: ['Mug'] }),
    errors: [['invalid_type', 'items.0']],
  },
  {
    name: 'customer a string',
    body: withCustomer('Jo Doe' as never),
    errors: [['invalid_type', 'customer']],
  },
  { name: 'files not an array', body: withItem({ files: {} }), errors: [['invalid_type', 'items.0.files']] },

  // invalid_format
  { name: 'currency "eur"', body: orderBody({ currency: 'eur' }), errors: [['invalid_format', 'currency']] },
  {
    name: 'currency "EURO"',
    body: orderBody({ currency: 'EURO' }),
    errors: [['invalid_format', 'currency']],
  },
  { name: 'currency ""', body: orderBody({ currency: '' }), errors: [['invalid_format', 'currency']] },
  {
    name: 'ordered_at "yesterday"',
    body: orderBody({ ordered_at: 'yesterday' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'ordered_at without a time zone',
    body: orderBody({ ordered_at: '2026-11-22T10:15:30' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'ordered_at a date only',
    body: orderBody({ ordered_at: '2026-11-22' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'ordered_at on February 30',
    body: orderBody({ ordered_at: '2026-02-30T10:00:00Z' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'ordered_at in year 0000 (outside what the database stores)',
    body: orderBody({ ordered_at: '0000-06-01T00:00:00Z' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'ordered_at that is year 10000 in UTC',
    body: orderBody({ ordered_at: '9999-12-31T23:59:59-05:00' }),
    errors: [['invalid_format', 'ordered_at']],
  },
  {
    name: 'files.N.upload_id not a UUID',
    body: withItem({ files: [{ upload_id: 'upload-1', role: 'front' }] }),
    errors: [['invalid_format', 'items.0.files.0.upload_id']],
  },

  // too_short / too_long
  {
    name: 'external_order_id ""',
    body: orderBody({ external_order_id: '' }),
    errors: [['too_short', 'external_order_id']],
  },
  {
    name: 'external_order_id of 256 characters',
    body: orderBody({ external_order_id: x(256) }),
    errors: [['too_long', 'external_order_id']],
  },
  { name: 'customer.name ""', body: withCustomer({ name: '' }), errors: [['too_short', 'customer.name']] },
  {
    name: 'customer.name of 256 characters',
    body: withCustomer({ name: x(256) }),
    errors: [['too_long', 'customer.name']],
  },
  { name: 'item name ""', body: withItem({ name: '' }), errors: [['too_short', 'items.0.name']] },
  {
    name: 'item name of 256 characters',
    body: withItem({ name: x(256) }),
    errors: [['too_long', 'items.0.name']],
  },
  {
    name: 'item name of 256 emoji (lengths count characters, not UTF-16 units)',
    body: withItem({ name: x(256, '😀') }),
    errors: [['too_long', 'items.0.name']],
  },
  { name: 'sku ""', body: withItem({ sku: '' }), errors: [['too_short', 'items.0.sku']] },
  { name: 'sku of 256 characters', body: withItem({ sku: x(256) }), errors: [['too_long', 'items.0.sku']] },
  {
    name: 'personalization value of 5001 characters',
    body: withItem({ personalization: { text: x(5001) } }),
    errors: [['too_long', 'items.0.personalization.text']],
  },
  {
    name: 'personalization key of 101 characters',
    body: withItem({ personalization: { [x(101, 'k')]: 'v' } }),
    errors: [['too_long', 'items.0.personalization']],
  },
  {
    name: 'personalization key ""',
    body: withItem({ personalization: { '': 'v' } }),
    errors: [['too_short', 'items.0.personalization']],
  },
  {
    name: 'role of 41 characters',
    body: withItem({ files: files(1, x(41)) }),
    errors: [['too_long', 'items.0.files.0.role']],
  },
  {
    name: 'customer.email of 321 characters',
    body: withCustomer({ name: 'Jo', email: `${x(309)}@example.com` }),
    errors: [['too_long', 'customer.email']],
  },
  {
    name: 'customer.phone of 51 characters',
    body: withCustomer({ name: 'Jo', phone: x(51, '1') }),
    errors: [['too_long', 'customer.phone']],
  },

  // too_small / too_large
  { name: 'quantity 0', body: withItem({ quantity: 0 }), errors: [['too_small', 'items.0.quantity']] },
  { name: 'quantity -1', body: withItem({ quantity: -1 }), errors: [['too_small', 'items.0.quantity']] },
  {
    name: 'quantity 10001',
    body: withItem({ quantity: 10001 }),
    errors: [['too_large', 'items.0.quantity']],
  },
  { name: 'price -1', body: withItem({ price: -1 }), errors: [['too_small', 'items.0.price']] },
  { name: 'price -0.01', body: withItem({ price: -0.01 }), errors: [['too_small', 'items.0.price']] },
  { name: 'total_amount -1', body: orderBody({ total_amount: -1 }), errors: [['too_small', 'total_amount']] },

  // too_few / too_many
  { name: 'items []', body: orderBody({ items: [] }), errors: [['too_few', 'items']] },
  {
    name: '201 items',
    body: orderBody({ items: Array.from({ length: 201 }, () => item()) }),
    errors: [['too_many', 'items']],
  },
  {
    name: '51 personalization keys',
    body: withItem({ personalization: keys(51) }),
    errors: [['too_many', 'items.0.personalization']],
  },
  { name: '11 files', body: withItem({ files: files(11) }), errors: [['too_many', 'items.0.files']] },

  // unknown_field
  {
    name: 'unknown top-level field external_id next to external_order_id',
    body: orderBody({ external_id: 'A-1' }),
    errors: [['unknown_field', 'external_id']],
  },
  {
    name: 'the typo external_id instead of external_order_id',
    body: (() => {
      const body = without('external_order_id')
      body.external_id = 'A-1'
      return body
    })(),
    errors: [
      ['required', 'external_order_id'],
      ['unknown_field', 'external_id'],
    ],
  },
  {
    name: 'unknown field in customer',
    body: withCustomer({ name: 'Jo', mail: 'jo@example.com' }),
    errors: [['unknown_field', 'customer.mail']],
  },
  {
    name: 'unknown field in an item',
    body: withItem({ colour: 'red' }),
    errors: [['unknown_field', 'items.0.colour']],
  },
  {
    name: 'unknown field in a file reference',
    body: withItem({ files: [{ upload_id: randomUUID(), url: 'https://example.com/a.png' }] }),
    errors: [['unknown_field', 'items.0.files.0.url']],
  },

  // all-or-nothing, several problems
  {
    name: 'one bad item among many valid ones rejects the whole order',
    body: orderBody({
      items: Array.from({ length: 8 }, (_, i) => item({ name: `Item ${i}`, quantity: i === 5 ? 0 : 1 })),
    }),
    errors: [['too_small', 'items.5.quantity']],
  },
  {
    name: 'problems in several places are all reported',
    body: orderBody({
      currency: 'eur',
      customer: { name: '' },
      items: [item({ quantity: 0 }), item({ price: -1, files: [{ upload_id: 'x' }] })],
    }),
    errors: [
      ['invalid_format', 'currency'],
      ['too_short', 'customer.name'],
      ['too_small', 'items.0.quantity'],
      ['too_small', 'items.1.price'],
      ['invalid_format', 'items.1.files.0.upload_id'],
    ],
  },
  {
    name: 'more than 50 problems: exactly 50 entries',
    body: orderBody({ items: Array.from({ length: 60 }, () => item({ quantity: 0 })) }),
    errors: Array.from({ length: 50 }, (_, i): Entry => ['too_small', `items.${i}.quantity`]),
  },
]

describe('POST /v1/orders validation', () => {
  const t = useTestApp()
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    tenant = await t.tenant()
  })

  /** Sends a body that must be refused; asserts the entries and that nothing was stored. */
  async function rejects(body: Body, errors: Entry[]) {
    const before = await rowCounts(t.db)
    // A live key: an accepted order would also leave production rows and an event.
    const res = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
    assertValidation(res, errors)
    assert.deepEqual(await rowCounts(t.db), before, 'nothing stored')
  }

  describe('rejected with 422 validation_failed, nothing stored', () => {
    for (const c of CASES) {
      test(c.name, () => rejects(c.body, c.errors))
    }

    test('100 problems in one item list still yield exactly 50 entries', async () => {
      const res = await t.api(
        tenant.liveKey,
        'POST',
        '/v1/orders',
        orderBody({ items: Array.from({ length: 50 }, () => item({ quantity: 0, price: -1 })) }),
      )
      assert.equal(res.statusCode, 422)
      const { error } = res.json()
      assert.equal(error.errors.length, 50)
      assert.equal('field' in error, false)
    })

    test('lengths in the messages: one character, many characters', async () => {
      const res = await t.api(
        tenant.liveKey,
        'POST',
        '/v1/orders',
        withCustomer({ name: '', email: 'ada@example.com', phone: x(51) }),
      )
      assert.equal(res.statusCode, 422)
      const messages = (res.json().error.errors as { message: string }[]).map((e) => e.message).sort()
      assert.deepEqual(messages, [
        'customer.name must be at least 1 character',
        'customer.phone must be at most 50 characters',
      ])
    })

    test('null for a required field is invalid_type, not "not sent"', () =>
      rejects(orderBody({ external_order_id: null, customer: { name: null } }), [
        ['invalid_type', 'external_order_id'],
        ['invalid_type', 'customer.name'],
      ]))
  })
})
