import type { Readable } from 'node:stream'

/**
 * Where upload bytes live. Two implementations: files under DATA_DIR (the
 * service receives the PUT itself) and an S3-compatible bucket (the client PUTs
 * to a presigned URL and the service reads the object at acceptance).
 */
export interface FileStorage {
  readonly kind: 'local' | 's3'
  /**
   * A presigned address on the object store the client PUTs the bytes to.
   * Embedded storage has none: the service signs its own URL.
   */
  presignedPutUrl?(key: string, expiresAt: Date): Promise<string>
  /** The first `bytes` bytes and the total size, or undefined when there is no such object. */
  head(key: string, bytes: number): Promise<{ head: Buffer; size: number } | undefined>
  read(key: string): Promise<Buffer>
  write(key: string, data: Buffer): Promise<void>
  /** A server-side copy (S3 freezes accepted objects this way). */
  copy(from: string, to: string): Promise<void>
  stream(key: string): Promise<Readable>
  delete(key: string): Promise<void>
  close?(): Promise<void>
}

export const MAX_UPLOAD_BYTES = 52_428_800
