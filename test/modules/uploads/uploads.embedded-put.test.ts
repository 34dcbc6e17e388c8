import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { storageVariants } from '../../helpers/s3.ts'
import {
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
        for (const contentType of ['text/plain', 'text/csv', 'image/png', 'application/jsonl', 'text/json']) {
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
        assert.deepEqual(await uploadRow(slot.upload_id), before, 'the earlier bytes stay the upload\u2019s')
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
        assert.deepEqual(await uploadRow(slot.upload_id), before, 'the earlier bytes stay the upload\u2019s')
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
