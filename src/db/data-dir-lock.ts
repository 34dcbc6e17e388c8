import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'

/**
 * The embedded database's claim on DATA_DIR: a lock file holding the owner's pid,
 * host, boot and process start time, created atomically and removed at exit.
 *
 * Liveness is checked the way PostgreSQL checks postmaster.pid: a lock whose
 * process no longer exists is stale and taken over at once (kill -9 blocks
 * nothing). The boot id and the process start time catch a pid reused after a
 * reboot or in a fresh container. An mtime-refreshed lock (proper-lockfile)
 * would instead block the next start for its stale period, and would hand the
 * directory to a second process whenever the owner's event loop stalls longer
 * than that. A lock taken on another host cannot be checked and is never broken.
 */
export const LOCK_FILE = 'service.lock'

export interface LockOwner {
  pid: number
  hostname: string
  boot_id: string | null
  /** Start time of the process in clock ticks since boot (Linux), against pid reuse. */
  start_ticks: number | null
  locked_at: string
}

export class DataDirInUseError extends Error {
  readonly dataDir: string
  readonly owner: LockOwner
  constructor(dataDir: string, owner: LockOwner) {
    super(
      `DATA_DIR ${dataDir} is in use by another service process (pid ${owner.pid} on host ${owner.hostname}, ` +
        `since ${owner.locked_at}). The embedded database belongs to one process: stop that process, ` +
        `give this one another DATA_DIR, or use PostgreSQL (DATABASE_URL) to run several instances. ` +
        `If no such process exists on that host, delete ${join(dataDir, LOCK_FILE)}.`,
    )
    this.dataDir = dataDir
    this.owner = owner
  }
}

export interface DataDirLock {
  readonly path: string
  release(): void
}

function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read()
  } catch {
    return fallback
  }
}

const bootId = (): string | null =>
  readOr(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), null)

/** Field 22 of /proc/<pid>/stat; the command name before it may hold spaces and parentheses. */
function startTicks(pid: number): number | null {
  return readOr(() => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const value = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
    return Number.isFinite(value) ? value : null
  }, null)
}

function alive(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return true
  const boot = bootId()
  if (owner.boot_id && boot && owner.boot_id !== boot) return false
  // Our own pid (or our parent's) in the file is a lock from an earlier life of a container.
  if (owner.pid === process.pid || owner.pid === process.ppid) return false
  try {
    process.kill(owner.pid, 0)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
  const ticks = startTicks(owner.pid)
  return owner.start_ticks === null || ticks === null || ticks === owner.start_ticks
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Runs fn while holding a short-lived mkdir mutex, so two starts that both found
 * the same stale lock cannot both remove it (the second would remove the first's
 * fresh lock). A mutex left by a crash in this window is ignored after 10 s.
 */
function underBreakMutex(path: string, fn: () => void): void {
  const mutex = `${path}.break`
  for (;;) {
    try {
      mkdirSync(mutex)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const age = readOr(() => Date.now() - statSync(mutex).mtimeMs, 0)
      if (age > 10_000) readOr(() => rmdirSync(mutex), undefined)
      else sleep(20)
    }
  }
  try {
    fn()
  } finally {
    readOr(() => rmdirSync(mutex), undefined)
  }
}

/** Takes DATA_DIR for this process, or throws DataDirInUseError naming the live owner. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true })
  const path = join(dataDir, LOCK_FILE)
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    boot_id: bootId(),
    start_ticks: startTicks(process.pid),
    locked_at: new Date().toISOString(),
  }
  const content = `${JSON.stringify(owner)}\n`
  // Written in full under a private name, then linked into place: link() fails if
  // the lock exists, and a reader never sees a half-written lock.
  const temp = `${path}.${process.pid}.tmp`
  const fd = openSync(temp, 'w', 0o644)
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
  try {
    for (;;) {
      try {
        linkSync(temp, path)
        break
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const seen = readOr(() => readFileSync(path, 'utf8'), '')
      const holder = readOr(() => JSON.parse(seen) as LockOwner, undefined)
      if (holder && alive(holder)) throw new DataDirInUseError(dataDir, holder)
      underBreakMutex(path, () => {
        if (readOr(() => readFileSync(path, 'utf8'), undefined) === seen)
          readOr(() => unlinkSync(path), undefined)
      })
    }
  } finally {
    readOr(() => unlinkSync(temp), undefined)
  }

  let held = true
  const release = () => {
    if (!held) return
    held = false
    process.off('exit', release)
    // Only our own lock: never remove one that another process has since taken.
    if (readOr(() => readFileSync(path, 'utf8'), '') === content) readOr(() => unlinkSync(path), undefined)
  }
  process.on('exit', release)
  return { path, release }
}
