import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import { orderBody } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { storageVariants } from '../../helpers/s3.ts'
import { hex, MAX_BYTES, PDF, png, useUploadSuite } from '../../helpers/uploads.ts'

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
        assert.equal((await uploadRow(second.upload_id))?.referenced_at, null, 'the new upload stays unused')
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
