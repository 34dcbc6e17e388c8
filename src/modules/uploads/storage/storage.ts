import type { Readable } from 'node:stream'

/** A slot being created: what a storage needs to say where its bytes go. */
export interface NewSlot {
  uploadId: string
  expiresAt: Date
  /** The service's own signed PUT address for the slot, for a storage that receives PUTs itself. */
  signedServiceUrl(): Promise<string>
}

/**
 * Where upload bytes live, as the upload service uses it. Two implementations:
 * files under DATA_DIR (the service receives the PUT itself) and an
 * S3-compatible bucket (the client PUTs to a presigned URL and the service
 * reads the object when an order references it).
 */
export interface FileStorage {
  /** The key a new slot's bytes are stored under and the URL the client PUTs them to. */
  createUploadUrl(slot: NewSlot): Promise<{ key: string; url: string }>
  /**
   * Only on a storage the service receives PUTs for (embedded storage): streams
   * a PUT's body into a new object `key`, never holding it in memory. More than
   * maxBytes fails with upload_too_large and leaves nothing behind. Resolves to
   * the size.
   */
  receivePut?(key: string, body: Readable, maxBytes: number): Promise<number>
  /** The first `bytes` bytes and the total size, or undefined when there is no such object. */
  head(key: string, bytes: number): Promise<{ head: Buffer; size: number } | undefined>
  read(key: string): Promise<Buffer>
  write(key: string, data: Buffer): Promise<void>
  /**
   * Keeps the bytes at `key` for an order, out of reach of later PUTs to the
   * slot's URL. Resolves to the key that holds them from now on: `frozenKey`
   * when they had to be copied there (an S3 presigned URL stays usable until it
   * expires), `key` itself when nothing can write to it again.
   */
  freeze(key: string, frozenKey: string): Promise<string>
  /** The object's bytes as a stream, for a download. */
  open(key: string): Promise<Readable>
  /** Removes the object; no error when there is none. */
  delete(key: string): Promise<void>
  close?(): Promise<void>
}

export const MAX_UPLOAD_BYTES = 52_428_800
