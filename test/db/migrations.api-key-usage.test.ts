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

test('upgrading: existing keys were made by the operator and were never seen used; new keys name their maker', async () => {
  const { db } = t
  await migrate(db, '2026-11-26-0016-dashboard-accounts')
  const org = '0193a000-0000-7000-8000-000000000002'
  const key = '0193a000-0000-7000-8000-0000000000c1'
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  await sql`
    insert into api_keys (id, organization_id, environment, scopes, key_prefix, key_hash, created_at)
    values (${key}, ${org}, 'live', '{orders:read}', 'svc_live_AbCd1234', 'hash', now())`.execute(db)

  await migrate(db, 'latest')
  const row = await db.selectFrom('api_keys').selectAll().where('id', '=', key).executeTakeFirstOrThrow()
  assert.equal(row.created_by, 'operator token')
  assert.equal(row.last_used_at, null)
  // No default remains: every new key says who made it.
  await assert.rejects(
    sql`insert into api_keys (id, organization_id, environment, scopes, key_prefix, key_hash, created_at)
      values ('0193a000-0000-7000-8000-0000000000c2', ${org}, 'test', '{}', 'svc_test_x', 'h2', now())`.execute(
      db,
    ),
  )

  await migrate(db, '2026-11-26-0016-dashboard-accounts')
  const columns = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_name = 'api_keys' and table_schema = current_schema()`.execute(db)
  assert.ok(!columns.rows.some((c) => ['created_by', 'last_used_at'].includes(c.column_name)))
  await migrate(db, 'latest')
})
