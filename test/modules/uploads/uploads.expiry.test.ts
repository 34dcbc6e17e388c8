import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createUploadService } from '../../../src/modules/uploads/uploads.service.ts'
import { createTestApp, manualClock, PUBLIC_BASE_URL, type TestApp } from '../../helpers/app.ts'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { storageVariants } from '../../helpers/s3.ts'
import { listFiles, PDF, png, TTL_S, useUploadSuite } from '../../helpers/uploads.ts'

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
        const res = await c.api(ct.liveKey, 'POST', '/v1/orders', orderWith([{ upload_id: stale.upload_id }]))
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
