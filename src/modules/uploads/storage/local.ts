import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { AppError } from '../../../http/errors.ts'
import { newId } from '../../../lib/ids.ts'
import type { FileStorage } from './storage.ts'

/**
 * Files under DATA_DIR/files. Keys are relative paths made by the service
 * (never from client input). Writes go to a temporary file and are renamed into
 * place, so a reader sees the old bytes or the new ones, never half of them.
 * The service receives the PUTs itself, each into a new object, so an object
 * never changes once written.
 */
export function createLocalStorage(options: { root: string }): FileStorage {
  const root = options.root
  const path = (key: string) => join(root, 'objects', key)
  const tmp = () => join(root, 'tmp', `${newId()}.part`)

  async function placeFile(temp: string, key: string) {
    await mkdir(dirname(path(key)), { recursive: true })
    await rename(temp, path(key))
  }

  return {
    // No object until the first PUT: each PUT writes a new key of its own.
    async createUploadUrl(slot) {
      return { key: `uploads/${slot.uploadId}/none`, url: await slot.signedServiceUrl() }
    },

    async receivePut(key: string, body: Readable, maxBytes: number): Promise<number> {
      const temp = tmp()
      await mkdir(dirname(temp), { recursive: true })
      let size = 0
      try {
        await pipeline(
          body,
          async function* limit(source: AsyncIterable<Buffer>) {
            for await (const chunk of source) {
              size += chunk.length
              if (size > maxBytes) throw new AppError('upload_too_large')
              yield chunk
            }
          },
          // 1 MiB buffer: fewer, larger writes for multi-megabyte bodies.
          createWriteStream(temp, { flags: 'wx', highWaterMark: 1024 * 1024 }),
        )
        await placeFile(temp, key)
        return size
      } catch (err) {
        await rm(temp, { force: true })
        throw err
      }
    },

    async head(key: string, bytes: number) {
      let handle: Awaited<ReturnType<typeof open>>
      try {
        handle = await open(path(key), 'r')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw err
      }
      try {
        const { size } = await handle.stat()
        const buffer = Buffer.alloc(Math.min(bytes, size))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
        return { head: buffer.subarray(0, bytesRead), size }
      } finally {
        await handle.close()
      }
    },

    read: (key: string) => readFile(path(key)),

    async write(key: string, data: Buffer) {
      const temp = tmp()
      await mkdir(dirname(temp), { recursive: true })
      await writeFile(temp, data, { flag: 'wx' })
      await placeFile(temp, key)
    },

    // Objects never change after their PUT: nothing to copy.
    freeze: async (key: string) => key,

    async open(key: string) {
      return createReadStream(path(key))
    },

    async delete(key: string) {
      await rm(path(key), { force: true })
    },
  }
}
