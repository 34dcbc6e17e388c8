import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../db/database.ts'
import { newId } from '../../lib/ids.ts'
import {
  beat,
  deleteInstance,
  deleteStaleInstances,
  findInstanceElsewhere,
  type InstanceRow,
  insertInstance,
  lockRegistrations,
} from './system.repo.ts'

/**
 * Instances sharing one PostgreSQL must keep uploaded files in one place: an
 * upload stored by one instance is otherwise missing (file_not_found) when
 * another accepts the order. Each instance records where it keeps them, and a
 * start that finds a live instance keeping them elsewhere is refused.
 */

/** Where this instance keeps uploaded files: an id equal on every instance that shares the store. */
export interface FileStoreIdentity {
  id: string
  /** For messages: the directory or bucket. */
  description: string
}

const STORE_ID_FILE = 'store-id'

/**
 * A local store's identity is a random id kept in the store itself, so every
 * instance that mounts the same directory (wherever it mounts it) agrees on it.
 */
export function localFileStore(root: string): FileStoreIdentity {
  mkdirSync(root, { recursive: true })
  const path = join(root, STORE_ID_FILE)
  try {
    writeFileSync(path, `local:${newId()}\n`, { flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  return { id: readFileSync(path, 'utf8').trim(), description: `the directory ${root}` }
}

export function s3FileStore(s3: { bucket: string; endpoint: string | undefined }): FileStoreIdentity {
  const where = s3.endpoint ?? 'aws'
  return { id: `s3:${where}/${s3.bucket}`, description: `the S3 bucket ${s3.bucket} at ${where}` }
}

export class FileStoreConflictError extends Error {}

export const HEARTBEAT_MS = 10_000
/** An instance whose heartbeat is older than this is gone (crashed, or lost its database). */
export const STALE_AFTER_MS = 30_000

interface Registration {
  stop(): Promise<void>
}

/**
 * Records this instance and keeps its heartbeat fresh, or throws
 * FileStoreConflictError when a live instance keeps files somewhere else.
 */
export async function registerInstance(
  db: Database,
  store: FileStoreIdentity,
  options: { onHeartbeatError?: (err: unknown) => void } = {},
): Promise<Registration> {
  const id = newId()
  const row: InstanceRow = {
    id,
    file_store: store.id,
    file_store_description: store.description,
    hostname: hostname(),
    pid: process.pid,
  }
  await db.transaction().execute(async (trx) => {
    await lockRegistrations(trx)
    await deleteStaleInstances(trx, STALE_AFTER_MS)
    const other = await findInstanceElsewhere(trx, store.id)
    if (other) {
      throw new FileStoreConflictError(
        `another instance on this database (pid ${other.pid} on host ${other.hostname}) keeps uploaded files in ` +
          `${other.file_store_description}, this one in ${store.description}: an upload made through one would be ` +
          `missing (file_not_found) on the other. Every instance on one PostgreSQL must share DATA_DIR ` +
          `(the same directory, e.g. on a network file system) or use the same S3 bucket. ` +
          `An instance that stopped without saying so counts as gone after ${STALE_AFTER_MS / 1000} s.`,
      )
    }
    await insertInstance(trx, row)
  })

  const heartbeat = async () => {
    // Removed as stale after a long pause (a database outage): announce again.
    if (!(await beat(db, id))) await insertInstance(db, row)
  }
  const timer = setInterval(() => {
    heartbeat().catch((err) => options.onHeartbeatError?.(err))
  }, HEARTBEAT_MS)
  timer.unref()

  return {
    async stop() {
      clearInterval(timer)
      await deleteInstance(db, id).catch(() => {})
    },
  }
}
