import type { Readable } from 'node:stream'
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { S3Config } from '../../../config.ts'
import type { FileStorage } from './storage.ts'

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException &&
  (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey')

/**
 * An S3-compatible bucket. The client PUTs straight to a presigned URL; the
 * service reads the object's first bytes with a ranged GET when an order
 * references it, and copies accepted objects to a key no slot URL can reach.
 */
export function createS3Storage(config: S3Config): FileStorage {
  const client = new S3Client({
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
    // Checksums only where the protocol needs them: presigned PUTs from plain
    // HTTP clients carry none, and S3-compatible servers vary in support.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  const Bucket = config.bucket

  return {
    // A fixed key per slot: the client PUTs to it directly, as often as it likes until the URL expires.
    async createUploadUrl(slot) {
      const key = `uploads/${slot.uploadId}/slot`
      const expiresIn = Math.max(1, Math.round((slot.expiresAt.getTime() - Date.now()) / 1000))
      const url = await getSignedUrl(client, new PutObjectCommand({ Bucket, Key: key }), { expiresIn })
      return { key, url }
    },

    async head(key, bytes) {
      let size: number
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }))
        size = Number(head.ContentLength ?? 0)
      } catch (err) {
        if (isMissing(err)) return undefined
        throw err
      }
      if (size === 0) return { head: Buffer.alloc(0), size }
      const object = await client.send(
        new GetObjectCommand({ Bucket, Key: key, Range: `bytes=0-${Math.min(bytes, size) - 1}` }),
      )
      const head = Buffer.from(await object.Body!.transformToByteArray())
      return { head: head.subarray(0, bytes), size }
    },

    async read(key) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key }))
      return Buffer.from(await object.Body!.transformToByteArray())
    },

    async write(key, data) {
      await client.send(new PutObjectCommand({ Bucket, Key: key, Body: data }))
    },

    // A server-side copy: the slot's presigned URL could otherwise replace the bytes until it expires.
    async freeze(key, frozenKey) {
      await client.send(
        new CopyObjectCommand({
          Bucket,
          Key: frozenKey,
          CopySource: `${Bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
        }),
      )
      return frozenKey
    },

    async open(key) {
      const object = await client.send(new GetObjectCommand({ Bucket, Key: key }))
      return object.Body as Readable
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }))
    },

    async close() {
      client.destroy()
    },
  }
}
