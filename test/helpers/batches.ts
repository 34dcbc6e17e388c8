import assert from 'node:assert/strict'
import { before } from 'node:test'
import { foldOrderChanges } from '../../src/modules/orders/changes/changes.repo.ts'
import { manualClock, orderBody, useTestApp } from './app.ts'
import { memberOf, operatorOf } from './dashboard.ts'
import { createOrder } from './order-files.ts'

/**
 * A batch test file's app (its clock on Friday 4 December 2026, 10:00 UTC),
 * organization, owner and operator, and the means to make orders and
 * batches and read what they recorded. Call it inside the file's describe.
 */
export function useBatches(organization: string) {
  const clock = manualClock(new Date('2026-12-04T10:00:00.000Z'))
  const t = useTestApp({ clock })
  const who = {} as {
    key: string
    orgId: string
    owner: Awaited<ReturnType<typeof memberOf>>
    operator: Awaited<ReturnType<typeof operatorOf>>
  }
  before(async () => {
    const tenant = await t.tenant(organization)
    who.key = tenant.liveKey
    who.orgId = tenant.orgId
    who.owner = await memberOf(t, tenant.orgId, 'owner')
    who.operator = await operatorOf(t)
  })
  const fold = async () => {
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
  }

  /** A live order with these items: its id, production order id and jobs in item order. */
  async function order(items: Record<string, unknown>[], orderedAt = '2026-12-04T09:00:00.000Z') {
    const { id } = await createOrder(t, who.key, orderBody({ items, ordered_at: orderedAt }))
    await fold()
    const po = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', id)
      .executeTakeFirstOrThrow()
    const jobs = await t.db
      .selectFrom('production_jobs as j')
      .innerJoin('order_items as i', 'i.id', 'j.order_item_id')
      .select(['j.id', 'i.sku'])
      .where('j.production_order_id', '=', po.id)
      .orderBy('i.position')
      .execute()
    return { id, po: po.id, jobs: jobs.map((j) => j.id) }
  }
  const call = (method: string, path: string, body?: unknown) =>
    who.operator.client.call(method, `/operator/batches${path}`, body)
  async function make(name: string, ids: string[]) {
    const res = await call('POST', '', { name, production_order_ids: ids })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as BatchDetail
  }
  /** The orders' events but order.received, as `type n` (n: the order's index), in the order recorded. */
  const events = async (orderIds: string[]) =>
    (
      await t.db
        .selectFrom('events')
        .select(['type', 'order_id'])
        .where('order_id', 'in', orderIds)
        .where('type', '!=', 'order.received')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => `${e.type} ${orderIds.indexOf(e.order_id!)}`)
  /** How many rows the batch tables, the audit log and the events hold. */
  const counts = async () =>
    Object.fromEntries(
      await Promise.all(
        (['batches', 'batch_orders', 'audit_log', 'events'] as const).map(async (table) => [
          table,
          Number(
            (
              await t.db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ]),
      ),
    )
  return { t, who, fold, order, call, make, events, counts }
}

export const poster = (quantity: number, text: string) => ({
  sku: 'POSTER-A2',
  name: 'Poster A2',
  quantity,
  personalization: { text },
})
export const mug = { sku: 'MUG', name: 'Mug', quantity: 2 }

export interface Result {
  production_order_id: string
  outcome: string
  status: string
  reason: string | null
}

export interface BatchDetail {
  batch: { id: string; name: string; status: string; orders: number; created_by: string }
  orders: { production_order: { id: string }; due: { on: string } | null; items: number }[]
  products: {
    sku: string | null
    quantity: number
    lines: { production_order_id: string; quantity: number; personalization: Record<string, unknown> }[]
  }[]
}
