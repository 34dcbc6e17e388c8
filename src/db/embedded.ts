import fs from 'node:fs'
import { join } from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { lockDataDir } from './data-dir-lock.ts'

/**
 * PGlite starts PostgreSQL with fsync off (`-F`), and its NodeFS (Emscripten's
 * NODEFS) turns every fsync() of the database into a no-op: a commit is
 * acknowledged while its WAL is still in the OS page cache. Durable mode:
 * - fsync on, and wal_sync_method=open_datasync: WAL files are opened O_DSYNC,
 *   which NODEFS passes on to Node as O_SYNC, so a COMMIT returns only after
 *   its WAL is on the disk;
 * - NODEFS gets the fsync it lacks, so checkpoints (and the directory entries
 *   they depend on) reach the disk before the WAL before them is recycled.
 */
export const DURABLE_START_PARAMS = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'wal_sync_method=open_datasync',
  '-c',
  'shared_buffers=16MB',
]

interface NodeFsModule {
  NODEFS?: {
    stream_ops: Record<string, unknown>
    tryFSOperation<T>(f: () => T): T
  }
}

interface NodeFsStream {
  nfd: number
}

/** NodeFS whose fsync() reaches the disk. */
class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, opts)
    const preRun = result.emscriptenOpts.preRun ?? []
    result.emscriptenOpts.preRun = [
      ...preRun,
      (mod: NodeFsModule) => {
        const nodefs = mod.NODEFS
        if (!nodefs?.stream_ops)
          throw new Error('this PGlite build has no NODEFS: durable mode is unavailable')
        // Errors become errno values for PostgreSQL, which treats a failed fsync as fatal.
        nodefs.stream_ops.fsync = (stream: NodeFsStream) => {
          nodefs.tryFSOperation(() => fs.fsyncSync(stream.nfd))
          return 0
        }
      },
    ]
    return result
  }
}

/** PGlite options for a durable database in dir (the bench's bare routes use them too). */
export function durablePgliteOptions(dir: string): PGliteOptions {
  return { fs: new DurableNodeFS(dir), startParams: DURABLE_START_PARAMS }
}

/** Flushes a tree once: initdb's files are written without fsync. */
function fsyncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) fsyncTree(path)
    else if (entry.isFile()) fsyncPath(path)
  }
  fsyncPath(dir)
}

function fsyncPath(path: string): void {
  const fd = fs.openSync(path, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

export interface EmbeddedPglite {
  pglite: PGlite
  /** Closes the database and gives DATA_DIR back. */
  close(): Promise<void>
}

/**
 * The embedded database of DATA_DIR (in memory without one, started from a dump
 * when given). DATA_DIR is locked
 * for the life of the process first: two processes on one PGlite directory each
 * see only their own writes and corrupt its indexes.
 */
export async function openPglite(dataDir: string | undefined, dump?: Blob): Promise<EmbeddedPglite> {
  if (!dataDir) {
    const pglite = await PGlite.create({
      ...(dump ? { loadDataDir: dump } : {}),
      startParams: [
        ...PGlite.defaultStartParams,
        // The process's own database: PostgreSQL's default 128 MB of shared
        // buffers would mostly be zeroed at every start, never used.
        '-c',
        'shared_buffers=16MB',
        // A dump is of a running database: starting from it replays its WAL, and
        // in PGlite that leaves PostgreSQL's startup-progress timer re-arming
        // itself every 10 s for good, keeping the process alive after closing.
        '-c',
        'log_startup_progress_interval=0',
      ],
    })
    return {
      pglite,
      close: async () => {
        if (!pglite.closed) await pglite.close()
      },
    }
  }
  const lock = lockDataDir(dataDir)
  try {
    const dir = join(dataDir, 'pgdata')
    fs.mkdirSync(dir, { recursive: true })
    const fresh = !fs.existsSync(join(dir, 'PG_VERSION'))
    const pglite = await PGlite.create(dir, durablePgliteOptions(dir))
    if (fresh) fsyncTree(dir)
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
