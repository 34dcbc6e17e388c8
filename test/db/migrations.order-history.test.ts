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

test('0026 indexes the audit log by subject for order changes and cancels only, and comes down again', async () => {
  const { db } = t
  const index = async () =>
    (
      await sql<{ indexdef: string }>`select indexdef from pg_indexes
        where indexname = 'audit_log_order_history_idx' and schemaname = current_schema()`.execute(db)
    ).rows.map((r) => r.indexdef)
  await migrate(db, 'latest')
  const [definition] = await index()
  assert.match(
    definition!,
    /\(subject, id\) WHERE \(?action = ANY \(ARRAY\['order\.changed'::text, 'order\.cancelled'::text\]\)\)?/,
  )
  await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
  assert.deepEqual(await index(), [])
  await migrate(db, 'latest')
})
