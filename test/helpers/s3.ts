import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLocalStorage } from '../../src/modules/uploads/storage/local.ts'
import { createS3Storage } from '../../src/modules/uploads/storage/s3.ts'
import type { FileStorage } from '../../src/modules/uploads/storage/storage.ts'

/** The part of s3rver (CommonJS, untyped) the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>
  close(): Promise<void>
}
type S3rverClass = new (options: {
  address: string
  port: number
  directory: string
  silent: boolean
  configureBuckets: { name: string }[]
}) => S3rverInstance

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass

export const S3_BUCKET = 'uploads'

/** File storage for one test app, with what the tests need to look behind it. */
export interface TestStorage {
  storage: FileStorage
  /** Embedded storage: its root directory (objects/ and tmp/ below it). */
  root?: string
  /** S3: the in-process server's address, e.g. http://127.0.0.1:40123. */
  endpoint?: string
  /** Another storage client on the same files or bucket, as a second instance would have. */
  another(): FileStorage
  close(): Promise<void>
}

/**
 * An S3-protocol server (s3rver) in this process on 127.0.0.1, a free port and
 * a temporary directory, with one bucket, and the service's S3 storage on it.
 *
 * s3rver checks the expiry of presigned URLs but not their V4 signatures, so
 * signature checks are tested against embedded storage only.
 */
export async function startS3Storage(): Promise<TestStorage> {
  const directory = await mkdtemp(join(tmpdir(), 'svc-s3rver-'))
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: S3_BUCKET }],
  })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const clients: FileStorage[] = []
  const client = () => {
    const storage = createS3Storage({
      bucket: S3_BUCKET,
      endpoint,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    })
    clients.push(storage)
    return storage
  }
  return {
    storage: client(),
    endpoint,
    another: client,
    async close() {
      for (const c of clients) await c.close?.()
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/** Embedded storage in a fresh temporary directory the tests can inspect. */
export async function startEmbeddedStorage(): Promise<TestStorage> {
  const root = await mkdtemp(join(tmpdir(), 'svc-files-'))
  return {
    storage: createLocalStorage({ root }),
    root,
    another: () => createLocalStorage({ root }),
    close: () => rm(root, { recursive: true, force: true }),
  }
}

export type StorageVariantName = 'embedded' | 's3'

/** Both storages, so one suite runs against each: `for (const v of storageVariants()) describe(v.name, ...)`. */
export function storageVariants(): { name: StorageVariantName; start(): Promise<TestStorage> }[] {
  return [
    { name: 'embedded', start: startEmbeddedStorage },
    { name: 's3', start: startS3Storage },
  ]
}
