import fs from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { lockDataDir } from './data-dir-lock.ts'

export interface EmbeddedPglite {
  pglite: PGlite
  /** Closes the database and gives DATA_DIR back. */
  close(): Promise<void>
}

/**
 * The embedded database of DATA_DIR (in memory without one). DATA_DIR is locked
 * for the life of the process first: two processes on one PGlite directory each
 * see only their own writes and corrupt its indexes.
 */
export async function openPglite(dataDir: string | undefined): Promise<EmbeddedPglite> {
  if (!dataDir) {
    const pglite = await PGlite.create()
    return { pglite, close: () => pglite.close() }
  }
  const lock = lockDataDir(dataDir)
  try {
    const dir = join(dataDir, 'pgdata')
    fs.mkdirSync(dir, { recursive: true })
    const pglite = await PGlite.create(dir)
    return {
      pglite,
      close: async () => {
        try {
          if (!pglite.closed) await pglite.close()
        } finally {
          lock.release()
        }
      },
    }
  } catch (err) {
    lock.release()
    throw err
  }
}
