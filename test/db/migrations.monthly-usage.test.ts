import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { foldOrderChanges } from '../../src/modules/orders/order-changes.repo.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

test('upgrading: the live orders stored before are counted per month and product, once; test orders are not', async () => {
  const { db } = t
  await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
  const org = '0193a000-0000-7000-8000-000000000001'
  const product = '0193a000-0000-7000-8000-0000000000f1'
  await sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
  await sql`insert into products (id, organization_id, sku, name, created_at)
    values (${product}, ${org}, 'MUG', 'Mug', now())`.execute(db)
  const orders = [
    // id, environment, status, created (UTC), items (sku, quantity), still waiting in order_changes
    ['0193a000-0000-7000-8000-0000000000b1', 'live', 'pending', '2026-10-31T23:30:00Z', [['MUG', 2]], false],
    [
      '0193a000-0000-7000-8000-0000000000b2',
      'live',
      'cancelled',
      '2026-11-01T00:10:00Z',
      [
        ['MUG', 1],
        [null, 4],
      ],
      false,
    ],
    ['0193a000-0000-7000-8000-0000000000b3', 'test', 'pending', '2026-11-02T10:00:00Z', [['MUG', 9]], false],
    ['0193a000-0000-7000-8000-0000000000b4', 'live', 'pending', '2026-11-03T10:00:00Z', [['CARD', 3]], true],
  ] as const
  for (const [id, environment, status, created, items, waiting] of orders) {
    await sql`
      insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
        ordered_at, created_at, updated_at, content_hash, content_bytes)
      values (${id}, ${org}, ${environment}, 'api', ${id}, ${status}, 'Jo', ${created}, ${created}, ${created}, 'h', 0)`.execute(
      db,
    )
    for (const [position, [sku, quantity]] of items.entries()) {
      await sql`
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, product_id,
          personalization, files)
        values (gen_random_uuid(), ${id}, ${org}, ${position}, ${sku}, 'Thing', ${quantity},
          ${sku === 'MUG' ? product : null}, '{}', '[]')`.execute(db)
    }
    if (waiting) {
      await sql`insert into order_changes (order_id, organization_id, live, created, day, status, orders, items, quantity, at)
        values (${id}, ${org}, true, true, ${created.slice(0, 10)}, 'pending', 1, 1, 3, ${created})`.execute(
        db,
      )
    }
  }

  await migrate(db, 'latest')
  const usage = async () =>
    (
      await sql<{ month: string; orders: number; items: number; quantity: number }>`
        select to_char(month, 'YYYY-MM') as month, orders, items, quantity::int as quantity
        from monthly_usage where organization_id = ${org} order by month`.execute(db)
    ).rows
  const products = async () =>
    (
      await sql<{ month: string; orders: number; items: number; quantity: number }>`
        select to_char(month, 'YYYY-MM') as month, orders, items, quantity::int as quantity
        from monthly_product_usage where product_id = ${product} order by month`.execute(db)
    ).rows
  assert.deepEqual(await usage(), [
    { month: '2026-10', orders: 1, items: 1, quantity: 2 },
    { month: '2026-11', orders: 1, items: 2, quantity: 5 },
  ])
  assert.deepEqual(await products(), [
    { month: '2026-10', orders: 1, items: 1, quantity: 2 },
    { month: '2026-11', orders: 1, items: 1, quantity: 1 },
  ])
  // The order still waiting is counted by the fold, once.
  assert.equal(await db.transaction().execute((trx) => foldOrderChanges(trx, 100)), 1)
  assert.deepEqual(await usage(), [
    { month: '2026-10', orders: 1, items: 1, quantity: 2 },
    { month: '2026-11', orders: 2, items: 3, quantity: 8 },
  ])

  await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
  const gone = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables
    where table_name in ('monthly_usage', 'monthly_product_usage') and table_schema = current_schema()`.execute(
    db,
  )
  assert.equal(gone.rows[0]!.n, 0)
  await migrate(db, 'latest')
})
