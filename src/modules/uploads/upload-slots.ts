import { createHmac } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { Database } from '../../db/database.ts'
import type { Environment } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { secretsEqual } from '../../lib/secrets.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { sanitizeFilename } from './filename.ts'
import { declaresJson, isSerializedFile, jsonContentType, serializedFile } from './json-bodies.ts'
import { type FileStorage, MAX_UPLOAD_BYTES } from './storage/storage.ts'
import { findUpload, insertUpload, lockUpload, setStoredObject } from './uploads.repo.ts'

export interface UploadScope {
  organizationId: string
  environment: Environment
}

export interface UploadSlot {
  upload_id: string
  filename: string
  upload_url: string
  method: 'PUT'
  expires_in_seconds: number
  max_bytes: number
}

/** A signed PUT to the service itself, as it arrived. */
export interface ReceivedPut {
  uploadId: string
  expires: string | undefined
  signature: string | undefined
  contentLength: number | undefined
  /** The Content-Type header as sent. */
  contentType: string | undefined
  body: Readable
}

/** Upload slots: creating them, and receiving the PUTs of a storage that lets the service receive them. */
export function createUploadSlots(deps: {
  db: Database
  clock: Clock
  storage: FileStorage
  publicBaseUrl: string
  urlTtlSeconds: number
}) {
  const { db, clock, storage } = deps
  let signingKey: string | undefined

  /** One signing key for every instance of the deployment, kept in the database. */
  async function sign(uploadId: string, expires: number): Promise<string> {
    signingKey ??= await serviceSecret(db, 'upload_url_signing_key')
    return createHmac('sha256', signingKey).update(`${uploadId}.${expires}`).digest('hex')
  }

  /** The service's own signed address for a slot: HMAC over upload id and expiry. */
  async function signedServiceUrl(uploadId: string, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000)
    const signature = await sign(uploadId, expires)
    return `${deps.publicBaseUrl}/v1/uploads/${uploadId}/content?expires=${expires}&signature=${signature}`
  }

  async function createSlot(scope: UploadScope, rawFilename: string): Promise<UploadSlot> {
    const id = newId()
    const now = clock.now()
    const expiresAt = new Date(now.getTime() + deps.urlTtlSeconds * 1000)
    const filename = sanitizeFilename(rawFilename)
    const { key, url } = await storage.createUploadUrl({
      uploadId: id,
      expiresAt,
      signedServiceUrl: () => signedServiceUrl(id, expiresAt),
    })
    await insertUpload(db, {
      id,
      organization_id: scope.organizationId,
      environment: scope.environment,
      filename,
      storage_key: key,
      size_bytes: null,
      content_type: null,
      created_at: now,
      url_expires_at: expiresAt,
      stored_at: null,
      referenced_at: null,
      expired_at: null,
    })
    return {
      upload_id: id,
      filename,
      upload_url: url,
      method: 'PUT',
      expires_in_seconds: deps.urlTtlSeconds,
      max_bytes: MAX_UPLOAD_BYTES,
    }
  }

  /**
   * The signed PUT. Checks the signature and expiry before reading a byte,
   * streams the body to a new object, and switches the upload to it only while
   * no accepted order references the upload.
   */
  async function receive(
    receivePut: NonNullable<FileStorage['receivePut']>,
    put: ReceivedPut,
  ): Promise<{ size: number }> {
    // Only the decimal digits the URL was signed with: ' 17e8' is malformed, not the same expiry.
    const expires = /^\d{1,15}$/.test(put.expires ?? '') ? Number(put.expires) : Number.NaN
    const valid =
      isUuid(put.uploadId) &&
      Number.isInteger(expires) &&
      typeof put.signature === 'string' &&
      secretsEqual(put.signature, await sign(put.uploadId, expires))
    const now = clock.now()
    const row = valid ? await findUpload(db, put.uploadId) : undefined
    if (!row || row.expired_at || expires * 1000 <= now.getTime() || row.url_expires_at <= now) {
      throw new AppError('upload_url_invalid')
    }
    if (row.referenced_at) throw new AppError('upload_already_referenced')
    if (put.contentLength !== undefined && put.contentLength > MAX_UPLOAD_BYTES) {
      throw new AppError('upload_too_large')
    }
    const key = `uploads/${row.id}/${newId()}`
    const size = await receivePut(key, put.body, MAX_UPLOAD_BYTES)
    const declaredJson = declaresJson(put.contentType)
    if (await isSerializedFile(storage, { filename: row.filename, declaredJson }, key, size)) {
      await storage.delete(key)
      throw declaredJson ? jsonContentType(put.contentType!) : serializedFile(row.filename)
    }
    const previous = await db.transaction().execute(async (trx) => {
      const current = await lockUpload(trx, row.id)
      if (!current || current.referenced_at || current.expired_at) return undefined
      await setStoredObject(trx, row.id, { key, size, at: clock.now() })
      return current
    })
    if (!previous) {
      await storage.delete(key)
      throw new AppError('upload_already_referenced')
    }
    if (previous.stored_at) await storage.delete(previous.storage_key)
    return { size }
  }

  const receivePut = storage.receivePut?.bind(storage)
  return {
    createSlot,
    /** Present only when the storage lets the service receive PUTs itself (embedded storage). */
    receive: receivePut ? (put: ReceivedPut) => receive(receivePut, put) : undefined,
  }
}
