import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { crc32, deflateSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { createUploadService } from '../../../src/modules/uploads/uploads.service.ts'
import {
  createTestApp,
  DIALECT,
  manualClock,
  orderBody,
  PUBLIC_BASE_URL,
  type TestApp,
} from '../../helpers/app.ts'
import { assertError, assertErrorText } from '../../helpers/errors.ts'
import { S3_BUCKET, storageVariants, type TestStorage } from '../../helpers/s3.ts'
import { waitUntil } from '../../helpers/wait.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const MAX_BYTES = 52_428_800
const TTL_S = 7200
const SLOT_FIELDS = ['expires_in_seconds', 'filename', 'max_bytes', 'method', 'upload_id', 'upload_url']
const hex = () => randomBytes(4).toString('hex')

// --- file content ---------------------------------------------------------

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/** A real 1x1 RGB PNG. */
function png(rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(1, 0)
  ihdr.writeUInt32BE(1, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, ...rgb]))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
)

/** `total` bytes: a PNG followed by zeros, produced in 64 KiB chunks, never as one buffer. */
async function* pngPaddedTo(total: number): AsyncGenerator<Buffer> {
  const head = png()
  yield head
  const zeros = Buffer.alloc(64 * 1024)
  for (let left = total - head.length; left > 0; left -= zeros.length) {
    yield left >= zeros.length ? zeros : zeros.subarray(0, left)
  }
}

// --- HTTP helpers ---------------------------------------------------------

/** Path and query of an embedded upload_url (it points at PUBLIC_BASE_URL). */
function pathOf(uploadUrl: string): string {
  assert.ok(uploadUrl.startsWith(`${PUBLIC_BASE_URL}/v1/uploads/`), uploadUrl)
  return uploadUrl.slice(PUBLIC_BASE_URL.length)
}

interface PutResult {
  status?: number
  headers?: IncomingHttpHeaders
  body?: string
  error?: Error
}

/**
 * A real HTTP PUT whose body is streamed with backpressure. Writing stops as
 * soon as the server answers. Without a body the headers go out alone and the
 * request is never ended: the answer must come without the body. No answer
 * within 15 s is a result too (an error), not a hanging test.
 */
function httpPut(
  url: string,
  headers: OutgoingHttpHeaders,
  body?: AsyncIterable<Buffer>,
): Promise<PutResult> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'PUT', headers, agent: false })
    let answered = false
    let settled = false
    const timer = setTimeout(() => finish({ error: new Error('no answer within 15 s') }), 15_000)
    const finish = (result: PutResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      resolve(result)
    }
    req.on('response', (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        finish({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      )
      res.on('error', (error) => finish({ status: res.statusCode, error }))
    })
    // A server that answered and closed may reset our last writes; give its answer time to arrive.
    req.on('error', (error) => setTimeout(() => finish({ error }), 200))
    if (!body) {
      req.flushHeaders()
      return
    }
    void (async () => {
      for await (const part of body) {
        if (answered || req.destroyed) return
        if (!req.write(part)) {
          await new Promise<void>((go) => {
            const done = () => {
              req.off('drain', done)
              req.off('close', done)
              go()
            }
            req.on('drain', done)
            req.on('close', done)
          })
        }
      }
      if (!req.destroyed) req.end()
    })()
  })
}

/** Every file below a directory, relative paths, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort()
}

// --- the suite, once per storage -------------------------------------------

type Slot = {
  upload_id: string
  filename: string
  upload_url: string
  method: string
  expires_in_seconds: number
  max_bytes: number
}
type FileRef = { upload_id: string; role?: string }

for (const variant of storageVariants()) {
  const embedded = variant.name === 'embedded'

  describe(`upload lifecycle on ${variant.name} storage`, () => {
    let ts: TestStorage
    let t: TestApp
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    let other: Awaited<ReturnType<TestApp['tenant']>>
    before(async () => {
      ts = await variant.start()
      t = await createTestApp({ storage: ts.storage })
      tenant = await t.tenant('Uploads Inc')
      other = await t.tenant('Other Org')
    })
    after(async () => {
      await t.close()
      await ts.close()
    })

    async function createSlot(app: TestApp, key: string, filename = 'artwork.png'): Promise<Slot> {
      const res = await app.api(key, 'POST', '/v1/uploads', { filename })
      assert.equal(res.statusCode, 201, res.body)
      return res.json().data
    }

    /** The PUT to upload_url, without Authorization: to the service (embedded) or the bucket (S3). */
    async function put(
      app: TestApp,
      slot: Slot,
      bytes: Buffer,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: string }> {
      if (embedded) {
        const res = await app.app.inject({
          method: 'PUT',
          url: pathOf(slot.upload_url),
          payload: bytes,
          headers,
        })
        return { status: res.statusCode, body: res.body }
      }
      const res = await fetch(slot.upload_url, { method: 'PUT', body: new Uint8Array(bytes), headers })
      return { status: res.status, body: await res.text() }
    }

    async function upload(app: TestApp, key: string, bytes: Buffer, filename = 'artwork.png'): Promise<Slot> {
      const slot = await createSlot(app, key, filename)
      const res = await put(app, slot, bytes)
      assert.ok(res.status >= 200 && res.status < 300, `PUT answered ${res.status} ${res.body}`)
      return slot
    }

    const uploadRow = (id: string, app: TestApp = t) =>
      app.db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst()

    function orderWith(files: FileRef[], more: Record<string, unknown> = {}) {
      return orderBody({ items: [{ sku: 'POSTER-A2', name: 'Poster', quantity: 1, files }], ...more })
    }

    async function download(app: TestApp, orderId: string, uploadId: string) {
      return app.admin('GET', `/admin/v1/orders/${orderId}/files/${uploadId}`)
    }

    async function counts(orgId: string) {
      const [orders, events] = await Promise.all([
        t.db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgId)
          .executeTakeFirstOrThrow(),
        t.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgId)
          .executeTakeFirstOrThrow(),
      ])
      return { orders: Number(orders.n), events: Number(events.n) }
    }

    describe('POST /v1/uploads', () => {
      test('returns 201 with exactly the slot fields; the row belongs to the key', async () => {
        for (const [key, environment] of [
          [tenant.testKey, 'test'],
          [tenant.liveKey, 'live'],
        ] as const) {
          const res = await t.api(key, 'POST', '/v1/uploads', { filename: 'front side.png' })
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
          assert.equal(row.organization_id, tenant.orgId)
          assert.equal(row.environment, environment)
          assert.equal(row.filename, 'front_side.png')
          assert.equal(row.stored_at, null)
          assert.equal(row.referenced_at, null)
          assert.equal(row.size_bytes, null)
          assert.equal(row.content_type, null)
          assert.equal(row.url_expires_at.getTime() - row.created_at.getTime(), TTL_S * 1000)

          if (embedded) {
            const match = new RegExp(
              `^${PUBLIC_BASE_URL}/v1/uploads/${slot.upload_id}/content\\?expires=(\\d+)&signature=[0-9a-f]{64}$`,
            ).exec(slot.upload_url)
            assert.ok(match, slot.upload_url)
            assert.equal(Number(match[1]), Math.floor(row.url_expires_at.getTime() / 1000))
          } else {
            assert.ok(slot.upload_url.startsWith(`${ts.endpoint}/${S3_BUCKET}/`), slot.upload_url)
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
          const res = await t.api(tenant.testKey, 'POST', '/v1/uploads', { filename: raw })
          assert.equal(res.statusCode, 201, `${JSON.stringify(raw)}: ${res.body}`)
          const slot = res.json().data as Slot
          assert.equal(slot.filename, want, JSON.stringify(raw))
          assert.ok(slot.filename.length <= 120)
          assert.equal((await uploadRow(slot.upload_id))?.filename, want)
        }
      })

      test('missing, empty or non-string filename: 422 validation_failed, nothing stored', async () => {
        const before = await t.db
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
          const res = await t.api(tenant.testKey, 'POST', '/v1/uploads', payload)
          const error = assertError(res, 422, 'validation_failed')
          assert.deepEqual(
            error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
            [[code, 'filename']],
            JSON.stringify(payload),
          )
        }
        const res = await t.api(tenant.testKey, 'POST', '/v1/uploads', { filename: 'a.png', size: 3 })
        const error = assertError(res, 422, 'validation_failed')
        assert.ok(error.errors.some((e: { code: string }) => e.code === 'unknown_field'))
        const afterwards = await t.db
          .selectFrom('uploads')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
        assert.equal(Number(afterwards.n), Number(before.n))
      })

      test('needs the files:write scope', async () => {
        const { key } = await t.createKey(tenant.orgId, { scopes: ['orders:write', 'orders:read'] })
        assertError(await t.api(key, 'POST', '/v1/uploads', { filename: 'a.png' }), 403, 'insufficient_scope')
        assertError(
          await t.api(undefined, 'POST', '/v1/uploads', { filename: 'a.png' }),
          401,
          'invalid_api_key',
        )
      })
    })

    describe('PUT, order, operator view and download', () => {
      test('PUT without Authorization stores; the order shows {name, role}; the operator gets the bytes', async () => {
        const bytes = png()
        const slot = await createSlot(t, tenant.liveKey, 'Front Side.png')
        const putRes = await put(t, slot, bytes, { 'content-type': 'application/octet-stream' })
        assert.ok(putRes.status >= 200 && putRes.status < 300, putRes.body)
        if (embedded) {
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), bytes.length)
          assert.ok(row?.stored_at)
          assert.equal(row?.referenced_at, null)
          assert.deepEqual(await ts.storage.read(row!.storage_key), bytes)
        }
        const pdf = await upload(t, tenant.liveKey, PDF, 'back.pdf')

        const body = orderWith([{ upload_id: slot.upload_id, role: 'front' }, { upload_id: pdf.upload_id }])
        const res = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
        assert.equal(res.statusCode, 201, res.body)
        const { order } = res.json().data
        assert.deepEqual(order.items[0].files, [
          { name: 'Front_Side.png', role: 'front' },
          { name: 'back.pdf', role: null },
        ])
        for (const f of order.items[0].files) assert.deepEqual(Object.keys(f).sort(), ['name', 'role'])
        const fetched = await t.api(tenant.liveKey, 'GET', `/v1/orders/${order.id}`)
        assert.equal(fetched.statusCode, 200, fetched.body)
        assert.deepEqual(fetched.json().data.order.items[0].files, order.items[0].files)

        const view = await t.admin('GET', `/admin/v1/orders/${order.id}`)
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

        const file = await download(t, order.id, slot.upload_id)
        assert.equal(file.statusCode, 200)
        assert.deepEqual(file.rawPayload, bytes)
        assert.equal(file.headers['content-type'], 'image/png')
        assert.match(String(file.headers['content-disposition']), /^attachment\b/)
        assert.equal(file.headers['x-content-type-options'], 'nosniff')
        assert.equal(Number(file.headers['content-length']), bytes.length)
        const second = await download(t, order.id, pdf.upload_id)
        assert.equal(second.statusCode, 200)
        assert.deepEqual(second.rawPayload, PDF)
        assert.equal(second.headers['content-type'], 'application/pdf')

        const row = await uploadRow(slot.upload_id)
        assert.ok(row?.referenced_at, 'referenced from now on')
        assert.equal(row?.content_type, 'image/png')
        assert.equal(Number(row?.size_bytes), bytes.length)

        // Files of other orders, or unknown ids, are not served through this order.
        const unrelated = await upload(t, tenant.liveKey, png())
        assertError(await download(t, order.id, unrelated.upload_id), 404, 'not_found')
        assertError(await download(t, order.id, randomUUID()), 404, 'not_found')
      })

      test('a repeated PUT replaces the bytes while unreferenced', async () => {
        const slot = await upload(t, tenant.testKey, png(), 'art.png')
        const res = await put(t, slot, PDF)
        assert.ok(res.status >= 200 && res.status < 300, res.body)
        if (ts.root) {
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), PDF.length)
          // The replaced bytes are gone: one object for this upload.
          const objects = (await listFiles(ts.root)).filter((f) => f.includes(slot.upload_id))
          assert.equal(objects.length, 1, objects.join())
        }
        const created = await t.api(
          tenant.testKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: slot.upload_id }]),
        )
        assert.equal(created.statusCode, 201, created.body)
        const { order } = created.json().data
        const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
        assert.equal(view.items[0].files[0].content_type, 'application/pdf')
        assert.equal(view.items[0].files[0].size_bytes, PDF.length)
        const file = await download(t, order.id, slot.upload_id)
        assert.deepEqual(file.rawPayload, PDF)
        assert.equal(file.headers['content-type'], 'application/pdf')
      })

      test('after an accepted order references the upload, a PUT changes nothing the order holds', async () => {
        const original = png([1, 2, 3])
        const slot = await upload(t, tenant.testKey, original)
        const created = await t.api(
          tenant.testKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: slot.upload_id }]),
        )
        assert.equal(created.statusCode, 201, created.body)
        const orderId = created.json().data.order.id
        const rowBefore = await uploadRow(slot.upload_id)
        const filesBefore = ts.root ? await listFiles(ts.root) : []

        const res = await put(t, slot, PDF)
        if (!embedded) assert.equal(res.status, 200, 'the bucket took the new bytes')
        if (embedded) {
          assertErrorText(res.status, res.body, 409, 'upload_already_referenced')
          assert.deepEqual(await listFiles(ts.root!), filesBefore, 'no new file kept')
        }
        // S3: the presigned URL still accepts bytes until it expires, but the order
        // holds a copy no slot URL reaches.
        assert.deepEqual(await uploadRow(slot.upload_id), rowBefore)
        const file = await download(t, orderId, slot.upload_id)
        assert.equal(file.statusCode, 200)
        assert.deepEqual(file.rawPayload, original)
        assert.equal(file.headers['content-type'], 'image/png')
      })
    })

    describe('file checks at order acceptance', () => {
      test('unusable files: 422 with file_not_found in errors[], nothing stored, uploads stay usable', async () => {
        const good = await upload(t, tenant.liveKey, png())
        const good2 = await upload(t, tenant.liveKey, PDF, 'b.pdf')
        const foreign = await upload(t, other.liveKey, png())
        const otherEnvironment = await upload(t, tenant.testKey, png())
        const neverPut = await createSlot(t, tenant.liveKey)
        const empty = await upload(t, tenant.liveKey, Buffer.alloc(0), 'empty.png')
        const truncated = await upload(t, tenant.liveKey, png().subarray(0, 3), 'cut.png')
        const bad: [string, string][] = [
          ['unknown upload_id', randomUUID()],
          ["another organization's upload", foreign.upload_id],
          ["the other environment's upload", otherEnvironment.upload_id],
          ['a slot never PUT', neverPut.upload_id],
          ['an empty file', empty.upload_id],
          ['a truncated file', truncated.upload_id],
        ]
        const externalId = `EXT-${hex()}`
        const before = await counts(tenant.orgId)
        const goodRowBefore = await uploadRow(good.upload_id)
        for (const [what, id] of bad) {
          const res = await t.api(
            tenant.liveKey,
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
        const several = await t.api(
          tenant.liveKey,
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
        assert.deepEqual(await counts(tenant.orgId), before)
        assert.equal(
          (await t.db.selectFrom('orders').select('id').where('external_order_id', '=', externalId).execute())
            .length,
          0,
        )
        assert.deepEqual(await uploadRow(good.upload_id), goodRowBefore)
        assert.equal((await uploadRow(foreign.upload_id))?.referenced_at, null)
        assert.equal((await uploadRow(otherEnvironment.upload_id))?.referenced_at, null)

        // The resend with a fixed file list is accepted.
        const fixed = await t.api(
          tenant.liveKey,
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
        const now = await counts(tenant.orgId)
        assert.deepEqual(now, { orders: before.orders + 1, events: before.events + 1 })

        // The other organization's and the test environment's uploads still work for their owners.
        for (const [key, id] of [
          [other.liveKey, foreign.upload_id],
          [tenant.testKey, otherEnvironment.upload_id],
        ] as const) {
          const res = await t.api(key, 'POST', '/v1/orders', orderWith([{ upload_id: id }]))
          assert.equal(res.statusCode, 201, res.body)
        }
      })

      test('duplicate detection includes the upload ids', async () => {
        const first = await upload(t, tenant.liveKey, png())
        const second = await upload(t, tenant.liveKey, png())
        const body = orderWith([{ upload_id: first.upload_id, role: 'front' }])
        const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
        assert.equal(created.statusCode, 201, created.body)
        const before = await counts(tenant.orgId)

        const repeat = await t.api(tenant.liveKey, 'POST', '/v1/orders', body)
        assert.equal(repeat.statusCode, 200, repeat.body)
        assert.equal(repeat.json().data.order.id, created.json().data.order.id)
        assert.deepEqual(repeat.json().data.warnings, [])

        // The same order, only the upload_id differs.
        const changed = orderWith([{ upload_id: second.upload_id, role: 'front' }], {
          external_order_id: body.external_order_id,
        })
        assertError(
          await t.api(tenant.liveKey, 'POST', '/v1/orders', changed),
          409,
          'order_already_exists_with_different_content',
        )
        assert.deepEqual(await counts(tenant.orgId), before)
        assert.equal((await uploadRow(second.upload_id))?.referenced_at, null, 'the new upload stays unused')
        const elsewhere = await t.api(
          tenant.liveKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: second.upload_id }]),
        )
        assert.equal(elsewhere.statusCode, 201, elsewhere.body)
      })

      if (!embedded) {
        test('an object over 52428800 bytes in the bucket is file_not_found at acceptance', async () => {
          // A presigned PUT cannot bind an unknown size, so the limit is enforced when the order comes.
          const slot = await createSlot(t, tenant.testKey)
          const big = new Uint8Array(MAX_BYTES + 1)
          big.set(png())
          const res = await fetch(slot.upload_url, { method: 'PUT', body: big })
          assert.equal(res.status, 200)
          const order = await t.api(
            tenant.testKey,
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

    describe('with an injected clock', () => {
      const RETENTION_S = 86_400
      // S3 presigned URLs expire by the real clock: start the manual clock now.
      // The tests of this block run in order on one clock; each moves it forward.
      const clock = manualClock(new Date())
      let c: TestApp
      let ct: Awaited<ReturnType<TestApp['tenant']>>
      before(async () => {
        c = await createTestApp({ clock, storage: ts.storage, uploadRetentionS: RETENTION_S })
        ct = await c.tenant('Clocked')
      })
      after(() => c.close())

      test('unreferenced files expire after UPLOAD_RETENTION_S; the sweeper removes them; referenced files never expire', async () => {
        const sweeper = createUploadService({
          db: c.db,
          clock,
          storage: ts.storage,
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
        assert.ok(await ts.storage.head(staleRow.storage_key, 8), 'bytes are there until the sweep')

        assert.equal(await sweeper.sweep(), 2)
        assert.equal(await uploadRow(stale.upload_id, c), undefined)
        assert.equal(await uploadRow(neverPut.upload_id, c), undefined)
        assert.equal(await ts.storage.head(staleRow.storage_key, 8), undefined, 'bytes removed')
        if (ts.root) {
          const left = (await listFiles(ts.root)).filter((f) => f.includes(stale.upload_id))
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

      if (embedded) {
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
          assert.deepEqual(await ts.storage.read(row!.storage_key), png())

          const fresh = await createSlot(c, ct.testKey)
          clock.advance((TTL_S + 1) * 1000)
          const never = await put(c, fresh, png())
          assertErrorText(never.status, never.body, 403, 'upload_url_invalid')
          assert.equal((await uploadRow(fresh.upload_id, c))?.stored_at, null)
        })
      }
    })

    describe('two instances sharing the database and the storage', () => {
      let b: TestApp
      before(async () => {
        b = await createTestApp({
          testDb: t.testDb,
          ...(DIALECT === 'postgres' ? { db: await t.testDb.openAnother() } : {}),
          storage: ts.another(),
        })
      })
      after(() => b.close())

      test("each instance accepts the other's uploads", async () => {
        const bytes = png([4, 5, 6])
        // Slot from A, bytes through A's URL (S3: the bucket), order on B.
        const fromA = await createSlot(t, tenant.liveKey, 'a.png')
        const putA = await put(t, fromA, bytes)
        assert.ok(putA.status >= 200 && putA.status < 300, putA.body)
        const onB = await b.api(
          tenant.liveKey,
          'POST',
          '/v1/orders',
          orderWith([{ upload_id: fromA.upload_id }]),
        )
        assert.equal(onB.statusCode, 201, onB.body)
        const orderB = onB.json().data.order.id
        for (const app of [b, t]) {
          const file = await download(app, orderB, fromA.upload_id)
          assert.equal(file.statusCode, 200)
          assert.deepEqual(file.rawPayload, bytes)
          assert.equal(file.headers['content-type'], 'image/png')
        }

        // Slot from B, bytes through A (embedded: one signing key for the deployment), order on A.
        const fromB = await createSlot(b, tenant.liveKey, 'b.pdf')
        const putB = await put(t, fromB, PDF)
        assert.ok(putB.status >= 200 && putB.status < 300, putB.body)
        const onA = await t.api(
          tenant.liveKey,
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

    if (embedded) {
      describe('the signed URL of embedded storage', () => {
        let base: string
        before(async () => {
          await t.app.listen({ host: '127.0.0.1', port: 0 })
          base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
        })
        const realUrl = (slot: Slot) => base + pathOf(slot.upload_url)
        const root = () => ts.root!
        const inject = (app: FastifyInstance, url: string, payload: Buffer = png()) =>
          app.inject({ method: 'PUT', url, payload, headers: { 'content-type': 'application/octet-stream' } })

        test('bad signature, tampered expires, unknown slot: 403 upload_url_invalid, nothing stored', async () => {
          const slot = await createSlot(t, tenant.testKey)
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
            assertError(await inject(t.app, path), 403, 'upload_url_invalid')
          }
          // Another slot's valid signature does not open this one.
          const otherSlot = new URL((await createSlot(t, tenant.testKey)).upload_url)
          assertError(
            await inject(
              t.app,
              `/v1/uploads/${id}/content?expires=${otherSlot.searchParams.get('expires')}&signature=${otherSlot.searchParams.get('signature')}`,
            ),
            403,
            'upload_url_invalid',
          )
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.equal((await uploadRow(id))?.stored_at, null)
          // The genuine URL still works afterwards.
          assert.equal((await inject(t.app, pathOf(slot.upload_url))).statusCode, 200)
        })

        test('any Content-Type is taken as raw bytes', async () => {
          const csv = Buffer.from('sku,qty\nMUG-01,2\n')
          for (const contentType of ['text/plain', 'application/json', 'text/csv', 'image/png']) {
            const slot = await createSlot(t, tenant.testKey, 'list.csv')
            const res = await t.app.inject({
              method: 'PUT',
              url: pathOf(slot.upload_url),
              payload: csv,
              headers: { 'content-type': contentType },
            })
            assert.equal(res.statusCode, 200, `${contentType}: ${res.body}`)
            const row = await uploadRow(slot.upload_id)
            assert.equal(Number(row?.size_bytes), csv.length, contentType)
            assert.deepEqual(await ts.storage.read(row!.storage_key), csv)
          }
        })

        test('exactly 52428800 bytes, streamed, are accepted', async () => {
          const slot = await createSlot(t, tenant.testKey, 'big.png')
          const res = await httpPut(
            realUrl(slot),
            { 'content-length': MAX_BYTES, 'content-type': 'image/png' },
            pngPaddedTo(MAX_BYTES),
          )
          assert.equal(res.status, 200, res.body ?? String(res.error))
          const row = await uploadRow(slot.upload_id)
          assert.equal(Number(row?.size_bytes), MAX_BYTES)
          const head = await ts.storage.head(row!.storage_key, 64)
          assert.equal(head?.size, MAX_BYTES)
          assert.deepEqual(head?.head.subarray(0, 8), png().subarray(0, 8))
          const order = await t.api(
            tenant.testKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: slot.upload_id }]),
          )
          assert.equal(order.statusCode, 201, order.body)
          const view = (await t.admin('GET', `/admin/v1/orders/${order.json().data.order.id}`)).json().data
            .order
          assert.equal(view.items[0].files[0].size_bytes, MAX_BYTES)
          assert.equal(view.items[0].files[0].content_type, 'image/png')
        })

        test('52428801 bytes streamed: 413 upload_too_large, nothing kept, earlier bytes intact', async () => {
          // A fresh slot: no file appears and the upload stays without bytes.
          const fresh = await createSlot(t, tenant.testKey)
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
          const order = await t.api(
            tenant.testKey,
            'POST',
            '/v1/orders',
            orderWith([{ upload_id: fresh.upload_id }]),
          )
          assert.equal(assertError(order, 422, 'validation_failed').errors[0].code, 'file_not_found')

          // A slot with an earlier upload keeps those bytes.
          const original = png([7, 7, 7])
          const slot = await upload(t, tenant.testKey, original)
          const rowBefore = await uploadRow(slot.upload_id)
          filesBefore = await listFiles(root())
          res = await httpPut(realUrl(slot), { 'transfer-encoding': 'chunked' }, pngPaddedTo(MAX_BYTES + 1))
          assertErrorText(res.status, res.body, 413, 'upload_too_large')
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.deepEqual(await uploadRow(slot.upload_id), rowBefore)
          assert.deepEqual(await ts.storage.read(rowBefore!.storage_key), original)
        })

        test('a Content-Length over the limit is refused before the body is read', async () => {
          const slot = await createSlot(t, tenant.testKey)
          const filesBefore = await listFiles(root())
          // Only the headers are sent; the answer must come without the body.
          const res = await httpPut(realUrl(slot), { 'content-length': MAX_BYTES + 1 })
          assertErrorText(res.status, res.body, 413, 'upload_too_large')
          assert.equal(res.headers?.connection, 'close')
          assert.deepEqual(await listFiles(root()), filesBefore)
          assert.equal((await uploadRow(slot.upload_id))?.stored_at, null)
          // Through inject as well (the whole over-limit body is offered).
          const injected = await t.app.inject({
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
          const slot = await upload(t, tenant.testKey, original)
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
          assert.deepEqual(await ts.storage.read(rowBefore!.storage_key), original)

          // The same on a slot that never got bytes: no object, no stored row.
          const fresh = await createSlot(t, tenant.testKey)
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
    }
  })
}
