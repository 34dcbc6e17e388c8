import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createUploadService } from '../../../src/modules/uploads/uploads.service.ts'
import { svgPlain } from '../../fixtures/files.ts'
import { createTestApp, manualClock, PUBLIC_BASE_URL, type TestApp } from '../../helpers/app.ts'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { S3_BUCKET, storageVariants } from '../../helpers/s3.ts'
import {
  listFiles,
  MAX_BYTES,
  PDF,
  png,
  SLOT_FIELDS,
  type Slot,
  TTL_S,
  UUID,
  useUploadSuite,
} from '../../helpers/uploads.ts'

describe('slots', () => {
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
})

describe('expiry', () => {
  for (const variant of storageVariants()) {
    describe(`upload lifecycle on ${variant.name} storage`, () => {
      const u = useUploadSuite(variant)
      const { createSlot, put, upload, uploadRow, orderWith, download } = u

      describe('with an injected clock', () => {
        const RETENTION_S = 86_400
        // S3 presigned URLs expire by the real clock: start the manual clock now.
        // The tests of this block run in order on one clock; each moves it forward.
        const clock = manualClock(new Date())
        let c: TestApp
        let ct: Awaited<ReturnType<TestApp['tenant']>>
        before(async () => {
          c = await createTestApp({ clock, storage: u.ts.storage, uploadRetentionS: RETENTION_S })
          ct = await c.tenant('Clocked')
        })
        after(() => c.close())

        test('unreferenced files expire after UPLOAD_RETENTION_S; the sweeper removes them; referenced files never expire', async () => {
          const sweeper = createUploadService({
            db: c.db,
            clock,
            storage: u.ts.storage,
            publicBaseUrl: PUBLIC_BASE_URL,
            urlTtlSeconds: TTL_S,
            retentionSeconds: RETENTION_S,
          })
          const keptBytes = png([9, 9, 9])
          const kept = await upload(c, ct.liveKey, keptBytes, 'kept.png')
          const early = await upload(c, ct.liveKey, png())
          const stale = await upload(c, ct.liveKey, png())
          const neverPut = await createSlot(c, ct.liveKey)
          const created = await c.api(
            ct.liveKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: kept.upload_id }]),
          )
          assert.equal(created.statusCode, 201, created.body)
          const orderId = created.json().data.order.id

          // One second before the end of the retention the file is still usable.
          clock.advance((RETENTION_S - 1) * 1000)
          const inTime = await c.api(
            ct.liveKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: early.upload_id }]),
          )
          assert.equal(inTime.statusCode, 201, inTime.body)
          assert.equal(await sweeper.sweep(), 0, 'nothing to sweep yet')

          clock.advance(2000)
          for (const id of [stale.upload_id, neverPut.upload_id]) {
            const res = await c.api(ct.liveKey, 'POST', '/v1/orders', orderWith([{ upload_id: id }]))
            const error = assertError(res, 422, 'validation_failed')
            assert.deepEqual(
              error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
              [['file_not_found', 'items[0].files[0].upload_id']],
            )
          }
          const staleRow = await uploadRow(stale.upload_id, c)
          assert.ok(staleRow)
          assert.ok(await u.ts.storage.head(staleRow.storage_key, 8), 'bytes are there until the sweep')

          assert.equal(await sweeper.sweep(), 2)
          assert.equal(await uploadRow(stale.upload_id, c), undefined)
          assert.equal(await uploadRow(neverPut.upload_id, c), undefined)
          assert.equal(await u.ts.storage.head(staleRow.storage_key, 8), undefined, 'bytes removed')
          if (u.ts.root) {
            const left = (await listFiles(u.ts.root)).filter((f) => f.includes(stale.upload_id))
            assert.deepEqual(left, [])
          }
          const res = await c.api(
            ct.liveKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: stale.upload_id }]),
          )
          assert.equal(assertError(res, 422, 'validation_failed').errors[0].code, 'file_not_found')

          // Referenced files never expire: still downloadable, and reusable by a new order.
          for (const id of [kept.upload_id, early.upload_id]) {
            const row = await uploadRow(id, c)
            assert.ok(row?.referenced_at)
            assert.equal(row?.expired_at, null)
          }
          const file = await download(c, orderId, kept.upload_id)
          assert.equal(file.statusCode, 200)
          assert.deepEqual(file.rawPayload, keptBytes)
          clock.advance(365 * 86_400 * 1000)
          assert.equal(await sweeper.sweep(), 0)
          const reuse = await c.api(
            ct.liveKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: kept.upload_id }]),
          )
          assert.equal(reuse.statusCode, 201, reuse.body)
          const view = (await c.admin('GET', `/admin/v1/orders/${reuse.json().data.order.id}`)).json().data
            .order
          assert.deepEqual(view.items[0].files, [
            {
              upload_id: kept.upload_id,
              name: 'kept.png',
              role: null,
              content_type: 'image/png',
              size_bytes: keptBytes.length,
            },
          ])
          assert.deepEqual((await download(c, orderId, kept.upload_id)).rawPayload, keptBytes)
        })

        if (u.embedded) {
          test('a slot is unusable after 7200 s: 403 upload_url_invalid', async () => {
            const slot = await createSlot(c, ct.testKey)
            clock.advance((TTL_S - 1) * 1000)
            const ok = await put(c, slot, png())
            assert.equal(ok.status, 200, ok.body)
            const row = await uploadRow(slot.upload_id, c)
            clock.advance(2000)
            const late = await put(c, slot, PDF)
            assertErrorText(late.status, late.body, 403, 'upload_url_invalid')
            assert.deepEqual(await uploadRow(slot.upload_id, c), row, 'the earlier bytes stay')
            assert.deepEqual(await u.ts.storage.read(row!.storage_key), png())

            const fresh = await createSlot(c, ct.testKey)
            clock.advance((TTL_S + 1) * 1000)
            const never = await put(c, fresh, png())
            assertErrorText(never.status, never.body, 403, 'upload_url_invalid')
            assert.equal((await uploadRow(fresh.upload_id, c))?.stored_at, null)
          })
        }
      })
    })
  }
})

describe('signed URLs', () => {
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
})
