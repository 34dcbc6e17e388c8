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

test('upgrading: existing live orders are counted per UTC day and status, test orders are not', async () => {
  const { db } = t
  await migrate(db, '2026-11-26-0016-dashboard-accounts')
  const org = '0193a000-0000-7000-8000-000000000001'
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  const orders = [
    ['0193a000-0000-7000-8000-0000000000b1', 'live', 'pending', '2026-11-20T23:59:59Z', [2, 1]],
    ['0193a000-0000-7000-8000-0000000000b2', 'live', 'pending', '2026-11-20T00:00:00Z', [5]],
    ['0193a000-0000-7000-8000-0000000000b3', 'live', 'completed', '2026-11-21T00:00:00Z', []],
    ['0193a000-0000-7000-8000-0000000000b4', 'test', 'pending', '2026-11-20T10:00:00Z', [7]],
  ] as const
  for (const [id, environment, status, created, quantities] of orders) {
    await sql`
      insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
        ordered_at, created_at, updated_at, content_hash, content_bytes)
      values (${id}, ${org}, ${environment}, 'api', ${id}, ${status}, 'Jo', ${created}, ${created}, ${created}, 'h', 0)`.execute(
      db,
    )
    for (const [position, quantity] of quantities.entries()) {
      await sql`
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, personalization, files)
        values (gen_random_uuid(), ${id}, ${org}, ${position}, 'SKU', 'Mug', ${quantity}, '{}', '[]')`.execute(
        db,
      )
    }
  }

  await migrate(db, 'latest')
  const rows = await sql<{ day: string; status: string; orders: number; items: number; quantity: number }>`
    select day::text as day, status, sum(orders)::int as orders, sum(items)::int as items,
      sum(quantity)::int as quantity
    from order_daily_stats where organization_id = ${org} group by day, status order by day, status`.execute(
    db,
  )
  assert.deepEqual(rows.rows, [
    { day: '2026-11-20', status: 'pending', orders: 2, items: 3, quantity: 8 },
    { day: '2026-11-21', status: 'completed', orders: 1, items: 0, quantity: 0 },
  ])
})
