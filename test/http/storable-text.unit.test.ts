import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { SAFE_TEXT } from '../../src/http/schemas.ts'
import { storableText } from '../../src/http/storable-text.ts'
import { toValidationEntries, validatorCompiler } from '../../src/http/validation.ts'

type Part = 'body' | 'querystring' | 'params' | 'headers'

/** The entries (code and field) a route's validator gives for a value, as the error handler lists them. */
function entries(schema: object, httpPart: Part, value: unknown): string[] {
  const validate = validatorCompiler({ schema, httpPart, method: 'POST', url: '/' }) as unknown as {
    (value: unknown): boolean
    errors?: Parameters<typeof toValidationEntries>[0]
  }
  return validate(value) ? [] : toValidationEntries(validate.errors ?? []).map((e) => `${e.code} ${e.field}`)
}

const object = (properties: object, extra: object = {}) => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...extra,
})

describe('every string a route validates is storable text', () => {
  test('a string with a pattern of its own keeps it and refuses NUL too', () => {
    const schema = object({ path: { type: 'string', maxLength: 100, pattern: '^/v1' } })
    assert.deepEqual(entries(schema, 'querystring', { path: '/v1/orders' }), [])
    assert.deepEqual(entries(schema, 'querystring', { path: '/v1\u0000' }), ['invalid_format path'])
    assert.deepEqual(entries(schema, 'querystring', { path: '/v2' }), ['invalid_format path'])
  })

  test('map values and keys at any depth, and nullable strings', () => {
    const schema = object({
      items: {
        type: 'array',
        maxItems: 2,
        items: object(
          { note: { type: ['string', 'null'], maxLength: 10 } },
          { additionalProperties: { type: 'string', maxLength: 10 }, maxProperties: 5 },
        ),
      },
    })
    assert.deepEqual(entries(schema, 'body', { items: [{ note: null, k: 'v' }] }), [])
    assert.deepEqual(entries(schema, 'body', { items: [{ note: 'a\ud800' }] }), [
      'invalid_format items.0.note',
    ])
    assert.deepEqual(entries(schema, 'body', { items: [{ k: 'a\u0000' }] }), ['invalid_format items.0.k'])
    assert.deepEqual(entries(schema, 'body', { items: [{ 'k\u0000': 'v' }] }), ['invalid_format items.0'])
  })

  test('a condition stays a condition: `not` and `if` are left as written', () => {
    const schema = { not: { type: 'string', maxLength: 3 } }
    assert.deepEqual(storableText(schema), schema)
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
    const conditional = { if: { type: 'string' }, then: { type: 'string', maxLength: 3 } }
    assert.deepEqual(storableText(conditional), {
      if: { type: 'string' },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      then: { type: 'string', maxLength: 3, pattern: SAFE_TEXT },
    })
  })

  test('path parameters are left to the route (an id that cannot exist is its 404), and the schema as written is not changed', () => {
    const schema = object({ id: { type: 'string' } })
    const before = structuredClone(schema)
    assert.deepEqual(entries(schema, 'params', { id: '\u0000' }), [])
    assert.deepEqual(entries(schema, 'querystring', { id: '\u0000' }), ['invalid_format id'])
    assert.deepEqual(schema, before)
  })
})
