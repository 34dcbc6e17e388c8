import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  CreateBatchBody,
  FailBatchBody,
} from '../../src/modules/production/batches/batches.console.schemas.ts'
import { BATCH_MAX_ORDERS } from '../../src/modules/production/batches/batches.service.ts'
import { qrPayload, readQrPayload } from '../../web/src/features/production/lib/qr-payloads.ts'
import { BATCH_LIMITS } from '../../web/src/lib/limits.ts'

const id = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'

test("the sheets' QR codes carry batch:, po: and job: with the id, and read back to what they name", () => {
  assert.equal(qrPayload.batch(id), `batch:${id}`)
  assert.equal(qrPayload.productionOrder(id), `po:${id}`)
  assert.equal(qrPayload.job(id), `job:${id}`)
  assert.deepEqual(readQrPayload(qrPayload.batch(id)), { kind: 'batch', id })
  assert.deepEqual(readQrPayload(` ${qrPayload.productionOrder(id)}\n`), { kind: 'po', id })
  assert.deepEqual(readQrPayload(`JOB:${id.toUpperCase()}`), { kind: 'job', id })
})

test('a scanned code that names nothing of these reads as null', () => {
  for (const text of [id, `order:${id}`, 'po:', `po:${id}x`, `po:${id.slice(1)}`, `po: ${id}`, '']) {
    assert.equal(readQrPayload(text), null, JSON.stringify(text))
  }
})

test("the batch forms' limits are the service's", () => {
  const name = CreateBatchBody.properties.name as unknown as { minLength: number; maxLength: number }
  assert.deepEqual(BATCH_LIMITS.name, { min: name.minLength, max: name.maxLength })
  const select = CreateBatchBody.properties.select as unknown as {
    properties: { sku: { minLength: number; maxLength: number } }
  }
  const sku = select.properties.sku
  assert.deepEqual(BATCH_LIMITS.sku, { min: sku.minLength, max: sku.maxLength })
  const reason = FailBatchBody.properties.reason as unknown as { maxLength: number }
  assert.deepEqual(BATCH_LIMITS.reason, { max: reason.maxLength })
  assert.equal(BATCH_LIMITS.orders, BATCH_MAX_ORDERS)
})
