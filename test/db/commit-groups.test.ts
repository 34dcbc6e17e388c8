import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { commitGroups } from '../../src/db/commit-groups.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'

describe('commit groups', () => {
  let testDb: TestDatabase
  before(async () => {
    testDb = await createTestDatabase({ migrated: false })
    await sql`create table group_writes (n int primary key)`.execute(testDb.db)
  })
  after(async () => {
    await sql`drop table if exists group_writes`.execute(testDb.db)
    await testDb.close()
  })

  const stored = async () =>
    (await sql<{ n: number }>`select n from group_writes order by n`.execute(testDb.db)).rows.map((r) => r.n)

  test('writes queued together share a commit; one that fails leaves the others stored', async () => {
    const write = commitGroups(testDb.db, true)
    const insert = (n: number) =>
      write(async (db) => {
        await sql`insert into group_writes (n) values (${n})`.execute(db)
        return (await sql<{ tx: string }>`select pg_current_xact_id()::text as tx`.execute(db)).rows[0]!.tx
      })
    const results = await Promise.allSettled([insert(1), insert(2), insert(2), insert(3)])
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    )
    const txs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
    assert.equal(new Set(txs).size, 1, 'one transaction')
    assert.match(String((results[2] as PromiseRejectedResult).reason), /duplicate key/)
    assert.deepEqual(await stored(), [1, 2, 3])
  })

  test('disabled, every write commits on its own', async () => {
    const write = commitGroups(testDb.db, false)
    const txs = await Promise.all(
      [10, 11].map((n) =>
        write(async (db) => {
          await sql`insert into group_writes (n) values (${n})`.execute(db)
          return (await sql<{ tx: string }>`select pg_current_xact_id()::text as tx`.execute(db)).rows[0]!.tx
        }),
      ),
    )
    assert.notEqual(txs[0], txs[1])
    assert.deepEqual(await stored(), [1, 2, 3, 10, 11])
  })
})
