import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createTestApp, DIALECT, orderBody, type TestApp } from '../../helpers/app.ts'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { storageVariants } from '../../helpers/s3.ts'
import {
  hex,
  httpPut,
  listFiles,
  MAX_BYTES,
  PDF,
  pathOf,
  png,
  pngPaddedTo,
  type Slot,
  useUploadSuite,
} from '../../helpers/uploads.ts'
import { waitUntil } from '../../helpers/wait.ts'

describe('PUT', () => {
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
})

describe('embedded PUT', () => {
  for (const variant of storageVariants().filter((v) => v.name === 'embedded')) {
    describe(`upload lifecycle on ${variant.name} storage`, () => {
      const u = useUploadSuite(variant)
      const { createSlot, upload, uploadRow, orderWith, acceptedOrder } = u

      describe('the signed URL of embedded storage', () => {
        let base: string
        before(async () => {
          await u.t.app.listen({ host: '127.0.0.1', port: 0 })
          base = `http://127.0.0.1:${(u.t.app.server.address() as AddressInfo).port}`
        })
        const realUrl = (slot: Slot) => base + pathOf(slot.upload_url)
        const root = () => u.ts.root!
        const inject = (app: FastifyInstance, url: string, payload: Buffer = png()) =>
          app.inject({ method: 'PUT', url, payload, headers: { 'content-type': 'application/octet-stream' } })

        test('bad signature, tampered expires, unknown slot: 403 upload_url_invalid, nothing stored', async () => {
          const slot = await createSlot(u.t, u.tenant.testKey)
          const url = new URL(slot.upload_url)
          const id = slot.upload_id
          const expires = url.searchParams.get('expires')!
          const signature = url.searchParams.get('signature')!
          const flipped = (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1)
          const filesBefore = await listFiles(root())
          const bad = [
            `/v1/uploads/${id}/content?expires=${expires}&signature=${flipped}`,
            `/v1/uploads/${id}/content?expires=${Number(expires) + 3600}&signature=${signature}`,
            `/v1/uploads/${id}/content?expires=${expires}`,
            `/v1/uploads/${id}/content?signature=${signature}`,
            `/v1/uploads/${id}/content?expires=${expires}&signature=`,
            `/v1/uploads/${id}/content?expires=abc&signature=${signature}`,
            `/v1/uploads/${randomUUID()}/content?expires=${expires}&signature=${signature}`,
            `/v1/uploads/not-a-uuid/content?expires=${expires}&signature=${signature}`,
          ]
          for (const path of bad) {
            assertError(await inject(u.t.app, path), 403, 'upload_url_invalid')
          }
          // Another slot's valid signature does not open this one.
          const otherSlot = new URL((await createSlot(u.t, u.tenant.testKey)).upload_url)
          assertError(
            await inject(
              u.t.app,
              `/v1/uploads/${id}/content?expires=${otherSlot.searchParams.get('expires')}&signature=${otherSlot.searchParams.get('signature')}`,
            ),
            403,
            'upload_url_invalid',
          )
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.equal((await uploadRow(id))?.stored_at, null)
          // The genuine URL still works afterwards.
          assert.equal((await inject(u.t.app, pathOf(slot.upload_url))).statusCode, 200)
        })

        test('any Content-Type is taken as raw bytes, JSON too when the bytes are a file', async () => {
          const csv = Buffer.from('sku,qty\nMUG-01,2\n')
          for (const contentType of [
            'text/plain',
            'text/csv',
            'image/png',
            'application/jsonl',
            'text/json',
          ]) {
            const slot = await createSlot(u.t, u.tenant.testKey, 'list.csv')
            const res = await u.t.app.inject({
              method: 'PUT',
              url: pathOf(slot.upload_url),
              payload: csv,
              headers: { 'content-type': contentType },
            })
            assert.equal(res.statusCode, 200, `${contentType}: ${res.body}`)
            const row = await uploadRow(slot.upload_id)
            assert.equal(Number(row?.size_bytes), csv.length, contentType)
            assert.deepEqual(await u.ts.storage.read(row!.storage_key), csv)
          }
          // A file's bytes under a JSON Content-Type are still the file.
          const slot = await createSlot(u.t, u.tenant.testKey, 'art.png')
          const res = await u.t.app.inject({
            method: 'PUT',
            url: pathOf(slot.upload_url),
            payload: png(),
            headers: { 'content-type': 'application/json' },
          })
          assert.equal(res.statusCode, 200, res.body)
          assert.deepEqual(await u.ts.storage.read((await uploadRow(slot.upload_id))!.storage_key), png())
        })

        test('a JSON body (a client that serialized the file): 422 on Content-Type, nothing stored, the URL still takes the file', async () => {
          const slot = await createSlot(u.t, u.tenant.testKey, 'art.png')
          assert.equal((await inject(u.t.app, pathOf(slot.upload_url), png())).statusCode, 200)
          const before = await uploadRow(slot.upload_id)
          const filesBefore = await listFiles(root())
          for (const contentType of [
            'application/json',
            'application/json; charset=utf-8',
            'Application/JSON',
            'application/merge-patch+json',
          ]) {
            const res = await u.t.app.inject({
              method: 'PUT',
              url: pathOf(slot.upload_url),
              payload: '{}',
              headers: { 'content-type': contentType },
            })
            const body = assertError(res, 422, 'validation_failed')
            assert.match(body.message, /raw bytes, not a JSON body; nothing was stored/)
            assert.equal(body.field, 'Content-Type')
            assert.deepEqual(
              body.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
              [['invalid_format', 'Content-Type']],
            )
            assert.match(
              body.errors[0].message,
              /^Content-Type application\/[\w+-]+: .*application\/octet-stream/i,
            )
          }
          assert.deepEqual(
            await uploadRow(slot.upload_id),
            before,
            'the earlier bytes stay the upload\u2019s',
          )
          assert.deepEqual(await listFiles(root()), filesBefore, 'nothing written')
          // The same URL then takes the file.
          const pdf = Buffer.from(PDF)
          const put = await inject(u.t.app, pathOf(slot.upload_url), pdf)
          assert.equal(put.statusCode, 200, put.body)
          assert.deepEqual(await u.ts.storage.read((await uploadRow(slot.upload_id))!.storage_key), pdf)
        })

        test('JSON under another Content-Type, for a file named as an image or PDF: 422 on body, the upload unchanged', async () => {
          const slot = await createSlot(u.t, u.tenant.testKey, 'art.png')
          const put = (payload: string | Buffer) =>
            u.t.app.inject({
              method: 'PUT',
              url: pathOf(slot.upload_url),
              payload,
              headers: { 'content-type': 'application/octet-stream' },
            })
          assert.equal((await put(png())).statusCode, 200)
          const before = await uploadRow(slot.upload_id)
          const filesBefore = await listFiles(root())
          for (const body of ['{}', ' [] ', '{"name": "art.png", "size": 2483311, "type": "image/png"}']) {
            const error = assertError(await put(body), 422, 'validation_failed', body)
            assert.deepEqual(
              error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
              [['invalid_format', 'body']],
            )
            assert.match(
              error.errors[0].message,
              /^body is JSON, not the bytes of art\.png: send the file itself/,
            )
          }
          assert.deepEqual(
            await uploadRow(slot.upload_id),
            before,
            'the earlier bytes stay the upload\u2019s',
          )
          assert.deepEqual(await listFiles(root()), filesBefore, 'nothing left behind')
          // Text that is not a JSON object, and JSON in a file not named as an image or PDF, are files.
          assert.equal((await put('"{}"')).statusCode, 200)
          const notes = await createSlot(u.t, u.tenant.testKey, 'notes.txt')
          const json = await u.t.app.inject({
            method: 'PUT',
            url: pathOf(notes.upload_url),
            payload: '{"a": 1}',
          })
          assert.equal(json.statusCode, 200, json.body)
        })

        test('exactly 52428800 bytes, streamed, are accepted', async () => {
          const slot = await createSlot(u.t, u.tenant.testKey, 'big.png')
          const res = await httpPut(
            realUrl(slot),
            { 'content-length': MAX_BYTES, 'content-type': 'image/png' },
            pngPaddedTo(MAX_BYTES),
          )
          assert.equal(res.status, 200, res.body ?? String(res.error))
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), MAX_BYTES)
          const head = await u.ts.storage.head(row!.storage_key, 64)
          assert.equal(head?.size, MAX_BYTES)
          assert.deepEqual(head?.head.subarray(0, 8), png().subarray(0, 8))
          const order = await acceptedOrder([{ upload_id: slot.upload_id }])
          const view = (await u.t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
          assert.equal(view.items[0].files[0].size_bytes, MAX_BYTES)
          assert.equal(view.items[0].files[0].content_type, 'image/png')
        })

        test('52428801 bytes streamed: 413 upload_too_large, nothing kept, earlier bytes intact', async () => {
          // A fresh slot: no file appears and the upload stays without bytes.
          const fresh = await createSlot(u.t, u.tenant.testKey)
          let filesBefore = await listFiles(root())
          let res = await httpPut(
            realUrl(fresh),
            { 'transfer-encoding': 'chunked' },
            pngPaddedTo(MAX_BYTES + 1),
          )
          assertErrorText(res.status, res.body, 413, 'upload_too_large')
          assert.deepEqual(await listFiles(root()), filesBefore, 'no file and no .part left')
          const freshRow = await uploadRow(fresh.upload_id)
          assert.equal(freshRow?.stored_at, null)
          assert.equal(freshRow?.size_bytes, null)
          const order = await u.t.api(
            u.tenant.testKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: fresh.upload_id }]),
          )
          assert.equal(assertError(order, 422, 'validation_failed').errors[0].code, 'file_not_found')

          // A slot with an earlier upload keeps those bytes.
          const original = png([7, 7, 7])
          const slot = await upload(u.t, u.tenant.testKey, original)
          const rowBefore = await uploadRow(slot.upload_id)
          filesBefore = await listFiles(root())
          res = await httpPut(realUrl(slot), { 'transfer-encoding': 'chunked' }, pngPaddedTo(MAX_BYTES + 1))
          assertErrorText(res.status, res.body, 413, 'upload_too_large')
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.deepEqual(await uploadRow(slot.upload_id), rowBefore)
          assert.deepEqual(await u.ts.storage.read(rowBefore!.storage_key), original)
        })

        test('a Content-Length over the limit is refused before the body is read', async () => {
          const slot = await createSlot(u.t, u.tenant.testKey)
          const filesBefore = await listFiles(root())
          // Only the headers are sent; the answer must come without the body.
          const res = await httpPut(realUrl(slot), { 'content-length': MAX_BYTES + 1 })
          assertErrorText(res.status, res.body, 413, 'upload_too_large')
          assert.equal(res.headers?.connection, 'close')
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.equal((await uploadRow(slot.upload_id))?.stored_at, null)
          // Through inject as well (the whole over-limit body is offered).
          const injected = await u.t.app.inject({
            method: 'PUT',
            url: pathOf(slot.upload_url),
            payload: Buffer.alloc(16),
            headers: { 'content-length': String(MAX_BYTES + 1) },
          })
          assertError(injected, 413, 'upload_too_large')
          assert.equal((await uploadRow(slot.upload_id))?.stored_at, null)
        })

        test('an aborted PUT leaves nothing behind; the earlier bytes stay; a retry succeeds', async () => {
          const original = png([3, 3, 3])
          const slot = await upload(u.t, u.tenant.testKey, original)
          const rowBefore = await uploadRow(slot.upload_id)
          const filesBefore = await listFiles(root())
          assert.ok(!filesBefore.some((f) => f.endsWith('.part')))

          const req = http.request(realUrl(slot), {
            method: 'PUT',
            headers: { 'content-length': 4 * 1024 * 1024 },
            agent: false,
          })
          req.on('error', () => {})
          req.write(Buffer.alloc(512 * 1024, 1))
          await waitUntil(
            async () => (await listFiles(root())).some((f) => f.endsWith('.part')),
            'the server to write a temporary file',
          )
          req.destroy()
          await waitUntil(
            async () => (await listFiles(root())).every((f) => !f.endsWith('.part')),
            'the temporary file to go',
          )
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.deepEqual(await uploadRow(slot.upload_id), rowBefore)
          assert.deepEqual(await u.ts.storage.read(rowBefore!.storage_key), original)

          // The same on a slot that never got bytes: no object, no stored row.
          const fresh = await createSlot(u.t, u.tenant.testKey)
          const req2 = http.request(realUrl(fresh), {
            method: 'PUT',
            headers: { 'content-length': 4 * 1024 * 1024 },
            agent: false,
          })
          req2.on('error', () => {})
          req2.write(Buffer.alloc(512 * 1024, 1))
          await waitUntil(
            async () => (await listFiles(root())).some((f) => f.endsWith('.part')),
            'the server to write a temporary file',
          )
          req2.destroy()
          await waitUntil(
            async () => (await listFiles(root())).every((f) => !f.endsWith('.part')),
            'the temporary file to go',
          )
          assert.deepEqual(
            (await listFiles(root())).filter((f) => f.includes(fresh.upload_id)),
            [],
          )
          assert.equal((await uploadRow(fresh.upload_id))?.stored_at, null)

          // A failed PUT is retried alone.
          const retry = await httpPut(
            realUrl(fresh),
            { 'content-length': PDF.length },
            (async function* () {
              yield PDF
            })(),
          )
          assert.equal(retry.status, 200, retry.body)
          const stored = await uploadRow(fresh.upload_id)
          assert.deepEqual(await readFile(join(root(), 'objects', stored!.storage_key)), PDF)
        })
      })
    })
  }
})

describe('file checks', () => {
  for (const variant of storageVariants()) {
    describe(`upload lifecycle on ${variant.name} storage`, () => {
      const u = useUploadSuite(variant)
      const { createSlot, upload, uploadRow, orderWith, counts, acceptedOrder } = u

      describe('file checks at order acceptance', () => {
        test('unusable files: 422 with file_not_found in errors[], nothing stored, uploads stay usable', async () => {
          const good = await upload(u.t, u.tenant.liveKey, png())
          const good2 = await upload(u.t, u.tenant.liveKey, PDF, 'b.pdf')
          const foreign = await upload(u.t, u.other.liveKey, png())
          const otherEnvironment = await upload(u.t, u.tenant.testKey, png())
          const neverPut = await createSlot(u.t, u.tenant.liveKey)
          const empty = await upload(u.t, u.tenant.liveKey, Buffer.alloc(0), 'empty.png')
          const truncated = await upload(u.t, u.tenant.liveKey, png().subarray(0, 3), 'cut.png')
          const bad: [string, string][] = [
            ['unknown upload_id', randomUUID()],
            ["another organization's upload", foreign.upload_id],
            ["the other environment's upload", otherEnvironment.upload_id],
            ['a slot never PUT', neverPut.upload_id],
            ['an empty file', empty.upload_id],
            ['a truncated file', truncated.upload_id],
          ]
          const externalId = `EXT-${hex()}`
          const before = await counts(u.tenant.orgId)
          const goodRowBefore = await uploadRow(good.upload_id)
          for (const [what, id] of bad) {
            const res = await u.t.api(
              u.tenant.liveKey,
              'POST',
              '/v1/orders',
              orderWith([{ upload_id: good.upload_id, role: 'front' }, { upload_id: id }], {
                external_order_id: externalId,
              }),
            )
            const error = assertError(res, 422, 'validation_failed')
            assert.ok(!String(error.code).startsWith('file_'))
            assert.deepEqual(
              error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
              [['file_not_found', 'items[0].files[1].upload_id']],
              what,
            )
            assert.equal(typeof error.errors[0].message, 'string')
            assert.equal(error.field, 'items[0].files[1].upload_id', 'one entry: top-level field set')
          }

          // Several bad files: every one reported, no top-level field.
          const several = await u.t.api(
            u.tenant.liveKey,
            'POST',
            '/v1/orders',
            orderBody({
              external_order_id: externalId,
              items: [
                {
                  name: 'A',
                  quantity: 1,
                  files: [{ upload_id: good.upload_id }, { upload_id: empty.upload_id }],
                },
                { name: 'B', quantity: 1, files: [{ upload_id: neverPut.upload_id }] },
              ],
            }),
          )
          const error = assertError(several, 422, 'validation_failed')
          assert.deepEqual(
            error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
            [
              ['file_not_found', 'items[0].files[1].upload_id'],
              ['file_not_found', 'items[1].files[0].upload_id'],
            ],
          )
          assert.equal(error.field, undefined)

          // Nothing was created and the good upload is untouched.
          assert.deepEqual(await counts(u.tenant.orgId), before)
          assert.equal(
            (
              await u.t.db
                .selectFrom('orders')
                .select('id')
                .where('external_order_id', '=', externalId)
                .execute()
            ).length,
            0,
          )
          assert.deepEqual(await uploadRow(good.upload_id), goodRowBefore)
          assert.equal((await uploadRow(foreign.upload_id))?.referenced_at, null)
          assert.equal((await uploadRow(otherEnvironment.upload_id))?.referenced_at, null)

          // The resend with a fixed file list is accepted.
          const fixed = await u.t.api(
            u.tenant.liveKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: good.upload_id, role: 'front' }, { upload_id: good2.upload_id }], {
              external_order_id: externalId,
            }),
          )
          assert.equal(fixed.statusCode, 201, fixed.body)
          assert.deepEqual(
            fixed.json().data.order.items[0].files.map((f: { name: string }) => f.name),
            ['artwork.png', 'b.pdf'],
          )
          const now = await counts(u.tenant.orgId)
          assert.deepEqual(now, { orders: before.orders + 1, events: before.events + 1 })

          // The other organization's and the test environment's uploads still work for their owners.
          for (const [key, id] of [
            [u.other.liveKey, foreign.upload_id],
            [u.tenant.testKey, otherEnvironment.upload_id],
          ] as const) {
            const res = await u.t.api(key, 'POST', '/v1/orders', orderWith([{ upload_id: id }]))
            assert.equal(res.statusCode, 201, res.body)
          }
        })

        test('duplicate detection includes the upload ids', async () => {
          const first = await upload(u.t, u.tenant.liveKey, png())
          const second = await upload(u.t, u.tenant.liveKey, png())
          const body = orderWith([{ upload_id: first.upload_id, role: 'front' }])
          const created = await u.t.api(u.tenant.liveKey, 'POST', '/v1/orders', body)
          assert.equal(created.statusCode, 201, created.body)
          const before = await counts(u.tenant.orgId)

          const repeat = await u.t.api(u.tenant.liveKey, 'POST', '/v1/orders', body)
          assert.equal(repeat.statusCode, 200, repeat.body)
          assert.equal(repeat.json().data.order.id, created.json().data.order.id)
          assert.deepEqual(repeat.json().data.warnings, [])

          // The same order, only the upload_id differs.
          const changed = orderWith([{ upload_id: second.upload_id, role: 'front' }], {
            external_order_id: body.external_order_id,
          })
          assertError(
            await u.t.api(u.tenant.liveKey, 'POST', '/v1/orders', changed),
            409,
            'order_already_exists_with_different_content',
          )
          assert.deepEqual(await counts(u.tenant.orgId), before)
          assert.equal(
            (await uploadRow(second.upload_id))?.referenced_at,
            null,
            'the new upload stays unused',
          )
          await acceptedOrder([{ upload_id: second.upload_id }], u.tenant.liveKey)
        })

        if (!u.embedded) {
          test('an object over 52428800 bytes in the bucket is file_not_found at acceptance', async () => {
            // A presigned PUT cannot bind an unknown size, so the limit is enforced when the order comes.
            const slot = await createSlot(u.t, u.tenant.testKey)
            const big = new Uint8Array(MAX_BYTES + 1)
            big.set(png())
            const res = await fetch(slot.upload_url, { method: 'PUT', body: big })
            assert.equal(res.status, 200)
            const order = await u.t.api(
              u.tenant.testKey,
              'POST',
              '/v1/orders',
              orderWith([{ upload_id: slot.upload_id }]),
            )
            const error = assertError(order, 422, 'validation_failed')
            assert.deepEqual(
              error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
              [['file_not_found', 'items[0].files[0].upload_id']],
            )
          })
        }
      })
    })
  }
})
