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

test('upgrading: the unlinked items of existing orders are counted per sku; linked items and items without a sku are not', async () => {
  const { db } = t
  await migrate(db, '2026-11-26-0021-production-board')
  const org = '0193a000-0000-7000-8000-000000000001'
  const product = '0193a000-0000-7000-8000-0000000000f1'
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  await sql`insert into products (id, organization_id, sku, name, created_at)
    values (${product}, ${org}, 'MUG', 'Mug', now())`.execute(db)
  const orders = [
    ['0193a000-0000-7000-8000-0000000000b1', 'live', '2026-11-20T10:00:00Z', ['CARD', 'CARD', 'MUG']],
    ['0193a000-0000-7000-8000-0000000000b2', 'test', '2026-11-21T10:00:00Z', ['CARD', null]],
    ['0193a000-0000-7000-8000-0000000000b3', 'live', '2026-11-19T10:00:00Z', ['POSTER']],
  ] as const
  for (const [id, environment, created, skus] of orders) {
    await sql`
      insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
        ordered_at, created_at, updated_at, content_hash, content_bytes)
      values (${id}, ${org}, ${environment}, 'api', ${id}, 'pending', 'Jo', ${created}, ${created}, ${created}, 'h', 0)`.execute(
      db,
    )
    for (const [position, sku] of skus.entries()) {
      await sql`
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, product_id,
          personalization, files)
        values (gen_random_uuid(), ${id}, ${org}, ${position}, ${sku}, 'Thing', 1,
          ${sku === 'MUG' ? product : null}, '{}', '[]')`.execute(db)
    }
  }

  await migrate(db, 'latest')
  const rows = await sql<{ sku: string; items: number; orders: number; last_seen_at: Date }>`
    select sku, sum(items)::int as items, sum(orders)::int as orders, max(last_seen_at) as last_seen_at
    from unmatched_skus where organization_id = ${org} group by sku order by sku`.execute(db)
  assert.deepEqual(
    rows.rows.map((r) => ({ ...r, last_seen_at: r.last_seen_at.toISOString() })),
    [
      { sku: 'CARD', items: 3, orders: 2, last_seen_at: '2026-11-21T10:00:00.000Z' },
      { sku: 'POSTER', items: 1, orders: 1, last_seen_at: '2026-11-19T10:00:00.000Z' },
    ],
  )
  await migrate(db, '2026-11-26-0021-production-board')
  const gone = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables
    where table_name = 'unmatched_skus' and table_schema = current_schema()`.execute(db)
  assert.equal(gone.rows[0]!.n, 0)
  await migrate(db, 'latest')
})
