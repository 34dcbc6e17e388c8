import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createTestApp, DIALECT, type TestApp } from '../../helpers/app.ts'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { storageVariants } from '../../helpers/s3.ts'
import { listFiles, PDF, png, useUploadSuite } from '../../helpers/uploads.ts'

for (const variant of storageVariants()) {
  describe(`upload lifecycle on ${variant.name} storage`, () => {
    const u = useUploadSuite(variant)
    const { createSlot, put, upload, uploadRow, orderWith, download, acceptedOrder } = u

    describe('PUT, order, operator view and download', () => {
      test('PUT without Authorization stores; the order shows {name, role}; the operator gets the bytes', async () => {
        const bytes = png()
        const slot = await createSlot(u.t, u.tenant.liveKey, 'Front Side.png')
        const putRes = await put(u.t, slot, bytes, { 'content-type': 'application/octet-stream' })
        assert.ok(putRes.status >= 200 && putRes.status < 300, putRes.body)
        if (u.embedded) {
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), bytes.length)
          assert.ok(row?.stored_at)
          assert.equal(row?.referenced_at, null)
          assert.deepEqual(await u.ts.storage.read(row!.storage_key), bytes)
        }
        const pdf = await upload(u.t, u.tenant.liveKey, PDF, 'back.pdf')

        const body = orderWith([{ upload_id: slot.upload_id, role: 'front' }, { upload_id: pdf.upload_id }])
        const res = await u.t.api(u.tenant.liveKey, 'POST', '/v1/orders', body)
        assert.equal(res.statusCode, 201, res.body)
        const { order } = res.json().data
        assert.deepEqual(order.items[0].files, [
          { name: 'Front_Side.png', role: 'front' },
          { name: 'back.pdf', role: null },
        ])
        for (const f of order.items[0].files) assert.deepEqual(Object.keys(f).sort(), ['name', 'role'])
        const fetched = await u.t.api(u.tenant.liveKey, 'GET', `/v1/orders/${order.id}`)
        assert.equal(fetched.statusCode, 200, fetched.body)
        assert.deepEqual(fetched.json().data.order.items[0].files, order.items[0].files)

        const view = await u.t.admin('GET', `/admin/v1/orders/${order.id}`)
        assert.equal(view.statusCode, 200, view.body)
        assert.deepEqual(view.json().data.order.items[0].files, [
          {
            upload_id: slot.upload_id,
            name: 'Front_Side.png',
            role: 'front',
            content_type: 'image/png',
            size_bytes: bytes.length,
          },
          {
            upload_id: pdf.upload_id,
            name: 'back.pdf',
            role: null,
            content_type: 'application/pdf',
            size_bytes: PDF.length,
          },
        ])

        const file = await download(u.t, order.id, slot.upload_id)
        assert.equal(file.statusCode, 200)
        assert.deepEqual(file.rawPayload, bytes)
        assert.equal(file.headers['content-type'], 'image/png')
        assert.match(String(file.headers['content-disposition']), /^attachment\b/)
        assert.equal(file.headers['x-content-type-options'], 'nosniff')
        assert.equal(Number(file.headers['content-length']), bytes.length)
        const second = await download(u.t, order.id, pdf.upload_id)
        assert.equal(second.statusCode, 200)
        assert.deepEqual(second.rawPayload, PDF)
        assert.equal(second.headers['content-type'], 'application/pdf')

        const row = await uploadRow(slot.upload_id)
        assert.ok(row?.referenced_at, 'referenced from now on')
        assert.equal(row?.content_type, 'image/png')
        assert.equal(Number(row?.size_bytes), bytes.length)

        // Files of other orders, or unknown ids, are not served through this order.
        const unrelated = await upload(u.t, u.tenant.liveKey, png())
        assertError(await download(u.t, order.id, unrelated.upload_id), 404, 'not_found')
        assertError(await download(u.t, order.id, randomUUID()), 404, 'not_found')
      })

      test('a repeated PUT replaces the bytes while unreferenced', async () => {
        const slot = await upload(u.t, u.tenant.testKey, png(), 'art.png')
        const res = await put(u.t, slot, PDF)
        assert.ok(res.status >= 200 && res.status < 300, res.body)
        if (u.ts.root) {
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), PDF.length)
          // The replaced bytes are gone: one object for this upload.
          const objects = (await listFiles(u.ts.root)).filter((f) => f.includes(slot.upload_id))
          assert.equal(objects.length, 1, objects.join())
        }
        const order = await acceptedOrder([{ upload_id: slot.upload_id }])
        const view = (await u.t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
        assert.equal(view.items[0].files[0].content_type, 'application/pdf')
        assert.equal(view.items[0].files[0].size_bytes, PDF.length)
        const file = await download(u.t, order.id, slot.upload_id)
        assert.deepEqual(file.rawPayload, PDF)
        assert.equal(file.headers['content-type'], 'application/pdf')
      })

      test('after an accepted order references the upload, a PUT changes nothing the order holds', async () => {
        const original = png([1, 2, 3])
        const slot = await upload(u.t, u.tenant.testKey, original)
        const orderId = (await acceptedOrder([{ upload_id: slot.upload_id }])).id
        const rowBefore = await uploadRow(slot.upload_id)
        const filesBefore = u.ts.root ? await listFiles(u.ts.root) : []

        const res = await put(u.t, slot, PDF)
        if (!u.embedded) assert.equal(res.status, 200, 'the bucket took the new bytes')
        if (u.embedded) {
          assertErrorText(res.status, res.body, 409, 'upload_already_referenced')
          assert.deepEqual(await listFiles(u.ts.root!), filesBefore, 'no new file kept')
        }
        // S3: the presigned URL still accepts bytes until it expires, but the order
        // holds a copy no slot URL reaches.
        assert.deepEqual(await uploadRow(slot.upload_id), rowBefore)
        const file = await download(u.t, orderId, slot.upload_id)
        assert.equal(file.statusCode, 200)
        assert.deepEqual(file.rawPayload, original)
        assert.equal(file.headers['content-type'], 'image/png')
      })
    })

    describe('two instances sharing the database and the storage', () => {
      let b: TestApp
      before(async () => {
        b = await createTestApp({
          testDb: u.t.testDb,
          ...(DIALECT === 'postgres' ? { db: await u.t.testDb.openAnother() } : {}),
          storage: u.ts.another(),
        })
      })
      after(() => b.close())

      test("each instance accepts the other's uploads", async () => {
        const bytes = png([4, 5, 6])
        // Slot from A, bytes through A's URL (S3: the bucket), order on B.
        const fromA = await createSlot(u.t, u.tenant.liveKey, 'a.png')
        const putA = await put(u.t, fromA, bytes)
        assert.ok(putA.status >= 200 && putA.status < 300, putA.body)
        const onB = await b.api(
          u.tenant.liveKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: fromA.upload_id }]),
        )
        assert.equal(onB.statusCode, 201, onB.body)
        const orderB = onB.json().data.order.id
        for (const app of [b, u.t]) {
          const file = await download(app, orderB, fromA.upload_id)
          assert.equal(file.statusCode, 200)
          assert.deepEqual(file.rawPayload, bytes)
          assert.equal(file.headers['content-type'], 'image/png')
        }

        // Slot from B, bytes through A (embedded: one signing key for the deployment), order on A.
        const fromB = await createSlot(b, u.tenant.liveKey, 'b.pdf')
        const putB = await put(u.t, fromB, PDF)
        assert.ok(putB.status >= 200 && putB.status < 300, putB.body)
        const onA = await u.t.api(
          u.tenant.liveKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: fromB.upload_id }]),
        )
        assert.equal(onA.statusCode, 201, onA.body)
        const file = await download(b, onA.json().data.order.id, fromB.upload_id)
        assert.deepEqual(file.rawPayload, PDF)
        assert.equal(file.headers['content-type'], 'application/pdf')
      })
    })
  })
}
