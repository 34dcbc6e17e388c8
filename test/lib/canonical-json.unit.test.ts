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
