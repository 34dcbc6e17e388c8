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

test('upgrading: existing orders get the size of their items, so large ones page by the byte budget', async () => {
  const { db } = t
  await migrate(db, '2026-11-25-0007-delivery-queue')
  const org = '0193a000-0000-7000-8000-000000000001'
  const [large, empty] = ['0193a000-0000-7000-8000-0000000000b1', '0193a000-0000-7000-8000-0000000000b2']
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  for (const id of [large, empty]) {
    await sql`
      insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
        ordered_at, created_at, updated_at, content_hash)
      values (${id}, ${org}, 'live', 'api', ${id}, 'pending', 'Jo', now(), now(), now(), 'h')`.execute(db)
  }
  const text = 'x'.repeat(5000)
  const personalization = JSON.stringify(
    Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`f${k}`, text])),
  )
  for (let position = 0; position < 3; position++) {
    await sql`
      insert into order_items (id, order_id, organization_id, position, sku, name, quantity, personalization, files)
      values (gen_random_uuid(), ${large}, ${org}, ${position}, 'SKU', 'Mug', 1, ${personalization}::json, '[]')`.execute(
      db,
    )
  }

  await migrate(db, 'latest')
  const rows = await sql<{ id: string; content_bytes: number }>`
    select id, content_bytes from orders order by id`.execute(db)
  const bytes = Object.fromEntries(rows.rows.map((r) => [r.id, r.content_bytes]))
  assert.ok(bytes[large]! > 3 * personalization.length, `content_bytes ${bytes[large]}`)
  assert.ok(bytes[large]! < 3 * personalization.length + 3 * 400, `content_bytes ${bytes[large]}`)
  assert.equal(bytes[empty], 0)
})
