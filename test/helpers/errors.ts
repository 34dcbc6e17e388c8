import assert from 'node:assert/strict'
import { MAX_VALIDATION_ENTRIES } from '../../src/http/errors.ts'
import { PUBLIC_BASE_URL } from './app.ts'

/** The keys an error object may carry. */
const ERROR_KEYS = ['code', 'doc_url', 'errors', 'field', 'message']

export type Entry = [code: string, field: string]

/** An error object as the API returns it, read field by field by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: error bodies of every route, read field by field
export type ApiError = any

/** An answer as light-my-request or a raw HTTP client gives it. */
export interface Answer {
  statusCode: number
  body: string
  headers: Record<string, unknown>
}

/**
 * The error shape from its text: `status`, exactly one key `error` with only the
 * documented fields, the catalog `code`, a message, its doc_url, and well-formed
 * `errors[]` entries (validation_failed only). `context` prefixes every message.
 */
export function assertErrorText(
  actualStatus: number | undefined,
  text: string | undefined,
  status: number,
  code: string,
  context = '',
): ApiError {
  const at = context ? `${context}: ` : ''
  assert.equal(actualStatus, status, `${at}status (${text?.slice(0, 500)})`)
  const body = JSON.parse(text ?? '')
  assert.deepEqual(Object.keys(body), ['error'], `${at}only an error key, no data`)
  const { error } = body
  for (const key of Object.keys(error)) assert.ok(ERROR_KEYS.includes(key), `${at}unexpected error.${key}`)
  assert.equal(error.code, code, `${at}error code`)
  assert.ok(typeof error.message === 'string' && error.message.length > 0, `${at}a message`)
  assert.equal(error.doc_url, `${PUBLIC_BASE_URL}/developers/errors/${code}`)
  if (code !== 'validation_failed')
    assert.equal('errors' in error, false, `${at}errors[] only on validation_failed`)
  if (error.errors) {
    assert.ok(error.errors.length <= MAX_VALIDATION_ENTRIES)
    for (const e of error.errors) {
      assert.deepEqual(Object.keys(e).sort(), ['code', 'field', 'message'])
      assert.ok(typeof e.message === 'string' && e.message.length > 0)
    }
  }
  return error
}

/** {@link assertErrorText} on an answer, which must also be JSON. */
export function assertError(res: Answer, status: number, code: string, context = ''): ApiError {
  assert.match(
    String(res.headers['content-type']),
    /^application\/json/,
    `${context} JSON body (${res.body})`,
  )
  return assertErrorText(res.statusCode, res.body, status, code, context)
}

/**
 * 422 validation_failed with exactly these entries (in any order); the top-level
 * `field` only when there is one entry.
 */
export function assertValidation(res: Answer, expected: Entry[]): ApiError {
  const error = assertError(res, 422, 'validation_failed')
  assert.ok(Array.isArray(error.errors), 'errors[] present')
  const sort = (list: Entry[]) => [...list].sort((a, b) => `${a[1]} ${a[0]}`.localeCompare(`${b[1]} ${b[0]}`))
  assert.deepEqual(
    sort(error.errors.map((e: { code: string; field: string }): Entry => [e.code, e.field])),
    sort(expected),
  )
  if (expected.length === 1) assert.equal(error.field, expected[0]![1])
  else assert.equal('field' in error, false, 'no top-level field with several entries')
  return error
}
