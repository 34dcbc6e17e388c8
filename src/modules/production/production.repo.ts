import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import { raw, type Statement, stmt } from '../../db/statement.ts'
import type { ProductionStatus } from '../../db/tables/common.ts'
import type { AwaitingRule } from '../../db/tables/orders.ts'

/** A live order's production order as its automation rules leave it (partner, priority, hold). */
export interface NewProduction {
  id: string
  partner: boolean
  priority: 'rush' | 'normal'
  hold: { rule_id: string; name: string; reason: string } | null
  /** The rules waiting for the order's print check (production waits with them); null: none. */
  awaiting: AwaitingRule[] | null
}

/**
 * A live order's production order and one pending job per item, as common
 * table expressions of the statement that inserts the order (one statement, no
 * transaction round trip): the order's id comes from the CTE named
 * `from.order`, the items' ids and job ids from `from.items`.
 */
export function newProductionCtes(
  production: NewProduction,
  at: Date,
  from: { order: string; items: string },
): Statement {
  const hold = production.hold === null ? null : JSON.stringify(production.hold)
  const awaiting = production.awaiting === null ? null : JSON.stringify(production.awaiting)
  return stmt`
      new_production as (
        insert into production_orders (id, order_id, status, produced_by_partner, priority, held_at, hold,
          awaiting_rules, created_at, updated_at)
        select ${production.id}::uuid, id, 'pending', ${production.partner}::boolean, ${production.priority}::text,
          ${hold === null ? null : at}::timestamptz, ${hold}::jsonb, ${awaiting}::jsonb, ${at}::timestamptz,
          ${at}::timestamptz
        from ${raw(from.order)}
        returning id
      ),
      new_jobs as (
        insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
        select i.job_id, p.id, i.id, 'pending', ${at}::timestamptz, ${at}::timestamptz
        from new_production p
        cross join ${raw(from.items)} i
      )`
}

/** A production order with what its events need of its order. */
function productionWithOrder(trx: Transaction<DB>) {
  return trx
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select([
      'p.id',
      'p.order_id',
      'p.status',
      'p.produced_by_partner',
      'p.held_at',
      'p.hold',
      'p.awaiting_rules',
      'p.priority',
      'o.organization_id',
      'o.environment',
      'o.source',
      'o.external_order_id',
      'o.updated_at as order_updated_at',
    ])
}

/** Locks a production order (and its order's row) for a change, with what its events need of the order. */
export async function lockProduction(
  trx: Transaction<DB>,
  by: { productionOrderId: string } | { orderId: string },
) {
  return productionWithOrder(trx)
    .where(
      'productionOrderId' in by ? 'p.id' : 'p.order_id',
      '=',
      'productionOrderId' in by ? by.productionOrderId : by.orderId,
    )
    .forUpdate()
    .executeTakeFirst()
}

/** Locks many production orders (and their orders' rows) in id order, so two changes of many never deadlock. */
export async function lockProductions(trx: Transaction<DB>, productionOrderIds: string[]) {
  if (productionOrderIds.length === 0) return []
  return productionWithOrder(trx)
    .where('p.id', 'in', productionOrderIds)
    .orderBy('p.id')
    .forUpdate()
    .execute()
}
export type LockedProduction = NonNullable<Awaited<ReturnType<typeof lockProduction>>>

/** Moves the production order and its unfinished jobs to a status; a cancelled order is no longer held. */
export async function setProductionStatus(
  db: Database,
  productionOrderId: string,
  status: ProductionStatus,
  at: Date,
) {
  await db
    .updateTable('production_orders')
    .set(status === 'cancelled' ? { status, updated_at: at, held_at: null } : { status, updated_at: at })
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

/**
 * What the rules that waited for the print check did to a production order:
 * no rule waits any more; a hold, the partner and the priority where they
 * set one.
 */
export async function applyAwaited(
  db: Database,
  productionOrderId: string,
  change: {
    hold?: { rule_id: string; name: string; reason: string } | undefined
    partner?: true | undefined
    priority?: 'rush' | 'normal' | undefined
  },
  at: Date,
) {
  await db
    .updateTable('production_orders')
    .set({
      awaiting_rules: null,
      ...(change.hold ? { held_at: at, hold: JSON.stringify(change.hold) } : {}),
      ...(change.partner ? { produced_by_partner: true } : {}),
      ...(change.priority ? { priority: change.priority } : {}),
      updated_at: at,
    })
    .where('id', '=', productionOrderId)
    .execute()
}

/** Releases a held production order: held_at goes, the hold stays as the record of the rule that set it. */
export async function releaseHold(db: Database, productionOrderId: string, at: Date) {
  await db
    .updateTable('production_orders')
    .set({ held_at: null, updated_at: at })
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

/** A production order with its order's organization (the console's production order page). */
export async function findProductionOrder(db: Database, productionOrderId: string) {
  return db
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .innerJoin('organizations as org', 'org.id', 'o.organization_id')
    .select([
      'p.id',
      'p.order_id',
      'p.status',
      'p.produced_by_partner',
      sql<string | null>`to_char(p.due_on, 'YYYY-MM-DD')`.as('due_on'),
      'p.created_at',
      'p.updated_at',
      'o.organization_id',
      'org.name as organization_name',
    ])
    .where('p.id', '=', productionOrderId)
    .executeTakeFirst()
}
