import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { sql } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { orderBody, type TestApp } from './app.ts'
import { memberOf } from './dashboard.ts'
import { png, uploadFile } from './order-files.ts'

/** A customer whose every value is unique to the test run, so that a dump finds only theirs. */
export function customer(label: string) {
  const tag = randomBytes(4).toString('hex')
  return {
    name: `${label} Quennell-${tag}`,
    email: `${label.toLowerCase()}.${tag}@kunden.example`,
    phone: `+49 30 ${tag.replace(/\D/g, '7').slice(0, 4)} ${String(Date.now()).slice(-4)}`,
    greeting: `Happy birthday, ${label} ${tag} from all of us`,
    file: `${label.toLowerCase()}-${tag}-portrait.png`,
  }
}
export type Customer = ReturnType<typeof customer>

/** Every text the service may keep of the customer: what a dump must not find after the erasure. */
export const textsOf = (c: Customer) => [c.name, c.email, c.phone, c.greeting, c.file.replace(/\.png$/, '')]

/**
 * Every text and JSON value of every table of the schema, one row a line:
 * the whole database as a dump would show it.
 */
export async function dumpDatabase(db: Database): Promise<string> {
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db)
  assert.ok(tables.length > 40, `${tables.length} tables`)
  const parts: string[] = []
  for (const { name } of tables) {
    const { rows } = await sql<{ line: string }>`select t::text as line from ${sql.table(name)} t`.execute(db)
    for (const row of rows) parts.push(`${name}: ${row.line}`)
  }
  return parts.join('\n')
}

/** The lines of the dump holding any of the texts (compared without case), for a failure to show. */
export function occurrences(dump: string, texts: string[]): string[] {
  const lowered = texts.map((t) => t.toLowerCase())
  return dump
    .split('\n')
    .filter((line) => lowered.some((t) => line.toLowerCase().includes(t)))
    .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line))
}

/** The body of an order of the customer: personalization and a file that carry them. */
export function customerOrder(c: Customer, uploadId?: string) {
  return orderBody({
    customer: { name: c.name, email: c.email, phone: c.phone },
    items: [
      {
        sku: 'MUG-01',
        name: 'Mug',
        quantity: 2,
        price: 12.5,
        personalization: { text: c.greeting, color: 'red', size: 3 },
        ...(uploadId ? { files: [{ upload_id: uploadId, role: 'print' }] } : {}),
      },
      { sku: 'CARD-01', name: 'Card', quantity: 1, price: 2 },
    ],
  })
}

/**
 * A customer's orders through every path: a live API order with a file whose
 * production completed, a live order changed in the dashboard (its customer
 * and personalization), a test order, a refused order (the request log keeps
 * its body), and a shop order. Answers the orders' ids and the member who
 * changed one.
 */
export async function ordersOfEveryPath(
  t: TestApp,
  tenant: Awaited<ReturnType<TestApp['tenant']>>,
  c: Customer,
): Promise<{ finished: string; changed: string; test: string; shop: string; ids: string[] }> {
  const upload = await uploadFile(t, tenant.liveKey, png(), c.file)
  const finished = await created(t, tenant.liveKey, customerOrder(c, upload))
  const view = await t.admin('GET', `/admin/v1/orders/${finished}`)
  const productionOrderId = view.json().data.order.production_order.id as string
  for (const status of ['in_progress', 'completed']) {
    const res = await t.admin('POST', `/admin/v1/production-orders/${productionOrderId}/status`, { status })
    assert.equal(res.statusCode, 200, res.body)
  }

  const changed = await created(t, tenant.liveKey, customerOrder(c))
  const developer = await memberOf(t, tenant.orgId, 'developer')
  const page = await developer.client.call('GET', `/orders/${changed}`)
  assert.equal(page.statusCode, 200, page.body)
  const order = page.json().data.order
  const change = await developer.client.call('POST', `/orders/${changed}/changes`, {
    expected_updated_at: order.updated_at,
    customer: { name: c.name, email: c.email, phone: `${c.phone} 9` },
    items: [{ id: order.items[0].id, personalization: { text: `${c.greeting} (again)`, color: 'blue' } }],
  })
  assert.equal(change.statusCode, 200, change.body)

  const test = await created(t, tenant.testKey, customerOrder(c))
  const refused = await t.api(tenant.liveKey, 'POST', '/v1/orders', {
    ...customerOrder(c),
    items: [{ name: '', quantity: 0, personalization: { text: c.greeting } }],
  })
  assert.equal(refused.statusCode, 422, refused.body)
  const shop = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/shop-orders`, customerOrder(c))
  assert.equal(shop.statusCode, 201, shop.body)
  const shopId = shop.json().data.order.id as string
  await t.services.requests.recorder.flush()
  return { finished, changed, test, shop: shopId, ids: [finished, changed, test, shopId] }
}

async function created(t: TestApp, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.api(key, 'POST', '/v1/orders', body)
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data.order.id
}
