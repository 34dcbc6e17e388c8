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

const ORDER_GRAPH = [
  'orders',
  'events',
  'order_items',
  'production_orders',
  'production_jobs',
  'order_event_counters',
]

/** The foreign keys of the tables an order writes, as `table.column -> parent`. */
const orderGraphKeys = async () =>
  (
    await sql<{ key: string }>`
      select c.conrelid::regclass::text || '.' || a.attname || ' -> ' || c.confrelid::regclass::text as key
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and c.conrelid::regclass::text = any(${ORDER_GRAPH})
      order by 1`.execute(t.db)
  ).rows.map((r) => r.key)

test('the order graph keeps only the foreign key to products; the migration back restores the others', async () => {
  await migrate(t.db, 'latest')
  assert.deepEqual(await orderGraphKeys(), ['order_items.product_id -> products'])
  await migrate(t.db, '2026-11-28-0023-order-changes')
  assert.deepEqual(await orderGraphKeys(), [
    'events.organization_id -> organizations',
    'order_event_counters.order_id -> orders',
    'order_items.order_id -> orders',
    'order_items.product_id -> products',
    'orders.organization_id -> organizations',
    'production_jobs.order_item_id -> order_items',
    'production_jobs.production_order_id -> production_orders',
    'production_orders.order_id -> orders',
  ])
  await migrate(t.db, 'latest')
})
