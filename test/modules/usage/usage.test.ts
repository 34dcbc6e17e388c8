import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { sumDailyStats } from '../../../src/modules/orders/statistics/statistics.repo.ts'
import { createTestApp, manualClock, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

/**
 * Usage counted for billing: live orders per organization and UTC month of
 * creation, with items and quantity, split by product. Maintained by the
 * fold of order_changes (off the order path); whatever has been folded, the
 * answers are a full count of the orders, and the aggregates end equal to it.
 */
const clock = manualClock(new Date('2026-10-31T23:59:00.000Z'))
let t: TestApp
before(async () => {
  t = await createTestApp({ clock })
})
after(() => t.close())

const foldAll = async () => {
  while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 4))) === 4) {}
}

async function createOrder(key: string, body: Record<string, unknown>) {
  const res = await t.api(key, 'POST', '/v1/orders', body)
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data.order as { id: string }
}

interface Totals {
  orders: number
  items: number
  quantity: number
}
type Usage = Totals & {
  id: string
  products: (Totals & { sku: string | null })[]
  unlinked: Omit<Totals, 'orders'>
}

/** An organization's row as /admin/v1/usage answers it. */
async function adminRow(orgId: string, month: string): Promise<Usage> {
  const res = await t.admin('GET', `/admin/v1/usage?month=${month}`)
  assert.equal(res.statusCode, 200, res.body)
  const row = (res.json().data.organizations as Usage[]).find((o) => o.id === orgId)
  assert.ok(row, `${orgId} listed`)
  return row
}

const shape = (u: Usage) => ({
  orders: u.orders,
  items: u.items,
  quantity: u.quantity,
  products: u.products.map((p) => ({ sku: p.sku, orders: p.orders, items: p.items, quantity: p.quantity })),
  unlinked: u.unlinked,
})

/** The same figures counted from the orders tables themselves. */
async function fullCount(orgId: string, month: string) {
  const [totals] = (
    await sql<Totals>`
      select count(distinct o.id)::int as orders, count(i.id)::int as items,
        coalesce(sum(i.quantity), 0)::int as quantity
      from orders o left join order_items i on i.order_id = o.id
      where o.organization_id = ${orgId}::uuid and o.environment = 'live'
        and to_char(o.created_at at time zone 'UTC', 'YYYY-MM') = ${month}`.execute(t.db)
  ).rows
  const products = (
    await sql<Totals & { sku: string }>`
      select p.sku, count(distinct o.id)::int as orders, count(*)::int as items, sum(i.quantity)::int as quantity
      from orders o join order_items i on i.order_id = o.id join products p on p.id = i.product_id
      where o.organization_id = ${orgId}::uuid and o.environment = 'live'
        and to_char(o.created_at at time zone 'UTC', 'YYYY-MM') = ${month}
      group by p.sku order by sum(i.quantity) desc, p.sku`.execute(t.db)
  ).rows
  const linked = products.reduce(
    (n, p) => ({ items: n.items + p.items, quantity: n.quantity + p.quantity }),
    {
      items: 0,
      quantity: 0,
    },
  )
  return {
    ...totals!,
    products,
    unlinked: { items: totals!.items - linked.items, quantity: totals!.quantity - linked.quantity },
  }
}

/** The aggregates alone (what the fold has counted). */
async function aggregated(orgId: string, month: string) {
  const row = await sql<Totals>`
    select orders, items, quantity::int as quantity from monthly_usage
    where organization_id = ${orgId}::uuid and month = ${`${month}-01`}::date`.execute(t.db)
  return row.rows[0]
}

describe('usage for billing', () => {
  let org: Awaited<ReturnType<TestApp['tenant']>>

  before(async () => {
    org = await t.tenant('Billing Prints')
    // A product before the orders, one linked after them.
    const mug = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'MUG',
      name: 'Mug',
    })
    assert.equal(mug.statusCode, 201, mug.body)
  })

  test('live orders per UTC month, split by product; test orders never; a cancelled order stays counted', async () => {
    // October (the last minute of it, UTC): one live order.
    await createOrder(org.liveKey, orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 2 }] }))
    clock.set(new Date('2026-11-01T00:00:30.000Z'))
    const items = [
      { sku: 'MUG', name: 'Mug', quantity: 3 },
      { sku: 'CARD', name: 'Card', quantity: 1 },
      { name: 'No sku', quantity: 5 },
    ]
    const first = await createOrder(org.liveKey, orderBody({ items }))
    await createOrder(org.liveKey, orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 4 }] }))
    await createOrder(org.testKey, orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 100 }] }))

    // Nothing folded yet: the answers already count everything.
    const november = {
      orders: 2,
      items: 4,
      quantity: 13,
      products: [{ sku: 'MUG', orders: 1, items: 1, quantity: 3 }],
      unlinked: { items: 3, quantity: 10 },
    }
    assert.deepEqual(shape(await adminRow(org.orgId, '2026-11')), november)
    assert.deepEqual(await fullCount(org.orgId, '2026-11'), november)
    assert.equal(await aggregated(org.orgId, '2026-11'), undefined)

    // Cancelled, then folded: still counted in its month.
    const cancel = await t.admin('POST', `/admin/v1/orders/${first.id}/cancel`)
    assert.equal(cancel.statusCode, 200, cancel.body)
    await foldAll()
    assert.deepEqual(await aggregated(org.orgId, '2026-11'), { orders: 2, items: 4, quantity: 13 })
    assert.deepEqual(shape(await adminRow(org.orgId, '2026-11')), november)

    // CARD becomes a product after its orders were counted: the split follows, folded or not.
    await createOrder(org.liveKey, orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 2 }] }))
    const card = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'CARD',
      name: 'Greeting card',
    })
    assert.equal(card.statusCode, 201, card.body)
    const after = shape(await adminRow(org.orgId, '2026-11'))
    assert.deepEqual(after, {
      orders: 3,
      items: 5,
      quantity: 15,
      products: [
        { sku: 'CARD', orders: 3, items: 3, quantity: 7 },
        { sku: 'MUG', orders: 1, items: 1, quantity: 3 },
      ],
      unlinked: { items: 1, quantity: 5 },
    })
    assert.deepEqual(after, await fullCount(org.orgId, '2026-11'))
    await foldAll()
    assert.deepEqual(shape(await adminRow(org.orgId, '2026-11')), after)
    assert.deepEqual(await aggregated(org.orgId, '2026-11'), { orders: 3, items: 5, quantity: 15 })

    const october = shape(await adminRow(org.orgId, '2026-10'))
    assert.deepEqual(october, {
      orders: 1,
      items: 1,
      quantity: 2,
      products: [{ sku: 'MUG', orders: 1, items: 1, quantity: 2 }],
      unlinked: { items: 0, quantity: 0 },
    })
    assert.deepEqual(october, await fullCount(org.orgId, '2026-10'))
    // A month without orders: the organization is listed with zeros.
    assert.deepEqual(shape(await adminRow(org.orgId, '2026-09')), {
      orders: 0,
      items: 0,
      quantity: 0,
      products: [],
      unlinked: { items: 0, quantity: 0 },
    })
  })

  test('the console answers the same numbers, its CSV too; the month defaults to the current one', async () => {
    const operator = await operatorOf(t)
    const page = await operator.client.call('GET', '/operator/usage?month=2026-11')
    assert.equal(page.statusCode, 200, page.body)
    const admin = await t.admin('GET', '/admin/v1/usage?month=2026-11')
    assert.deepEqual(page.json(), admin.json())
    const data = page.json().data
    assert.equal(data.month, '2026-11')
    const sum = (k: 'orders' | 'items' | 'quantity') =>
      (data.organizations as Usage[]).reduce((n, o) => n + o[k], 0)
    assert.deepEqual(data.totals, { orders: sum('orders'), items: sum('items'), quantity: sum('quantity') })

    const current = await operator.client.call('GET', '/operator/usage')
    assert.equal(current.json().data.month, '2026-11')

    // A name a spreadsheet would run as a formula, with a comma and quotes.
    const hostile = await t.tenant('=SUM(A1), "Ltd"')
    const csv = await operator.client.call('GET', '/operator/usage.csv?month=2026-11')
    assert.equal(csv.statusCode, 200, csv.body)
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8')
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="usage-2026-11.csv"')
    const lines = csv.body.trimEnd().split('\r\n')
    assert.equal(
      lines[0],
      'month,organization_id,organization,line,product_id,sku,product,orders,items,quantity',
    )
    const mine = lines.filter((l) => l.includes(org.orgId))
    assert.equal(mine.length, 4)
    assert.equal(mine[0], `2026-11,${org.orgId},Billing Prints,organization,,,,3,5,15`)
    assert.match(
      mine[1]!,
      new RegExp(`^2026-11,${org.orgId},Billing Prints,product,[0-9a-f-]{36},CARD,Greeting card,3,3,7$`),
    )
    assert.match(mine[2]!, /,product,[0-9a-f-]{36},MUG,Mug,1,1,3$/)
    assert.equal(mine[3], `2026-11,${org.orgId},Billing Prints,unlinked,,,,,1,5`)
    assert.deepEqual(
      lines.filter((l) => l.includes(hostile.orgId)),
      [`2026-11,${hostile.orgId},"'=SUM(A1), ""Ltd""",organization,,,,0,0,0`],
    )
  })

  test('a month that is not YYYY-MM is refused, as is an unknown parameter', async () => {
    const operator = await operatorOf(t)
    for (const month of ['2026-13', '2026-1', 'november', '2026-11-01']) {
      const error = assertError(
        await t.admin('GET', `/admin/v1/usage?month=${month}`),
        422,
        'validation_failed',
      )
      assert.equal(error.field, 'month')
      assert.match(error.errors[0].message, /^month must be a calendar month \(UTC\) written YYYY-MM/)
      const res = await operator.client.call('GET', `/operator/usage?month=${month}`)
      assertError(res, 422, 'validation_failed')
    }
    assertError(await t.admin('GET', '/admin/v1/usage?month=2026-11&org=x'), 422, 'validation_failed')
  })

  test("owners see their own organization's usage; developers and viewers are refused", async () => {
    const other = await t.tenant('Other Org')
    await createOrder(other.liveKey, orderBody())
    const owner = await memberOf(t, org.orgId, 'owner')
    const res = await owner.client.call('GET', '/usage?month=2026-11')
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.equal(data.month, '2026-11')
    assert.equal(data.organization.id, org.orgId)
    assert.equal(data.organization.name, 'Billing Prints')
    assert.deepEqual(shape(data.organization), shape(await adminRow(org.orgId, '2026-11')))
    for (const role of ['developer', 'viewer'] as const) {
      const member = await memberOf(t, org.orgId, role)
      assertError(await member.client.call('GET', '/usage'), 403, 'role_required')
    }
  })
})

describe('usage and statistics follow an order changed in the dashboard', () => {
  /** The organization's statistics per status, counted from the orders tables themselves. */
  async function fullDaily(orgId: string) {
    const rows = await sql<Totals & { status: string }>`
      select o.status, count(distinct o.id)::int as orders, count(i.id)::int as items,
        coalesce(sum(i.quantity), 0)::int as quantity
      from orders o left join order_items i on i.order_id = o.id
      where o.organization_id = ${orgId}::uuid and o.environment = 'live'
      group by o.status order by o.status`.execute(t.db)
    return rows.rows
  }
  /** The statistics as the dashboard reads them (aggregates and what is not folded yet). */
  async function maintainedDaily(orgId: string) {
    const { all } = await sumDailyStats(t.db, orgId, { all: null })
    return all!
      .filter((r) => r.orders !== 0 || r.items !== 0 || r.quantity !== 0)
      .sort((a, b) => a.status.localeCompare(b.status))
  }
  /** The statistics' aggregate table alone. */
  async function foldedDaily(orgId: string) {
    const rows = await sql<Totals & { status: string }>`
      select status, sum(orders)::int as orders, sum(items)::int as items, sum(quantity)::int as quantity
      from order_daily_stats where organization_id = ${orgId}::uuid
      group by status having sum(orders) <> 0 or sum(items) <> 0 or sum(quantity) <> 0
      order by status`.execute(t.db)
    return rows.rows
  }

  test('a quantity changed before and after the fold, then a cancel: the counts equal a full count', async () => {
    const org = await t.tenant('Resized Prints')
    const mug = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
      sku: 'MUG',
      name: 'Mug',
    })
    assert.equal(mug.statusCode, 201, mug.body)
    const developer = await memberOf(t, org.orgId, 'developer')
    const month = clock.now().toISOString().slice(0, 7)

    async function changeQuantities(orderId: string, quantities: number[]) {
      const page = await developer.client.call('GET', `/orders/${orderId}`)
      assert.equal(page.statusCode, 200, page.body)
      const shown = page.json().data.order as { updated_at: string; items: { id: string }[] }
      const res = await developer.client.call('POST', `/orders/${orderId}/changes`, {
        expected_updated_at: shown.updated_at,
        items: quantities.map((quantity, n) => ({ id: shown.items[n]!.id, quantity })),
      })
      assert.equal(res.statusCode, 200, res.body)
    }
    async function assertCounted() {
      assert.deepEqual(shape(await adminRow(org.orgId, month)), await fullCount(org.orgId, month))
      assert.deepEqual(await maintainedDaily(org.orgId), await fullDaily(org.orgId))
    }

    const a = await createOrder(
      org.liveKey,
      orderBody({
        items: [
          { sku: 'MUG', name: 'Mug', quantity: 2 },
          { sku: 'CARD', name: 'Card', quantity: 1 },
        ],
      }),
    )
    const b = await createOrder(org.liveKey, orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 4 }] }))
    const testOrder = await createOrder(
      org.testKey,
      orderBody({ items: [{ sku: 'MUG', name: 'Mug', quantity: 3 }] }),
    )

    // Before the creation is folded.
    await changeQuantities(a.id, [5, 3])
    await assertCounted()
    assert.deepEqual(shape(await adminRow(org.orgId, month)), {
      orders: 2,
      items: 3,
      quantity: 12,
      products: [{ sku: 'MUG', orders: 2, items: 2, quantity: 9 }],
      unlinked: { items: 1, quantity: 3 },
    })
    await foldAll()
    await assertCounted()

    // After it: the folded counts move.
    await changeQuantities(b.id, [1])
    await changeQuantities(testOrder.id, [30])
    await assertCounted()
    assert.deepEqual(shape(await adminRow(org.orgId, month)), {
      orders: 2,
      items: 3,
      quantity: 9,
      products: [{ sku: 'MUG', orders: 2, items: 2, quantity: 6 }],
      unlinked: { items: 1, quantity: 3 },
    })

    // A status move after a resize carries the quantity as it is now.
    const cancel = await t.admin('POST', `/admin/v1/orders/${a.id}/cancel`)
    assert.equal(cancel.statusCode, 200, cancel.body)
    await changeQuantities(b.id, [2])
    await assertCounted()
    await foldAll()
    await assertCounted()
    const folded = await fullDaily(org.orgId)
    assert.deepEqual(await foldedDaily(org.orgId), folded)
    assert.deepEqual(
      folded.map((r) => [r.status, r.quantity]),
      [
        ['cancelled', 8],
        ['pending', 2],
      ],
    )
    assert.deepEqual(await aggregated(org.orgId, month), { orders: 2, items: 3, quantity: 10 })
  })
})
