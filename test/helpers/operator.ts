import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Order, Warning } from '../../src/modules/orders/orders.schemas.ts'
import { orderBody, type TestApp } from './app.ts'

export { ISO_MS } from './app.ts'
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
export const hex = () => randomBytes(4).toString('hex')

/** Rows in a table, over every organization. */
export async function count(
  t: TestApp,
  table: 'organizations' | 'api_keys' | 'products' | 'orders' | 'events',
) {
  const row = await t.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** An order through the public API, which must be created. */
export async function createOrder(t: TestApp, key: string, body: Record<string, unknown> = orderBody()) {
  const res = await t.api(key, 'POST', '/v1/orders', body)
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { order: Order; warnings: Warning[] }
}
