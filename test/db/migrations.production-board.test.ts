import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

const boardIndex = async () =>
  (
    await sql<{ indexdef: string }>`
      select indexdef from pg_indexes
      where tablename = 'production_orders' and indexname = 'production_orders_board_idx'
        and schemaname = current_schema()`.execute(t.db)
  ).rows

test('the production board index on (status, created_at, id) comes and goes with its migration', async () => {
  await migrate(t.db, '2026-11-26-0020-operator-accounts')
  assert.deepEqual(await boardIndex(), [])
  await migrate(t.db, 'latest')
  const [index] = await boardIndex()
  assert.match(index!.indexdef, /\(status, created_at, id\)/)
  await migrate(t.db, '2026-11-26-0020-operator-accounts')
  assert.deepEqual(await boardIndex(), [])
  await migrate(t.db, 'latest')
})
