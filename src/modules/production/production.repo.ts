import { type RawBuilder, sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'

/**
 * A live order's production order and one pending job per item, as common
 * table expressions of the statement that inserts the order (one statement, no
 * transaction round trip): the order's id comes from the CTE named
 * `from.order`, the items' ids and job ids from `from.items`.
 */
export function newProductionCtes(
  productionId: string,
  at: Date,
  from: { order: string; items: string },
): RawBuilder<unknown> {
  return sql`
      new_production as (
        insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
        select ${productionId}::uuid, id, 'pending', false, ${at}::timestamptz, ${at}::timestamptz
        from ${sql.table(from.order)}
        returning id
      ),
      new_jobs as (
        insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
        select i.job_id, p.id, i.id, 'pending', ${at}::timestamptz, ${at}::timestamptz
        from new_production p
        cross join ${sql.table(from.items)} i
      )`
}

/** Locks a production order (and its order's row) for a change, with what its events need of the order. */
export async function lockProduction(
  trx: Transaction<DB>,
  by: { productionOrderId: string } | { orderId: string },
) {
  return trx
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select([
      'p.id',
      'p.order_id',
      'p.status',
      'p.produced_by_partner',
      'o.organization_id',
      'o.environment',
      'o.source',
      'o.external_order_id',
    ])
    .where(
      'productionOrderId' in by ? 'p.id' : 'p.order_id',
      '=',
      'productionOrderId' in by ? by.productionOrderId : by.orderId,
    )
    .forUpdate()
    .executeTakeFirst()
}
export type LockedProduction = NonNullable<Awaited<ReturnType<typeof lockProduction>>>

/** Moves the production order and its unfinished jobs to a status. */
export async function setProductionStatus(db: Database, productionOrderId: string, status: string, at: Date) {
  await db
    .updateTable('production_orders')
    .set({ status, updated_at: at })
    .where('id', '=', productionOrderId)
    .execute()
  await db
    .updateTable('production_jobs')
    .set({ status, updated_at: at })
    .where('production_order_id', '=', productionOrderId)
    .where('status', '!=', 'completed')
    .execute()
}

export async function setProducedByPartner(
  db: Database,
  productionOrderId: string,
  value: boolean,
  at: Date,
) {
  await db
    .updateTable('production_orders')
    .set({ produced_by_partner: value, updated_at: at })
    .where('id', '=', productionOrderId)
    .execute()
}

/** A job with the item it produces. */
export async function findJob(db: Database, jobId: string) {
  return db
    .selectFrom('production_jobs as j')
    .innerJoin('order_items as i', 'i.id', 'j.order_item_id')
    .select(['j.id', 'j.status', 'j.production_order_id', 'j.order_item_id', 'i.sku', 'i.name'])
    .where('j.id', '=', jobId)
    .executeTakeFirst()
}

export async function completeJob(db: Database, jobId: string, at: Date) {
  await db
    .updateTable('production_jobs')
    .set({ status: 'completed', updated_at: at })
    .where('id', '=', jobId)
    .execute()
}
