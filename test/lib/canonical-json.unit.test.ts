import assert from 'node:assert/strict'
import { test } from 'node:test'
import { canonicalJson, contentHash } from '../../src/lib/canonical-json.ts'

test('key order and whitespace do not change the canonical form; values and array order do', () => {
  const a = { b: 1, a: { y: [3, { q: 1, p: 2 }], x: null } }
  const b = JSON.parse('{ "a": { "x": null, "y": [3, { "p": 2, "q": 1 }] }, "b": 1 }')
  assert.equal(canonicalJson(a), '{"a":{"x":null,"y":[3,{"p":2,"q":1}]},"b":1}')
  assert.equal(contentHash(a), contentHash(b))
  assert.notEqual(contentHash(a), contentHash({ ...a, b: 2 }))
  assert.notEqual(contentHash({ l: [1, 2] }), contentHash({ l: [2, 1] }))
  // null is content; an absent key is not the same as null.
  assert.notEqual(contentHash({ sku: null }), contentHash({}))
})

test('the content hash of a body is the SHA-256 of its canonical form, as stored for earlier orders', () => {
  const body = {
    external_order_id: 'A-1',
    customer: { name: 'Zoë', email: 'z@x' },
    items: [
      {
        sku: 'S',
        name: 'Mug',
        quantity: 2,
        price: 9.5,
        personalization: { b: '\u2028', a: [1, { d: null, c: true }] },
      },
    ],
  }
  assert.equal(
    canonicalJson(body),
    '{"customer":{"email":"z@x","name":"Zoë"},"external_order_id":"A-1","items":[{"name":"Mug","personalization":{"a":[1,{"c":true,"d":null}],"b":"\u2028"},"price":9.5,"quantity":2,"sku":"S"}]}',
  )
  assert.equal(contentHash(body), '0af755e40a042c31affbee8f5eb33f359fb097869aa9f442192546aa7a677120')
})
