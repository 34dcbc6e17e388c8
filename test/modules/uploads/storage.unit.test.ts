import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import { text } from 'node:stream/consumers'
import { after, before, describe, test } from 'node:test'
import type { FileStorage } from '../../../src/modules/uploads/storage/storage.ts'
import { storageVariants, type TestStorage } from '../../helpers/s3.ts'

/**
 * The FileStorage contract the upload service relies on, for each
 * implementation: the service never asks which one it has.
 */
for (const variant of storageVariants()) {
  describe(`FileStorage: ${variant.name}`, () => {
    let ts: TestStorage
    let storage: FileStorage
    before(async () => {
      ts = await variant.start()
      storage = ts.storage
    })
    after(() => ts.close())

    const slot = (uploadId = randomUUID()) => ({
      uploadId,
      expiresAt: new Date(Date.now() + 60_000),
      signedServiceUrl: async () => `http://api.test/v1/uploads/${uploadId}/content?signed`,
    })

    test('a new slot gets a key of its own and an address to PUT to; nothing is stored yet', async () => {
      const a = await storage.createUploadUrl(slot())
      const b = await storage.createUploadUrl(slot())
      assert.notEqual(a.key, b.key)
      assert.equal(await storage.head(a.key, 8), undefined)
      if (storage.receivePut) {
        assert.match(
          a.url,
          /^http:\/\/api\.test\/v1\/uploads\/[^/]+\/content\?signed$/,
          'the service receives it',
        )
      } else {
        assert.match(a.url, new RegExp(`^${ts.endpoint}/`), 'the object store receives it')
      }
    })

    test('bytes written are read back whole, in part, and as a stream; delete removes them', async () => {
      const key = `uploads/${randomUUID()}/object`
      await storage.write(key, Buffer.from('hello, storage'))
      assert.deepEqual(await storage.head(key, 5), { head: Buffer.from('hello'), size: 14 })
      assert.equal((await storage.read(key)).toString(), 'hello, storage')
      assert.equal(await text(await storage.open(key)), 'hello, storage')
      await storage.delete(key)
      assert.equal(await storage.head(key, 5), undefined)
    })

    test('deleting an object that was never written succeeds (the sweeper relies on it)', async () => {
      const { key } = await storage.createUploadUrl(slot())
      await storage.delete(key)
      await storage.delete(`uploads/${randomUUID()}/none`)
    })

    test('freeze keeps the bytes at a key no later PUT to the slot can change', async () => {
      const key = `uploads/${randomUUID()}/slot`
      await storage.write(key, Buffer.from('accepted'))
      const frozenKey = `uploads/${randomUUID()}/accepted`
      const kept = await storage.freeze(key, frozenKey)
      assert.ok(kept === key || kept === frozenKey)
      if (storage.receivePut) {
        assert.equal(kept, key, 'objects of a storage that receives PUTs never change: nothing to copy')
      } else {
        assert.equal(kept, frozenKey, 'a presigned URL could still replace the slot: copied')
        await storage.write(key, Buffer.from('replaced'))
      }
      assert.equal((await storage.read(kept)).toString(), 'accepted')
    })

    if (variant.name !== 'embedded') return
    test('embedded storage receives PUTs: streamed to a new object, refused past the limit', async () => {
      const receivePut = storage.receivePut
      assert.ok(receivePut)
      const key = `uploads/${randomUUID()}/put`
      assert.equal(await receivePut(key, Readable.from([Buffer.from('abc'), Buffer.from('def')]), 6), 6)
      assert.equal((await storage.read(key)).toString(), 'abcdef')
      const tooLarge = `uploads/${randomUUID()}/put`
      await assert.rejects(receivePut(tooLarge, Readable.from([Buffer.alloc(4), Buffer.alloc(4)]), 6), {
        code: 'upload_too_large',
      })
      assert.equal(await storage.head(tooLarge, 1), undefined, 'nothing left behind')
    })
  })
}
