import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, test } from 'node:test'
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/db/data-dir-lock.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-lockfile-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const lockOf = (owner: Record<string, unknown>) =>
  writeFileSync(
    join(dir, LOCK_FILE),
    JSON.stringify({ boot_id: null, start_ticks: null, locked_at: '2026-11-25T10:00:00.000Z', ...owner }),
  )

test('a live holder keeps DATA_DIR until it exits; then the next lock takes it at once', async () => {
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  try {
    lockOf({ pid: holder.pid, hostname: hostname() })
    assert.throws(
      () => lockDataDir(dir),
      (err: Error) => err instanceof DataDirInUseError && err.message.includes(`pid ${holder.pid} `),
    )
  } finally {
    holder.kill('SIGKILL')
    await once(holder, 'exit')
  }
  const lock = lockDataDir(dir)
  assert.equal(JSON.parse(readFileSync(lock.path, 'utf8')).pid, process.pid)
  lock.release()
  assert.equal(existsSync(lock.path), false)
})

test('a live process with the recorded pid but another start time is not the holder (pid reused)', {
  skip: process.platform !== 'linux',
}, async () => {
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  try {
    lockOf({ pid: other.pid, hostname: hostname(), start_ticks: 1 })
    const lock = lockDataDir(dir)
    lock.release()
  } finally {
    other.kill('SIGKILL')
    await once(other, 'exit')
  }
})

test('the lock of a process that no longer exists is taken over at once', () => {
  const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
  lockOf({ pid: Number(gone.stdout.trim()), hostname: hostname() })
  const lock = lockDataDir(dir)
  assert.equal(JSON.parse(readFileSync(lock.path, 'utf8')).pid, process.pid)
  lock.release()
})

test('a lock taken on another host is never broken: its process cannot be checked from here', () => {
  lockOf({ pid: 12345, hostname: `not-${hostname()}` })
  assert.throws(
    () => lockDataDir(dir),
    (err: Error) =>
      err instanceof DataDirInUseError &&
      /pid 12345 on host not-/.test(err.message) &&
      err.message.includes(dir),
  )
})
