import assert from 'node:assert/strict'
import fs, { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, mock, test } from 'node:test'
import { sql } from 'kysely'
import { type Database, openDatabase } from '../../src/db/database.ts'

/** Open descriptors of this process whose path lies under dir, with their open flags. */
function openFiles(dir: string): { path: string; flags: number }[] {
  const files: { path: string; flags: number }[] = []
  for (const fd of readdirSync('/proc/self/fd')) {
    let path: string
    try {
      path = readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      continue
    }
    if (!path.startsWith(dir)) continue
    const flags = /^flags:\s+(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1]
    files.push({ path, flags: Number.parseInt(flags ?? '0', 8) })
  }
  return files
}

describe('embedded database in DATA_DIR: a commit is on the disk when it is acknowledged', () => {
  let dataDir: string
  let db: Database
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-durable-'))
    db = (await openDatabase({ dataDir })).db
    await sql`create table t (id int primary key, v text)`.execute(db)
  })
  after(async () => {
    await db.destroy()
    rmSync(dataDir, { recursive: true, force: true })
  })

  test('PostgreSQL runs with fsync on', async () => {
    const { rows } = await sql<{ fsync: string }>`show fsync`.execute(db)
    assert.equal(rows[0]?.fsync, 'on')
  })

  test('the WAL is written synchronously (O_SYNC): COMMIT returns after the disk has it', {
    skip: process.platform !== 'linux',
  }, async () => {
    await sql`insert into t values (1, 'acknowledged')`.execute(db)
    const wal = openFiles(join(dataDir, 'pgdata', 'pg_wal')).filter((f) => /\/[0-9A-F]{24}$/.test(f.path))
    assert.ok(wal.length > 0, 'a WAL segment is open')
    for (const file of wal) {
      assert.equal(file.flags & fs.constants.O_SYNC, fs.constants.O_SYNC, `${file.path} is opened O_SYNC`)
    }
  })

  test('a checkpoint flushes the data files it wrote (fsync reaches the disk)', async (t) => {
    await sql`insert into t select g, 'row' from generate_series(2, 1000) g`.execute(db)
    const fsync = t.mock.method(fs, 'fsyncSync')
    await sql`checkpoint`.execute(db)
    assert.ok(fsync.mock.callCount() > 0, 'fsync was called')
    mock.restoreAll()
  })
})
