import type { Database } from '../../db/database.ts'
import type { UploadRow } from '../../db/schema.ts'
import { AppError, type ValidationEntry } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { type AllowedType, detectContentType, HEAD_BYTES } from './file-types.ts'
import { type FileStorage, MAX_UPLOAD_BYTES } from './storage/storage.ts'
import { SvgQueueTimeout, type SvgSanitizer } from './svg-pool.ts'
import type { UploadScope } from './upload-slots.ts'
import { findUploads, markReferenced } from './uploads.repo.ts'

/** The file work of one order, decided before its transaction and applied inside it. */
export interface FilePlan {
  /** Uploads this order is the first to reference. */
  finalize: {
    row: UploadRow
    contentType: AllowedType
    size: number
    /** A new object holding the bytes the order keeps (sanitized SVG, or a frozen copy). */
    newKey: string | undefined
  }[]
  /** Objects written for this order; deleted again if the order does not commit. */
  written: string[]
}

/** A PUT or the sweeper changed a file between its check and the order's commit. */
export class FileConflictError extends Error {}

type Outcome =
  /** An earlier order made the file permanent: nothing left to do. */
  | { ok: true; first: false }
  | { ok: true; first: true; row: UploadRow; contentType: AllowedType; size: number; svg?: Buffer }
  | { ok: false; code: 'file_not_found' | 'file_type_not_allowed' | 'file_too_complex'; message: string }

const notFound = (message: string): Outcome => ({ ok: false, code: 'file_not_found', message })

/**
 * Acceptance of the files an order references: checked from their content's
 * first bytes when the order arrives, made permanent in the order's
 * transaction, tidied up after it.
 */
export function createUploadAcceptance(deps: {
  db: Database
  clock: Clock
  storage: FileStorage
  svgSanitizer: SvgSanitizer
  /** Whether an unreferenced upload is past its retention. */
  expired(row: UploadRow, now: Date): boolean
}) {
  const { db, clock, storage } = deps

  async function discard(plan: FilePlan): Promise<void> {
    await Promise.all(plan.written.map((key) => storage.delete(key).catch(() => {})))
  }

  async function sanitizeSvg(key: string, organizationId: string) {
    try {
      return await deps.svgSanitizer.sanitize(() => storage.read(key), organizationId)
    } catch (err) {
      if (err instanceof SvgQueueTimeout) {
        throw new AppError('service_unavailable', {
          message: 'Too many SVG files are waiting to be checked; resend the order in a minute.',
        })
      }
      throw err
    }
  }

  async function check(scope: UploadScope, row: UploadRow | undefined, now: Date): Promise<Outcome> {
    if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
      return notFound('No upload with this upload_id.')
    }
    if (deps.expired(row, now)) return notFound('The upload has expired.')
    if (row.referenced_at) return { ok: true, first: false }
    const found = await storage.head(row.storage_key, HEAD_BYTES)
    if (!found) return notFound('No file was uploaded for this upload_id.')
    if (found.size > MAX_UPLOAD_BYTES) return notFound(`The file is larger than ${MAX_UPLOAD_BYTES} bytes.`)
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

  /** Writes what the order keeps of the files it is the first to reference. */
  async function plan(outcomes: Iterable<Outcome>): Promise<FilePlan> {
    const plan: FilePlan = { finalize: [], written: [] }
    try {
      for (const outcome of outcomes) {
        if (!outcome.ok || !outcome.first) continue
        const { row } = outcome
        let newKey: string | undefined
        if (outcome.svg) {
          newKey = `uploads/${row.id}/accepted-${newId()}.svg`
          await storage.write(newKey, outcome.svg)
        } else {
          const kept = await storage.freeze(row.storage_key, `uploads/${row.id}/accepted-${newId()}`)
          if (kept !== row.storage_key) newKey = kept
        }
        if (newKey) plan.written.push(newKey)
        plan.finalize.push({ row, contentType: outcome.contentType, size: outcome.size, newKey })
      }
    } catch (err) {
      await discard(plan)
      throw err
    }
    return plan
  }

  return {
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
      const refs = items.flatMap((item, i) => (item.files ?? []).map((f, j) => ({ i, j, id: f.upload_id })))
      if (refs.length === 0) return { errors: [], plan: { finalize: [], written: [] } }
      const ids = [...new Set(refs.map((r) => r.id))]
      const byId = new Map((await findUploads(db, ids)).map((r) => [r.id, r]))
      const now = clock.now()
      const outcomes = new Map<string, Outcome>()
      await Promise.all(ids.map(async (id) => outcomes.set(id, await check(scope, byId.get(id), now))))
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
      if (errors.length > 0) return { errors, plan: { finalize: [], written: [] } }
      return { errors, plan: await plan(outcomes.values()) }
    },

    /**
     * Inside the order's transaction: marks the files referenced (permanent from
     * now on). Fails with FileConflictError when a PUT replaced the bytes, or the
     * sweeper took the file, after prepare() looked at it.
     */
    async commit(trx: Database, plan: FilePlan, at: Date): Promise<void> {
      const f = plan.finalize
      if (f.length === 0) return
      const files = f.map((x) => ({
        id: x.row.id,
        storageKey: x.row.storage_key,
        contentType: x.contentType,
        size: x.size,
        newKey: x.newKey,
      }))
      const updated = await markReferenced(trx, files, at)
      if (updated.length !== f.length) {
        throw new FileConflictError(f.find((x) => !updated.includes(x.row.id))!.row.id)
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
  }
}
