import { createHmac } from 'node:crypto'
import type { Readable } from 'node:stream'
import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, UploadRow } from '../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { secretsEqual } from '../../lib/secrets.ts'
import { serviceSecret } from '../../lib/service-secrets.ts'
import { type AllowedType, detectContentType, HEAD_BYTES } from './file-types.ts'
import { downloadName, sanitizeFilename } from './filename.ts'
import type { LocalStorage } from './storage/local.ts'
import { TooLargeError } from './storage/local.ts'
import { type FileStorage, MAX_UPLOAD_BYTES } from './storage/storage.ts'
import { createSvgSanitizer, SvgQueueTimeout, type SvgSanitizer } from './svg-pool.ts'

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

/** What the order needs to know about one referenced file. */
export interface AcceptedFile {
  uploadId: string
  contentType: string
}

/** The file work of one order, decided before its transaction and applied inside it. */
export interface FilePlan {
  /** Uploads this order is the first to reference. */
  finalize: {
    row: UploadRow
    contentType: AllowedType
    size: number
    /** A new object holding the bytes the order keeps (sanitized SVG, or the S3 copy). */
    newKey: string | undefined
  }[]
  /** Objects written for this order; deleted again if the order does not commit. */
  written: string[]
}

export class FileConflictError extends Error {}

interface FileDetails {
  filename: string
  content_type: string | null
  size_bytes: number | null
}

export function createUploadService(deps: {
  db: Database
  clock: Clock
  storage: FileStorage
  publicBaseUrl: string
  urlTtlSeconds: number
  retentionSeconds: number
  /** Where SVG files are sanitized; by default worker threads of this service's own. */
  svgSanitizer?: SvgSanitizer
}) {
  const { db, clock, storage } = deps
  const svgSanitizer = deps.svgSanitizer ?? createSvgSanitizer()
  let signingKey: string | undefined

  /** One signing key for every instance of the deployment, kept in the database. */
  async function getSigningKey(): Promise<string> {
    signingKey ??= await serviceSecret(db, 'upload_url_signing_key')
    return signingKey
  }

  async function sign(uploadId: string, expires: number): Promise<string> {
    return createHmac('sha256', await getSigningKey())
      .update(`${uploadId}.${expires}`)
      .digest('hex')
  }

  /** The embedded storage's signed address for a slot: HMAC over upload id and expiry. */
  async function localUploadUrl(uploadId: string, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000)
    const signature = await sign(uploadId, expires)
    return `${deps.publicBaseUrl}/v1/uploads/${uploadId}/content?expires=${expires}&signature=${signature}`
  }

  async function discard(plan: FilePlan): Promise<void> {
    await Promise.all(plan.written.map((key) => storage.delete(key).catch(() => {})))
  }

  async function sanitizeSvg(key: string, organizationId: string) {
    try {
      return await svgSanitizer.sanitize(() => storage.read(key), organizationId)
    } catch (err) {
      if (err instanceof SvgQueueTimeout) {
        throw new AppError('service_unavailable', {
          message: 'Too many SVG files are waiting to be checked; resend the order in a minute.',
        })
      }
      throw err
    }
  }

  const retentionMs = deps.retentionSeconds * 1000
  const expired = (row: UploadRow, now: Date) =>
    row.expired_at !== null ||
    (row.referenced_at === null && (row.stored_at ?? row.created_at).getTime() + retentionMs <= now.getTime())

  return {
    storage,

    /** Stops the SVG workers (the service stays usable: they start again on demand). */
    close: () => svgSanitizer.close(),

    async createSlot(scope: UploadScope, rawFilename: string): Promise<UploadSlot> {
      const id = newId()
      const now = clock.now()
      const expiresAt = new Date(now.getTime() + deps.urlTtlSeconds * 1000)
      const filename = sanitizeFilename(rawFilename)
      // S3 slots have a fixed object key; embedded storage writes a new object per PUT.
      const key = storage.kind === 's3' ? `uploads/${id}/slot` : `uploads/${id}/none`
      await db
        .insertInto('uploads')
        .values({
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
        .execute()
      return {
        upload_id: id,
        filename,
        upload_url: storage.presignedPutUrl
          ? await storage.presignedPutUrl(key, expiresAt)
          : await localUploadUrl(id, expiresAt),
        method: 'PUT',
        expires_in_seconds: deps.urlTtlSeconds,
        max_bytes: MAX_UPLOAD_BYTES,
      }
    },

    /**
     * The signed PUT of embedded storage. Checks the signature and expiry before
     * reading a byte, streams the body to a new object, and switches the upload
     * to it only while no accepted order references the upload.
     */
    async receive(input: {
      uploadId: string
      expires: string | undefined
      signature: string | undefined
      contentLength: number | undefined
      body: Readable
    }): Promise<{ size: number }> {
      const local = storage as LocalStorage
      // Only the decimal digits the URL was signed with: ' 17e8' is malformed, not the same expiry.
      const expires = /^\d{1,15}$/.test(input.expires ?? '') ? Number(input.expires) : Number.NaN
      const valid =
        isUuid(input.uploadId) &&
        Number.isInteger(expires) &&
        typeof input.signature === 'string' &&
        secretsEqual(input.signature, await sign(input.uploadId, expires))
      const now = clock.now()
      const row = valid
        ? await db.selectFrom('uploads').selectAll().where('id', '=', input.uploadId).executeTakeFirst()
        : undefined
      if (!row || row.expired_at || expires * 1000 <= now.getTime() || row.url_expires_at <= now) {
        throw new AppError('upload_url_invalid')
      }
      if (row.referenced_at) throw new AppError('upload_already_referenced')
      if (input.contentLength !== undefined && input.contentLength > MAX_UPLOAD_BYTES) {
        throw new AppError('upload_too_large')
      }
      const key = `uploads/${row.id}/${newId()}`
      let size: number
      try {
        size = await local.receive(key, input.body, MAX_UPLOAD_BYTES)
      } catch (err) {
        if (err instanceof TooLargeError) throw new AppError('upload_too_large')
        throw err
      }
      const previous = await db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('uploads')
          .select(['storage_key', 'referenced_at', 'expired_at', 'stored_at'])
          .where('id', '=', row.id)
          .forUpdate()
          .executeTakeFirst()
        if (!current || current.referenced_at || current.expired_at) return undefined
        await trx
          .updateTable('uploads')
          .set({ storage_key: key, size_bytes: size, stored_at: clock.now() })
          .where('id', '=', row.id)
          .execute()
        return current
      })
      if (!previous) {
        await storage.delete(key)
        throw new AppError('upload_already_referenced')
      }
      if (previous.stored_at) await storage.delete(previous.storage_key)
      return { size }
    },

    /**
     * Checks every file reference of an order against the uploads of the caller's
     * organization and environment, from the content's first bytes. Returns the
     * validation entries (bracket notation) and, when there are none, the plan
     * whose objects are already written.
     */
    async prepare(
      scope: UploadScope,
      items: { files?: { upload_id: string }[] }[],
    ): Promise<{ errors: ValidationEntry[]; plan: FilePlan }> {
      const plan: FilePlan = { finalize: [], written: [] }
      const refs = items.flatMap((item, i) => (item.files ?? []).map((f, j) => ({ i, j, id: f.upload_id })))
      if (refs.length === 0) return { errors: [], plan }
      const ids = [...new Set(refs.map((r) => r.id))]
      const rows = await db.selectFrom('uploads').selectAll().where('id', 'in', ids).execute()
      const byId = new Map(rows.map((r) => [r.id, r]))
      const now = clock.now()

      type Outcome =
        | { ok: true; contentType: AllowedType; size: number; svg?: Buffer; row: UploadRow; first: boolean }
        | {
            ok: false
            code: 'file_not_found' | 'file_type_not_allowed' | 'file_too_complex'
            message: string
          }
      const notFound = (message: string): Outcome => ({ ok: false, code: 'file_not_found', message })

      async function check(id: string): Promise<Outcome> {
        const row = byId.get(id)
        if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
          return notFound('No upload with this upload_id.')
        }
        if (expired(row, now)) return notFound('The upload has expired.')
        if (row.referenced_at) {
          return {
            ok: true,
            contentType: row.content_type as AllowedType,
            size: Number(row.size_bytes),
            row,
            first: false,
          }
        }
        if (storage.kind === 'local' && !row.stored_at)
          return notFound('No file was uploaded for this upload_id.')
        const found = await storage.head(row.storage_key, HEAD_BYTES)
        if (!found) return notFound('No file was uploaded for this upload_id.')
        if (found.size > MAX_UPLOAD_BYTES)
          return notFound(`The file is larger than ${MAX_UPLOAD_BYTES} bytes.`)
        const detection = await detectContentType(found.head)
        if (detection.kind === 'unrecognized')
          return notFound('The file is empty, truncated or of no recognizable type.')
        if (detection.kind === 'not_allowed') {
          return {
            ok: false,
            code: 'file_type_not_allowed',
            message: `The file's content is ${detection.detected}, which is not an allowed type.`,
          }
        }
        if (detection.contentType === 'image/svg+xml') {
          const sanitized = await sanitizeSvg(row.storage_key, scope.organizationId)
          if (sanitized.kind === 'malformed') return notFound('The SVG file is not well-formed.')
          if (sanitized.kind === 'too_complex') {
            return { ok: false, code: 'file_too_complex', message: sanitized.message }
          }
          const svg = sanitized.svg
          return { ok: true, contentType: detection.contentType, size: svg.length, svg, row, first: true }
        }
        return { ok: true, contentType: detection.contentType, size: found.size, row, first: true }
      }

      const outcomes = new Map<string, Outcome>()
      await Promise.all(ids.map(async (id) => outcomes.set(id, await check(id))))
      const errors: ValidationEntry[] = []
      for (const ref of refs) {
        const outcome = outcomes.get(ref.id)!
        if (!outcome.ok) {
          errors.push({
            code: outcome.code,
            message: outcome.message,
            field: `items[${ref.i}].files[${ref.j}].upload_id`,
          })
        }
      }
      if (errors.length > 0) return { errors, plan }

      try {
        for (const outcome of outcomes.values()) {
          if (!outcome.ok || !outcome.first) continue
          let newKey: string | undefined
          if (outcome.svg) {
            newKey = `uploads/${outcome.row.id}/accepted-${newId()}.svg`
            await storage.write(newKey, outcome.svg)
          } else if (storage.kind === 's3') {
            // Freeze the bytes: the slot's presigned URL stays usable until it expires.
            newKey = `uploads/${outcome.row.id}/accepted-${newId()}`
            await storage.copy(outcome.row.storage_key, newKey)
          }
          if (newKey) plan.written.push(newKey)
          plan.finalize.push({
            row: outcome.row,
            contentType: outcome.contentType,
            size: outcome.size,
            newKey,
          })
        }
      } catch (err) {
        await discard(plan)
        throw err
      }
      return { errors, plan }
    },

    /**
     * Inside the order's transaction: marks the files referenced (permanent from
     * now on). Fails with FileConflictError when a PUT replaced the bytes, or the
     * sweeper took the file, after prepare() looked at it.
     */
    async commit(trx: Database, plan: FilePlan, at: Date): Promise<void> {
      if (plan.finalize.length === 0) return
      const f = plan.finalize
      // One statement for all of the order's files; each row only changes if it
      // still holds the bytes prepare() looked at.
      const result = await sql<{ id: string }>`
        update uploads u
        set referenced_at = ${at}::timestamptz,
            content_type = v.content_type,
            size_bytes = v.size_bytes,
            stored_at = coalesce(u.stored_at, ${at}::timestamptz),
            storage_key = coalesce(v.new_key, u.storage_key)
        from unnest(${f.map((x) => x.row.id)}::uuid[], ${f.map((x) => x.row.storage_key)}::text[],
                    ${f.map((x) => x.contentType)}::text[], ${f.map((x) => x.size)}::bigint[],
                    ${f.map((x) => x.newKey ?? null)}::text[])
          as v(id, storage_key, content_type, size_bytes, new_key)
        where u.id = v.id and u.storage_key = v.storage_key
          and u.referenced_at is null and u.expired_at is null
        returning u.id`.execute(trx)
      if (result.rows.length !== f.length) {
        const updated = new Set(result.rows.map((r) => r.id))
        throw new FileConflictError(f.find((x) => !updated.has(x.row.id))!.row.id)
      }
    },

    /** After the order committed: the replaced originals are no longer needed. */
    async afterCommit(plan: FilePlan): Promise<void> {
      for (const f of plan.finalize) {
        if (f.newKey) await storage.delete(f.row.storage_key).catch(() => {})
      }
    },

    /** The order did not commit: remove what prepare() wrote. */
    discard,

    async details(uploadIds: string[]): Promise<Map<string, FileDetails>> {
      if (uploadIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('uploads')
        .select(['id', 'filename', 'content_type', 'size_bytes'])
        .where('id', 'in', [...new Set(uploadIds)])
        .execute()
      return new Map(
        rows.map((r) => [
          r.id,
          {
            filename: r.filename,
            content_type: r.content_type,
            size_bytes: r.size_bytes === null ? null : Number(r.size_bytes),
          },
        ]),
      )
    },

    /** The stored bytes of a file an order references, for the operator. */
    async open(
      uploadId: string,
    ): Promise<{ stream: Readable; contentType: string; size: number; filename: string }> {
      const row = isUuid(uploadId)
        ? await db.selectFrom('uploads').selectAll().where('id', '=', uploadId).executeTakeFirst()
        : undefined
      if (!row || !row.referenced_at || !row.content_type) {
        throw new AppError('not_found', { message: 'No stored file with this upload_id.' })
      }
      return {
        stream: await storage.stream(row.storage_key),
        contentType: row.content_type,
        size: Number(row.size_bytes),
        filename: downloadName(row.filename, row.content_type),
      }
    },

    /**
     * Removes unreferenced uploads older than the retention: marks them expired
     * (so no order can take them any more), deletes their bytes, then the rows.
     * Safe to run on every instance at once.
     */
    async sweep(batch = 500): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - retentionMs)
      const marked = await db
        .updateTable('uploads')
        .set({ expired_at: clock.now() })
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('uploads')
            .select('id')
            .where('referenced_at', 'is', null)
            .where('expired_at', 'is', null)
            .where((w) => w(w.fn.coalesce('stored_at', 'created_at'), '<=', cutoff))
            .limit(batch),
        )
        .returning(['id', 'storage_key', 'stored_at'])
        .execute()
      // Rows marked earlier whose bytes a crashed sweep may have left behind.
      const leftovers = await db
        .selectFrom('uploads')
        .select(['id', 'storage_key', 'stored_at'])
        .where('expired_at', 'is not', null)
        .where('referenced_at', 'is', null)
        .limit(batch)
        .execute()
      const all = new Map([...leftovers, ...marked].map((r) => [r.id, r]))
      for (const r of all.values()) {
        if (r.stored_at || storage.kind === 's3') await storage.delete(r.storage_key)
      }
      if (all.size > 0) {
        await db
          .deleteFrom('uploads')
          .where('id', 'in', [...all.keys()])
          .where('referenced_at', 'is', null)
          .execute()
      }
      return marked.length
    },
  }
}

export type UploadService = ReturnType<typeof createUploadService>
