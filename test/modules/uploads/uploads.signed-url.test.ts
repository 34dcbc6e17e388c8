import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { svgPlain } from '../../fixtures/files.ts'
import { createTestApp, PUBLIC_BASE_URL, type TestApp } from '../../helpers/app.ts'

/**
 * Issue 15, item 11: the signed PUT of embedded storage answers every malformed
 * signed URL (parameters repeated, in array form, missing or not numbers)
 * with 403 upload_url_invalid in the error shape, and stores nothing.
 */
describe('malformed signed upload URLs', () => {
  let t: TestApp
  let key: string

  before(async () => {
    t = await createTestApp()
    key = (await t.tenant('Signed URL KG')).liveKey
  })
  after(() => t.close())

  async function slot(): Promise<{ id: string; path: string; expires: string; signature: string }> {
    const res = await t.api(key, 'POST', '/v1/uploads', { filename: 'logo.svg' })
    assert.equal(res.statusCode, 201, res.body)
    const url = new URL(res.json().data.upload_url)
    return {
      id: res.json().data.upload_id,
      path: url.pathname,
      expires: url.searchParams.get('expires')!,
      signature: url.searchParams.get('signature')!,
    }
  }

  const put = (url: string) =>
    t.app.inject({
      method: 'PUT',
      url,
      headers: { 'content-type': 'image/svg+xml' },
      payload: svgPlain(),
    })

  const malformed: [string, (s: Awaited<ReturnType<typeof slot>>) => string][] = [
    [
      'signature twice, same value',
      (s) => `expires=${s.expires}&signature=${s.signature}&signature=${s.signature}`,
    ],
    ['signature twice, another value', (s) => `expires=${s.expires}&signature=${s.signature}&signature=00`],
    ['expires twice', (s) => `expires=${s.expires}&expires=${s.expires}&signature=${s.signature}`],
    ['signature in array form', (s) => `expires=${s.expires}&signature[]=${s.signature}`],
    ['expires in array form', (s) => `expires[]=${s.expires}&signature=${s.signature}`],
    ['signature missing', (s) => `expires=${s.expires}`],
    ['expires missing', (s) => `signature=${s.signature}`],
    ['signature empty', (s) => `expires=${s.expires}&signature=`],
    ['expires not a number', (s) => `expires=soon&signature=${s.signature}`],
    ['expires with a fraction', (s) => `expires=${s.expires}.5&signature=${s.signature}`],
    ['expires with a leading space', (s) => `expires=%20${s.expires}&signature=${s.signature}`],
    ['expires with a sign', (s) => `expires=%2B${s.expires}&signature=${s.signature}`],
    ['expires in exponent form', (s) => `expires=${Number(s.expires) / 10}e1&signature=${s.signature}`],
    ['no parameters', () => ''],
  ]

  for (const [name, query] of malformed) {
    test(`${name}: 403 upload_url_invalid, nothing stored`, async () => {
      const s = await slot()
      const res = await put(`${s.path}?${query(s)}`)
      assert.equal(res.statusCode, 403, res.body)
      assert.deepEqual(res.json(), {
        error: {
          code: 'upload_url_invalid',
          message: 'The upload URL is invalid or has expired.',
          doc_url: `${PUBLIC_BASE_URL}/developers/errors/upload_url_invalid`,
        },
      })
      const row = await t.db
        .selectFrom('uploads')
        .select(['stored_at', 'size_bytes'])
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow()
      assert.deepEqual(row, { stored_at: null, size_bytes: null })
      // The slot itself is unharmed: its proper URL still works.
      const ok = await put(`${s.path}?expires=${s.expires}&signature=${s.signature}`)
      assert.equal(ok.statusCode, 200, ok.body)
    })
  }

  test('an upload id that is not a UUID: 403 upload_url_invalid', async () => {
    const s = await slot()
    const res = await put(`/v1/uploads/not-a-uuid/content?expires=${s.expires}&signature=${s.signature}`)
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().error.code, 'upload_url_invalid')
  })
})
