import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApiError } from '../../web/src/lib/api.ts'
import { checkLength, checkWholeNumber, problems, readRefusal } from '../../web/src/lib/field-errors.ts'

/** The dashboard's reading of a refusal: each problem beside the field it names, in the page's words. */
const invalid = new ApiError(
  422,
  'validation_failed',
  'The request is invalid; errors[] lists every problem. items.0.quantity must be at least 1',
  [
    { code: 'too_small', field: 'items.0.quantity', message: 'items.0.quantity must be at least 1' },
    {
      code: 'too_long',
      field: 'items.0.personalization.Greeting',
      message: 'items.0.personalization.Greeting must be at most 5000 characters',
    },
    { code: 'too_long', field: 'items.3.name', message: 'items.3.name must be at most 255 characters' },
  ],
  { requestId: 'req_01abc' },
)

test('problems naming a field of the form go beside it, in its words; the rest stay above; codes for support', () => {
  const refusal = readRefusal(invalid, (field) =>
    field === 'items.0.quantity'
      ? 'Quantity'
      : field.startsWith('items.0.personalization.')
        ? `The value of ${field.slice('items.0.personalization.'.length)}`
        : undefined,
  )
  assert.deepEqual(refusal, {
    fields: {
      'items.0.quantity': 'Quantity must be at least 1',
      'items.0.personalization.Greeting': 'The value of Greeting must be at most 5000 characters',
    },
    others: ['items.3.name must be at most 255 characters'],
    support:
      'validation_failed · too_small items.0.quantity · too_long items.0.personalization.Greeting · too_long items.3.name · request req_01abc',
  })
})

test('a refusal without a list names its field when it has one (a refused URL), else stays above', () => {
  const url = new ApiError(422, 'webhook_url_invalid', 'Webhook URLs must use https.', [], { field: 'url' })
  assert.deepEqual(readRefusal(url, { url: 'URL' })?.fields, { url: 'Webhook URLs must use https.' })
  assert.deepEqual(readRefusal(url, { url: 'URL' })?.others, [])
  const conflict = new ApiError(
    409,
    'production_conflict',
    'The order changed since you saw it; nothing was done.',
  )
  assert.deepEqual(readRefusal(conflict, { url: 'URL' }), {
    fields: {},
    others: ['The order changed since you saw it; nothing was done.'],
    support: 'production_conflict',
  })
  // A refusal the form knows to be about one field: beside it.
  const exists = new ApiError(409, 'member_exists', 'An account with this email already exists.')
  assert.deepEqual(readRefusal(exists, { email: 'Email' }, { member_exists: 'email' })?.fields, {
    email: 'An account with this email already exists.',
  })
  assert.deepEqual(readRefusal(exists, { email: 'Email' })?.others, [
    'An account with this email already exists.',
  ])
  const wrong = new ApiError(401, 'password_incorrect', 'The current password is wrong.')
  assert.deepEqual(
    readRefusal(wrong, { url: 'URL' }, { password_incorrect: 'current_password' })?.others,
    ['The current password is wrong.'],
    'a field the form does not have stays above',
  )
  assert.equal(readRefusal(undefined, {}), undefined)
  assert.deepEqual(readRefusal(new Error('offline'), {})?.others, ['offline'])
})

test("the dashboard's own checks say what the service would, in the page's words", () => {
  assert.equal(checkWholeNumber('Quantity', 0, { min: 1, max: 10_000 }), 'Quantity must be at least 1')
  assert.equal(
    checkWholeNumber('Quantity', '10001', { min: 1, max: 10_000 }),
    'Quantity must be at most 10,000',
  )
  assert.equal(
    checkWholeNumber('Quantity', '2.5', { min: 1, max: 10_000 }),
    'Quantity must be a whole number',
  )
  assert.equal(checkWholeNumber('Quantity', '', { min: 1, max: 10_000 }), 'Quantity must be a whole number')
  assert.equal(checkWholeNumber('Quantity', 5, { min: 1, max: 10_000 }), undefined)
  assert.equal(checkLength('Name', '', { min: 1, max: 255 }), 'Name is required')
  // Characters as the service counts them: code points (an emoji is one).
  assert.equal(checkLength('Name', '😀'.repeat(255), { min: 1, max: 255 }), undefined)
  assert.equal(
    checkLength('Name', 'x'.repeat(256), { min: 1, max: 255 }),
    'Name must be at most 255 characters',
  )
  assert.deepEqual(problems({ a: undefined, b: 'B is required' }), { b: 'B is required' })
  assert.equal(problems({ a: undefined }), undefined)
})
