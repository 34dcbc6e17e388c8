import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redactSecrets } from '../../src/http/redaction.ts'

const KEY_SECRET = '0123456789abcdefghijABCDEFGHIJ0123'
const OPERATOR = 'op_Operator_Token_0123456789'

/** Every character as JSON's \uXXXX. */
const jsonEscaped = (s: string) =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')
/** Every character URL-encoded (%XX). */
const percentEncoded = (s: string) =>
  [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')

test('secrets are redacted by their form from any text logged', () => {
  const cases: [string, string][] = [
    [
      'https://bucket.s3.amazonaws.com/k?X-Amz-Credential=AKIA123%2F2026&X-Amz-Signature=abcdef&x-id=PutObject',
      'https://bucket.s3.amazonaws.com/k?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&x-id=PutObject',
    ],
    ['postgres://app:pa55word@db:5432/x', 'postgres://app:REDACTED@db:5432/x'],
    ['{"authorization":"Bearer op_0123456789abcdef"}', '{"authorization":"Bearer REDACTED"}'],
    ['use it as Bearer token for /admin/v1', 'use it as Bearer token for /admin/v1'],
    ['secret whsec_AbC-12_x shown', 'secret whsec_REDACTED shown'],
    [`key svc_live_${KEY_SECRET} used`, 'key svc_live_REDACTED used'],
    ['/v1/orders?cursor=abc&limit=5', '/v1/orders?cursor=abc&limit=5'],
    ['/v1/orders?api_key=&x=1', '/v1/orders?api_key=REDACTED&x=1'],
  ]
  for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected)
  assert.equal(redactSecrets('token is hunter2hunter2!', ['hunter2hunter2']), 'token is REDACTED!')
})

test('secrets written with JSON escapes or URL encoding are redacted too; what leads to them stays as written', () => {
  const cases: [string, string][] = [
    [`"svc\\u005flive_${KEY_SECRET}"`, '"svc\\u005flive_REDACTED"'],
    [`"svc_test\\u005F${KEY_SECRET.slice(0, 4)}\\u0034${KEY_SECRET.slice(5)}"`, '"svc_test\\u005FREDACTED"'],
    [`"${jsonEscaped(`svc_live_${KEY_SECRET}`)}"`, `"${jsonEscaped('svc_live_')}REDACTED"`],
    [`/v1/orders?q=svc%5Flive_${KEY_SECRET}&x=1`, '/v1/orders?q=svc%5Flive_REDACTED&x=1'],
    [`/v1/orders?q=svc%5flive%5f${KEY_SECRET}`, '/v1/orders?q=svc%5flive%5fREDACTED'],
    [`q=${percentEncoded(`svc_test_${KEY_SECRET}`)}`, `q=${percentEncoded('svc_test_')}REDACTED`],
    ['"whsec\\u005fq3ZL0v8mXc1rT5bN7yK2"', '"whsec\\u005fREDACTED"'],
    ['{"s":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2+La/aSw=="}', '{"s":"whsec_REDACTED"}'],
    ['"Bearer\\u0020op_0123456789abcdef"', '"Bearer\\u0020REDACTED"'],
    ['Bearer%20op_0123456789abcdef', 'Bearer%20REDACTED'],
    ['{"url":"postgres:\\/\\/app:pa55word@db\\/x"}', '{"url":"postgres:\\/\\/app:REDACTED@db\\/x"}'],
    [
      '{"url":"https:\\/\\/x.example\\/cb?access\\u005ftoken=abc"}',
      '{"url":"https:\\/\\/x.example\\/cb?access\\u005ftoken=REDACTED"}',
    ],
    // %26 in a value is data, not a separator: the whole value goes.
    ['/cb?token=abc%26def&x=1', '/cb?token=REDACTED&x=1'],
    // An escaped backslash followed by u005f is no escape.
    [`"svc\\\\u005flive_${KEY_SECRET}"`, `"svc\\\\u005flive_${KEY_SECRET}"`],
    ['100% sure, 50%5 off \\u00zz', '100% sure, 50%5 off \\u00zz'],
  ]
  for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input)
})

test('a known secret is found as written, JSON-escaped or URL-encoded, any of its characters', () => {
  const forms = [
    OPERATOR,
    OPERATOR.replaceAll('_', '\\u005f'),
    OPERATOR.replaceAll('_', '%5F'),
    jsonEscaped(OPERATOR),
    percentEncoded(OPERATOR),
    `${OPERATOR.slice(0, 5)}\\u${OPERATOR.charCodeAt(5).toString(16).padStart(4, '0').toUpperCase()}${OPERATOR.slice(6)}`,
  ]
  for (const form of forms)
    assert.equal(redactSecrets(`{"t":"${form}"}`, [OPERATOR]), '{"t":"REDACTED"}', form)
  const quoted = 'op"quoted\\token/1'
  assert.equal(redactSecrets(JSON.stringify({ t: quoted }), [quoted]), '{"t":"REDACTED"}')
  // Short ones (and the empty string) would replace innocent text: not looked for.
  assert.equal(redactSecrets('short abc here', ['abc', '']), 'short abc here')
})
