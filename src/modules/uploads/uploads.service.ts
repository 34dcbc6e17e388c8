import type { Readable } from 'node:stream'
import type { Database } from '../../db/database.ts'
import type { UploadRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { downloadName } from './filename.ts'
import type { FileStorage } from './storage/storage.ts'
import { createSvgSanitizer, type SvgSanitizer } from './svg-pool.ts'
import { createUploadAcceptance } from './upload-acceptance.ts'
import { createUploadSlots } from './upload-slots.ts'
import { sweepUploads } from './upload-sweeper.ts'
import { findUpload, findUploadDetails } from './uploads.repo.ts'

export { FileConflictError, type FilePlan } from './upload-acceptance.ts'
export type { UploadScope, UploadSlot } from './upload-slots.ts'

interface FileDetails {
  filename: string
  content_type: string | null
  size_bytes: number | null
}

/**
 * Uploads: slots and their PUTs (upload-slots.ts), the check of files when an
 * order references them (upload-acceptance.ts), the sweeper of expired ones
 * (upload-sweeper.ts), and reading the files orders keep.
 */
export function createUploadService(deps: {
  db: Database
  clock: Clock
  storage: FileStorage
  publicBaseUrl: string
  urlTtlSeconds: number
  retentionSeconds: number
  /** Where SVG files are sanitized; by default worker processes of this service's own. */
  svgSanitizer?: SvgSanitizer
}) {
  const { db, storage } = deps
  const svgSanitizer = deps.svgSanitizer ?? createSvgSanitizer()
  const retentionMs = deps.retentionSeconds * 1000
  const expired = (row: UploadRow, now: Date) =>
    row.expired_at !== null ||
    (row.referenced_at === null && (row.stored_at ?? row.created_at).getTime() + retentionMs <= now.getTime())

  const slots = createUploadSlots(deps)
  const acceptance = createUploadAcceptance({ ...deps, svgSanitizer, expired })

  return {
    ...slots,
    ...acceptance,

    /** Stops the SVG workers (the service stays usable: they start again on demand). */
    close: () => svgSanitizer.close(),

    async details(uploadIds: string[]): Promise<Map<string, FileDetails>> {
      if (uploadIds.length === 0) return new Map()
      const rows = await findUploadDetails(db, [...new Set(uploadIds)])
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
      const row = isUuid(uploadId) ? await findUpload(db, uploadId) : undefined
      if (!row?.referenced_at || !row.content_type) {
        throw new AppError('not_found', { message: 'No stored file with this upload_id.' })
      }
      return {
        stream: await storage.open(row.storage_key),
        contentType: row.content_type,
        size: Number(row.size_bytes),
        filename: downloadName(row.filename, row.content_type),
      }
    },

    /** Removes expired unreferenced uploads, bytes and rows; see upload-sweeper.ts. */
    sweep: (batch?: number) => sweepUploads({ ...deps, retentionMs }, batch),
  }
}

export type UploadService = ReturnType<typeof createUploadService>
