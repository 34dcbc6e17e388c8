import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { crc32, deflateSync } from 'node:zlib'
import { createTestApp, orderBody, PUBLIC_BASE_URL, type TestApp } from './app.ts'
import type { StorageVariantName, TestStorage } from './s3.ts'

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const MAX_BYTES = 52_428_800
export const TTL_S = 7200
export const SLOT_FIELDS = [
  'expires_in_seconds',
  'filename',
  'max_bytes',
  'method',
  'upload_id',
  'upload_url',
]
export const hex = () => randomBytes(4).toString('hex')

// --- file content ---------------------------------------------------------

export function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

/** A real 1x1 RGB PNG. */
export function png(rgb: [number, number, number] = [200, 30, 30]): Buffer {
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

export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
)

/** `total` bytes: a PNG followed by zeros, produced in 64 KiB chunks, never as one buffer. */
export async function* pngPaddedTo(total: number): AsyncGenerator<Buffer> {
  const head = png()
  yield head
  const zeros = Buffer.alloc(64 * 1024)
  for (let left = total - head.length; left > 0; left -= zeros.length) {
    yield left >= zeros.length ? zeros : zeros.subarray(0, left)
  }
}

// --- HTTP helpers ---------------------------------------------------------

/** Path and query of an embedded upload_url (it points at PUBLIC_BASE_URL). */
export function pathOf(uploadUrl: string): string {
  assert.ok(uploadUrl.startsWith(`${PUBLIC_BASE_URL}/v1/uploads/`), uploadUrl)
  return uploadUrl.slice(PUBLIC_BASE_URL.length)
}

export interface PutResult {
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
export function httpPut(
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
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort()
}

// --- the suite, once per storage -------------------------------------------

export type Slot = {
  upload_id: string
  filename: string
  upload_url: string
  method: string
  expires_in_seconds: number
  max_bytes: number
}
export type FileRef = { upload_id: string; role?: string }

type Tenant = Awaited<ReturnType<TestApp['tenant']>>

/** The app, storage and two organizations of one storage variant's upload tests (set before the tests run). */
export interface UploadSuite {
  embedded: boolean
  ts: TestStorage
  t: TestApp
  tenant: Tenant
  other: Tenant
}

/**
 * An app on one storage variant with two organizations, and the upload steps
 * its tests share. Call inside a describe: its hooks set up and take down.
 */
export function useUploadSuite(variant: { name: StorageVariantName; start(): Promise<TestStorage> }) {
  const u = { embedded: variant.name === 'embedded' } as UploadSuite
  before(async () => {
    u.ts = await variant.start()
    u.t = await createTestApp({ storage: u.ts.storage })
    u.tenant = await u.t.tenant('Uploads Inc')
    u.other = await u.t.tenant('Other Org')
  })
  after(async () => {
    await u.t.close()
    await u.ts.close()
  })

  async function createSlot(app: TestApp, key: string, filename = 'artwork.png'): Promise<Slot> {
    const res = await app.api(key, 'POST', '/v1/uploads', { filename })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data
  }

  /** The PUT to upload_url, without Authorization: to the service (u.embedded) or the bucket (S3). */
  async function put(
    app: TestApp,
    slot: Slot,
    bytes: Buffer,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: string }> {
    if (u.embedded) {
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

  const uploadRow = (id: string, app: TestApp = u.t) =>
    app.db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst()

  function orderWith(files: FileRef[], more: Record<string, unknown> = {}) {
    return orderBody({ items: [{ sku: 'POSTER-A2', name: 'Poster', quantity: 1, files }], ...more })
  }

  /** An order referencing these uploads (test environment unless `key`), which must be accepted. */
  async function acceptedOrder(files: FileRef[], key = u.tenant.testKey): Promise<{ id: string }> {
    const res = await u.t.api(key, 'POST', '/v1/orders', orderWith(files))
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.order
  }

  async function download(app: TestApp, orderId: string, uploadId: string) {
    return app.admin('GET', `/admin/v1/orders/${orderId}/files/${uploadId}`)
  }

  async function counts(orgId: string) {
    const [orders, events] = await Promise.all([
      u.t.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow(),
      u.t.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow(),
    ])
    return { orders: Number(orders.n), events: Number(events.n) }
  }
  return Object.assign(u, { createSlot, put, upload, uploadRow, orderWith, acceptedOrder, download, counts })
}
