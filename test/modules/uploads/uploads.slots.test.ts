import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { PUBLIC_BASE_URL } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { S3_BUCKET, storageVariants } from '../../helpers/s3.ts'
import { MAX_BYTES, SLOT_FIELDS, type Slot, TTL_S, UUID, useUploadSuite } from '../../helpers/uploads.ts'

for (const variant of storageVariants()) {
  describe(`upload lifecycle on ${variant.name} storage`, () => {
    const u = useUploadSuite(variant)
    const { uploadRow } = u

    describe('POST /v1/uploads', () => {
      test('returns 201 with exactly the slot fields; the row belongs to the key', async () => {
        for (const [key, environment] of [
          [u.tenant.testKey, 'test'],
          [u.tenant.liveKey, 'live'],
        ] as const) {
          const res = await u.t.api(key, 'POST', '/v1/uploads', { filename: 'front side.png' })
          assert.equal(res.statusCode, 201, res.body)
          const body = res.json()
          assert.deepEqual(Object.keys(body), ['data'])
          const slot = body.data as Slot
          assert.deepEqual(Object.keys(slot).sort(), SLOT_FIELDS)
          assert.match(slot.upload_id, UUID)
          assert.equal(slot.filename, 'front_side.png')
          assert.equal(slot.method, 'PUT')
          assert.equal(slot.expires_in_seconds, TTL_S)
          assert.equal(slot.max_bytes, MAX_BYTES)
          assert.equal(typeof slot.upload_url, 'string')
          assert.doesNotThrow(() => new URL(slot.upload_url))

          const row = await uploadRow(slot.upload_id)
          assert.ok(row, 'the upload row is stored')
          assert.equal(row.organization_id, u.tenant.orgId)
          assert.equal(row.environment, environment)
          assert.equal(row.filename, 'front_side.png')
          assert.equal(row.stored_at, null)
          assert.equal(row.referenced_at, null)
          assert.equal(row.size_bytes, null)
          assert.equal(row.content_type, null)
          assert.equal(row.url_expires_at.getTime() - row.created_at.getTime(), TTL_S * 1000)

          if (u.embedded) {
            const match = new RegExp(
              `^${PUBLIC_BASE_URL}/v1/uploads/${slot.upload_id}/content\\?expires=(\\d+)&signature=[0-9a-f]{64}$`,
            ).exec(slot.upload_url)
            assert.ok(match, slot.upload_url)
            assert.equal(Number(match[1]), Math.floor(row.url_expires_at.getTime() / 1000))
          } else {
            assert.ok(slot.upload_url.startsWith(`${u.ts.endpoint}/${S3_BUCKET}/`), slot.upload_url)
            const url = new URL(slot.upload_url)
            assert.ok(url.searchParams.get('X-Amz-Signature'))
            assert.ok(Math.abs(Number(url.searchParams.get('X-Amz-Expires')) - TTL_S) <= 1)
          }
        }
      })

      test('sanitizes the filename as DECISIONS says', async () => {
        const long = 'a'.repeat(200)
        const cases: [string, string][] = [
          ['logo.png', 'logo.png'],
          ['dir/sub/name.png', 'name.png'],
          ['C:\\Users\\jo\\logo.png', 'logo.png'],
          ['mixed\\dir/parts\\final.pdf', 'final.pdf'],
          ['../../etc/passwd', 'passwd'],
          ['my logo (1).png', 'my_logo__1_.png'],
          ['Grüße.svg', 'Gr__e.svg'],
          ['tab\there\nnewline.txt', 'tab_here_newline.txt'],
          ['quote"semi;colon<>.csv', 'quote_semi_colon__.csv'],
          ['keep-these_chars.1.tar.gz', 'keep-these_chars.1.tar.gz'],
          ['.hidden', '.hidden'],
          // Truncated to 120 keeping an extension of up to 16 characters.
          [`${long}.png`, `${'a'.repeat(116)}.png`],
          [`${long}.${'x'.repeat(16)}`, `${'a'.repeat(103)}.${'x'.repeat(16)}`],
          // A 17-character "extension" is not kept.
          [`${long}.${'x'.repeat(17)}`, 'a'.repeat(120)],
          ['a'.repeat(120), 'a'.repeat(120)],
          [`dir/${long}.png`, `${'a'.repeat(116)}.png`],
          // Empty or dots only: "file".
          ['.', 'file'],
          ['..', 'file'],
          ['...', 'file'],
          ['dir/', 'file'],
          ['a/..', 'file'],
          ['x\\', 'file'],
        ]
        for (const [raw, want] of cases) {
          const res = await u.t.api(u.tenant.testKey, 'POST', '/v1/uploads', { filename: raw })
          assert.equal(res.statusCode, 201, `${JSON.stringify(raw)}: ${res.body}`)
          const slot = res.json().data as Slot
          assert.equal(slot.filename, want, JSON.stringify(raw))
          assert.ok(slot.filename.length <= 120)
          assert.equal((await uploadRow(slot.upload_id))?.filename, want)
        }
      })

      test('missing, empty or non-string filename: 422 validation_failed, nothing stored', async () => {
        const before = await u.t.db
          .selectFrom('uploads')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
        const cases: [unknown, string][] = [
          [{}, 'required'],
          [{ filename: '' }, 'too_short'],
          [{ filename: 42 }, 'invalid_type'],
          [{ filename: null }, 'invalid_type'],
          [{ filename: ['a.png'] }, 'invalid_type'],
          [{ filename: { name: 'a.png' } }, 'invalid_type'],
        ]
        for (const [payload, code] of cases) {
          const res = await u.t.api(u.tenant.testKey, 'POST', '/v1/uploads', payload)
          const error = assertError(res, 422, 'validation_failed')
          assert.deepEqual(
            error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
            [[code, 'filename']],
            JSON.stringify(payload),
          )
        }
        const res = await u.t.api(u.tenant.testKey, 'POST', '/v1/uploads', { filename: 'a.png', size: 3 })
        const error = assertError(res, 422, 'validation_failed')
        assert.ok(error.errors.some((e: { code: string }) => e.code === 'unknown_field'))
        const afterwards = await u.t.db
          .selectFrom('uploads')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
        assert.equal(Number(afterwards.n), Number(before.n))
      })

      test('needs the files:write scope', async () => {
        const { key } = await u.t.createKey(u.tenant.orgId, { scopes: ['orders:write', 'orders:read'] })
        assertError(
          await u.t.api(key, 'POST', '/v1/uploads', { filename: 'a.png' }),
          403,
          'insufficient_scope',
        )
        assertError(
          await u.t.api(undefined, 'POST', '/v1/uploads', { filename: 'a.png' }),
          401,
          'invalid_api_key',
        )
      })
    })
  })
}
