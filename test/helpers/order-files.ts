import assert from 'node:assert/strict'
import type { TestApp } from './app.ts'
import { PDF, pathOf, png } from './uploads.ts'

export { PDF, png }

/** An SVG with what the sanitizer removes: a script and an inline event handler. */
export const HOSTILE_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="alert(1)">' +
    '<script>alert(2)</script><rect width="40" height="40" fill="#2f6fdf"/></svg>',
)

/** Markup a page must show as text. */
export const MARKUP = '<img src=x onerror=alert(1)>'

/** A file uploaded through /v1 (slot, then the signed PUT to the embedded storage); its upload_id. */
export async function uploadFile(t: TestApp, key: string, bytes: Buffer, filename: string): Promise<string> {
  const slot = await t.api(key, 'POST', '/v1/uploads', { filename })
  assert.equal(slot.statusCode, 201, slot.body)
  const { upload_url, upload_id } = slot.json().data as { upload_url: string; upload_id: string }
  const put = await t.app.inject({ method: 'PUT', url: pathOf(upload_url), payload: bytes })
  assert.ok(put.statusCode >= 200 && put.statusCode < 300, `PUT answered ${put.statusCode} ${put.body}`)
  return upload_id
}

/** An order created through /v1 that must be accepted; its id and warnings. */
export async function createOrder(t: TestApp, key: string, body: Record<string, unknown>) {
  const res = await t.api(key, 'POST', '/v1/orders', body)
  assert.equal(res.statusCode, 201, res.body)
  const data = res.json().data as { order: { id: string }; warnings: { code: string; value?: string }[] }
  return { id: data.order.id, warnings: data.warnings }
}
