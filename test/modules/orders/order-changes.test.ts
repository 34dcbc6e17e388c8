import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { startOrderChangeFolding } from '../../../src/modules/orders/order-changes.folding.ts'
import { foldOrderChanges } from '../../../src/modules/orders/order-changes.repo.ts'
import { foldWebhookOutcomes } from '../../../src/modules/webhooks/daily-outcomes.repo.ts'
import { createTestApp, DIALECT, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'

/**
 * Orders and status changes are recorded in order_changes by the order's own
 * statement and folded into the statistics and unmatched skus off the order
 * path; whatever has or has not been folded, and after a fold that died
 * half-way, the figures read are those of a full count.
 */
let t: TestApp
before(async () => {
  t = await createTestApp()
})
after(() => t.close())

const fold = () => t.db.transaction().execute((trx) => foldOrderChanges(trx, 3))
async function foldAll(): Promise<number> {
  let total = 0
  for (let n = await fold(); n; n = await fold()) total += n!
  return total
}
const pending = async () =>
  Number((await sql<{ n: string }>`select count(*) as n from order_changes`.execute(t.db)).rows[0]!.n)

/** What the statistics and unmatched skus answer. */
async function figures(orgId: string) {
  const stats = await t.admin('GET', `/admin/v1/organizations/${orgId}/stats`)
  assert.equal(stats.statusCode, 200, stats.body)
  const viewer = await memberOf(t, orgId, 'viewer')
  const unmatched = await viewer.client.call('GET', '/products/unmatched-skus')
  assert.equal(unmatched.statusCode, 200, unmatched.body)
  return { stats: stats.json().data, unmatched: unmatched.json().data }
}

/** The same figures counted from the orders themselves. */
async function fullCount(orgId: string) {
  const byStatus = await sql<{ status: string; orders: string; items: string; quantity: string }>`
    select o.status, count(distinct o.id)::text as orders, count(i.id)::text as items,
      coalesce(sum(i.quantity), 0)::text as quantity
    from orders o left join order_items i on i.order_id = o.id
    where o.organization_id = ${orgId}::uuid and o.environment = 'live'
    group by o.status order by o.status`.execute(t.db)
  const skus = await sql<{ sku: string; items: string; orders: string }>`
    select i.sku, count(*)::text as items, count(distinct i.order_id)::text as orders
    from order_items i
    where i.organization_id = ${orgId}::uuid and i.product_id is null and i.sku is not null
    group by i.sku order by i.sku`.execute(t.db)
  return { byStatus: byStatus.rows, skus: skus.rows }
}

async function aggregated(orgId: string) {
  const byStatus = await sql<{ status: string; orders: string; items: string; quantity: string }>`
    select status, sum(orders)::text as orders, sum(items)::text as items, sum(quantity)::text as quantity
    from order_daily_stats where organization_id = ${orgId}::uuid
    group by status having sum(orders) <> 0 order by status`.execute(t.db)
  const skus = await sql<{ sku: string; items: string; orders: string }>`
    select sku, sum(items)::text as items, sum(orders)::text as orders
    from unmatched_skus where organization_id = ${orgId}::uuid group by sku order by sku`.execute(t.db)
  return { byStatus: byStatus.rows, skus: skus.rows }
}

async function setProductionStatus(orderId: string, status: string) {
  const { id } = await t.db
    .selectFrom('production_orders')
    .select('id')
    .where('order_id', '=', orderId)
    .executeTakeFirstOrThrow()
  const res = await t.admin('POST', `/admin/v1/production-orders/${id}/status`, { status })
  assert.equal(res.statusCode, 200, res.body)
}

const items = (n: number) => [
  { sku: 'MUG', name: 'Mug', quantity: n },
  { sku: `CARD-${n % 2}`, name: 'Card', quantity: 1 },
  { name: 'No sku', quantity: 2 },
]

test('folded or not, and after a fold that died half-way, the figures are a full count of the orders', async () => {
  const org = await t.tenant('Folded Figures')
  const ids: string[] = []
  for (let n = 1; n <= 7; n++) {
    const res = await t.api(n === 7 ? org.testKey : org.liveKey, 'POST', '/v1/orders', {
      ...orderBody({ external_order_id: `fold-${n}`, items: items(n) }),
    })
    assert.equal(res.statusCode, 201, res.body)
    ids.push(res.json().data.order.id)
  }
  await setProductionStatus(ids[0]!, 'in_progress')
  await setProductionStatus(ids[1]!, 'completed')
  await setProductionStatus(ids[1]!, 'completed') // no change: nothing recorded
  await setProductionStatus(ids[2]!, 'cancelled')

  // 7 creations (the test order counts for unmatched skus only) and 3 moves of two rows.
  assert.equal(await pending(), 13)
  const unfolded = await figures(org.orgId)
  assert.equal(unfolded.stats.orders_total, 6)
  assert.deepEqual(unfolded.stats.orders_by_status, {
    pending: 3,
    in_production: 1,
    completed: 1,
    failed: 0,
    cancelled: 1,
  })

  // A fold whose transaction ends without committing (a crash mid-batch) counts nothing.
  await assert.rejects(
    t.db.transaction().execute(async (trx) => {
      assert.equal(await foldOrderChanges(trx, 5), 5)
      throw new Error('the process died here')
    }),
    /died here/,
  )
  assert.equal(await pending(), 13)
  assert.deepEqual(await figures(org.orgId), unfolded)

  // Half folded, then all: the answers never change, and the aggregates end equal to a full count.
  assert.equal(await fold(), 3)
  assert.deepEqual(await figures(org.orgId), unfolded)
  assert.equal(await foldAll(), 10)
  assert.equal(await pending(), 0)
  assert.deepEqual(await figures(org.orgId), unfolded)
  assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))

  // A product takes its sku off, folded or pending.
  await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'fold-8', items: items(8) }))
  const product = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
    sku: 'MUG',
    name: 'Mug',
  })
  assert.equal(product.statusCode, 201, product.body)
  await foldAll()
  assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))
  assert.equal(
    (await aggregated(org.orgId)).skus.some((s) => s.sku === 'MUG'),
    false,
  )
})

test('one fold at a time: a second one finds the lock taken and folds nothing', {
  skip: DIALECT === 'pglite' ? 'the embedded database has one connection: folds cannot overlap' : false,
}, async () => {
  const org = await t.tenant('Two Folders')
  await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'two-1' }))
  let second: number | null | undefined
  await t.db.transaction().execute(async (trx) => {
    await foldOrderChanges(trx, 1000)
    second = await t.db.transaction().execute((other) => foldOrderChanges(other, 1000))
  })
  assert.equal(second, null)
  assert.equal(await pending(), 0)
  assert.deepEqual(await aggregated(org.orgId), await fullCount(org.orgId))
})

test('upkeep: after enough folded rows, order_changes is vacuumed, and statistics gathered when asked (the embedded database)', async () => {
  const org = await t.tenant('Upkeep')
  await t.api(org.liveKey, 'POST', '/v1/orders', orderBody({ external_order_id: 'upkeep-1' }))
  const stat = async (table: string, column: 'analyze' | 'vacuum') =>
    (
      await sql<{ at: Date | null }>`
        select greatest(${sql.ref(`last_${column}`)}, ${sql.ref(`last_auto${column}`)}) as at from pg_stat_user_tables
        where relname = ${table} and schemaname = current_schema()`.execute(t.db)
    ).rows[0]?.at ?? null
  const analyzed = () => stat('orders', 'analyze')
  const before = await analyzed()
  const vacuumedBefore = await stat('order_changes', 'vacuum')
  const folding = startOrderChangeFolding({
    db: t.db,
    vacuumEvery: 1,
    analyzeEvery: 1,
    intervalMs: 60_000,
    onError: assert.ifError,
  })
  try {
    await folding.drain()
  } finally {
    await folding.stop()
  }
  assert.equal(await pending(), 0)
  const after = await analyzed()
  assert.ok(after !== null && (before === null || after > before), `last analyzed ${before} -> ${after}`)
  const vacuumed = await stat('order_changes', 'vacuum')
  assert.ok(
    vacuumed !== null && (vacuumedBefore === null || vacuumed > vacuumedBefore),
    `vacuumed ${vacuumedBefore} -> ${vacuumed}`,
  )
})

test('the folding loop also folds the other logs it is given (settled webhook deliveries), in batches', async () => {
  const org = (await t.createOrganization('Folded Outcomes')).id
  for (let n = 0; n < 7; n++) {
    await sql`insert into webhook_outcome_changes (organization_id, environment, day, succeeded, failed)
      values (${org}, 'live', '2026-11-20', 2, ${n % 2})`.execute(t.db)
  }
  const folding = startOrderChangeFolding({
    db: t.db,
    batch: 3,
    intervalMs: 60_000,
    alsoFold: [foldWebhookOutcomes],
    onError: assert.ifError,
  })
  try {
    await folding.drain()
  } finally {
    await folding.stop()
  }
  assert.deepEqual(await t.db.selectFrom('webhook_outcome_changes').selectAll().execute(), [])
  const folded = await sql<{ day: string; succeeded: string; failed: string }>`
    select to_char(day, 'YYYY-MM-DD') as day, succeeded::text, failed::text from webhook_daily_outcomes
    where organization_id = ${org}`.execute(t.db)
  assert.deepEqual(folded.rows, [{ day: '2026-11-20', succeeded: '14', failed: '3' }])
})
