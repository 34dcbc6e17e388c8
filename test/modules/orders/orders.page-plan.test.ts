import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { CompiledQuery, sql } from 'kysely'
import { itemsWithJobsQuery } from '../../../src/modules/orders/orders.repo.ts'
import { newestOrdersPageQuery, ordersPageQuery } from '../../../src/modules/orders/orders-pages.repo.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'

/**
 * A polling page must cost the same at a million orders as at a thousand: its
 * statements reach orders through the polling index and items and jobs through
 * theirs, never by reading a whole table. Checked with EXPLAIN on a table of a
 * few thousand orders, statistics gathered, on both databases.
 */
let t: TestApp
let orgId: string
before(async () => {
  t = await createTestApp()
  orgId = (await t.createOrganization('Planned Pages')).id
  const other = (await t.createOrganization('Other')).id
  for (const [org, n] of [
    [orgId, 2000],
    [other, 1000],
  ] as const) {
    await sql`
      with o as (
        insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
          total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at,
          content_hash, content_bytes)
        select gen_random_uuid(), ${org}::uuid, 'live', 'api', 'seed-' || g, 'pending', 'EUR', 10,
          'Customer ' || g, null, null, ts, ts, ts, md5(g::text), 100
        from generate_series(1, ${n}::int) g
        cross join lateral (select timestamptz '2026-11-01' + g * interval '1 second' as ts) t
        returning id, updated_at
      ), i as (
        insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price, product_id,
          personalization, files)
        select gen_random_uuid(), o.id, ${org}::uuid, p, 'SKU-' || p, 'Item', 1, 9.90, null, '{}'::json, '[]'::json
        from o cross join generate_series(0, 2) p
        returning id, order_id
      ), po as (
        insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
        select gen_random_uuid(), o.id, 'pending', false, o.updated_at, o.updated_at from o
        returning id, order_id
      )
      insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
      select gen_random_uuid(), po.id, i.id, 'pending', now(), now() from i join po using (order_id)`.execute(
      t.db,
    )
  }
  await sql`analyze`.execute(t.db)
})
after(() => t.close())

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
}

/** Every node of the statement's plan: type, and the table or index it reads. */
async function planOf(compiled: CompiledQuery): Promise<string[]> {
  const result = await t.db.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    CompiledQuery.raw(`explain (format json) ${compiled.sql}`, [...compiled.parameters]),
  )
  const raw = result.rows[0]!['QUERY PLAN']
  const root = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0].Plan as PlanNode
  const nodes: string[] = []
  const walk = (n: PlanNode) => {
    nodes.push([n['Node Type'], n['Index Name'] ?? n['Relation Name']].filter(Boolean).join(' '))
    for (const child of n.Plans ?? []) walk(child)
  }
  walk(root)
  return nodes
}

const scope = () => ({ organizationId: orgId, environment: 'live' as const })

test('a polling page reads orders through the polling index, from the start and behind a cursor', async () => {
  for (const page of [
    { scope: scope(), updatedSince: undefined, after: undefined, limit: 100 },
    { scope: scope(), updatedSince: new Date('2026-11-01T00:10:00Z'), after: undefined, limit: 100 },
    {
      scope: scope(),
      updatedSince: undefined,
      after: { at: new Date('2026-11-01T00:20:00Z'), id: '00000000-0000-0000-0000-000000000000' },
      limit: 100,
    },
  ]) {
    const nodes = await planOf(ordersPageQuery(t.db, page).compile())
    assert.ok(
      nodes.some((n) => /^Index (Only )?Scan orders_polling_idx$/.test(n)),
      nodes.join(' / '),
    )
    assert.ok(!nodes.some((n) => n.startsWith('Seq Scan')), nodes.join(' / '))
  }
})

test("a page's items and their jobs are read through their indexes, whatever the size of the tables", async () => {
  const orders = await ordersPageQuery(t.db, {
    scope: scope(),
    updatedSince: undefined,
    after: undefined,
    limit: 100,
  }).execute()
  const nodes = await planOf(itemsWithJobsQuery(orders.map((o) => o.id)).compile(t.db))
  assert.ok(
    nodes.some((n) => /order_items_order_idx$/.test(n)),
    nodes.join(' / '),
  )
  assert.ok(
    nodes.some((n) => /^Index (Only )?Scan production_jobs_order_item_id_key$/.test(n)),
    nodes.join(' / '),
  )
  assert.ok(!nodes.some((n) => n.startsWith('Seq Scan') || n.startsWith('Hash')), nodes.join(' / '))
})

test("Orders' automation filters read the partial indexes that hold only tagged, held and rush orders", async () => {
  // A few orders the rules touched among the thousands they did not.
  await sql`
    update orders set tags = '{large}'
    where id in (select id from orders where organization_id = ${orgId}::uuid order by id limit 5)`.execute(
    t.db,
  )
  await sql`
    update production_orders set held_at = created_at, priority = 'rush'
    where order_id in (select id from orders where organization_id = ${orgId}::uuid order by id limit 5)`.execute(
    t.db,
  )
  await sql`analyze`.execute(t.db)
  const page = { scope: scope(), status: undefined, from: undefined, until: undefined, search: undefined }
  for (const [filter, index] of [
    [{ tag: 'large' }, 'orders_tags_idx'],
    [{ held: true }, 'production_orders_held_idx'],
    [{ priority: 'rush' as const }, 'production_orders_rush_idx'],
  ] as const) {
    const query = newestOrdersPageQuery(t.db, { ...page, ...filter, before: undefined, limit: 50 })
    const nodes = await planOf(query.compile())
    assert.ok(
      nodes.some((n) => n.endsWith(index)),
      `${JSON.stringify(filter)}: ${nodes.join(' / ')}`,
    )
    assert.ok(!nodes.some((n) => n.startsWith('Seq Scan')), nodes.join(' / '))
    assert.equal((await query.execute()).length, 5)
  }
})
