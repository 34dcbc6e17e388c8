import { sql, type Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB } from '../../../db/schema.ts'
import type { BatchStatus } from '../../../db/tables/production.ts'
import { dueKey } from '../board/board.repo.ts'

/** Batches and their production orders (migration 0039). */

export async function insertBatch(
  db: Database,
  row: { id: string; name: string; createdBy: string; at: Date },
): Promise<void> {
  await db
    .insertInto('batches')
    .values({ id: row.id, name: row.name, created_by: row.createdBy, created_at: row.at, updated_at: row.at })
    .execute()
}

const BATCH_COLUMNS = [
  'id',
  'name',
  'status',
  'created_by',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
] as const

export async function findBatch(db: Database, id: string) {
  return db.selectFrom('batches').select(BATCH_COLUMNS).where('id', '=', id).executeTakeFirst()
}
export type BatchRow = NonNullable<Awaited<ReturnType<typeof findBatch>>>

/** Locks a batch for a change of its orders or its status: one change of a batch at a time. */
export async function lockBatch(trx: Transaction<DB>, id: string) {
  return trx.selectFrom('batches').select(BATCH_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst()
}

/** Batches of one status (or all), newest first, with their order counts; one extra row tells a next page exists. */
export async function listBatches(
  db: Database,
  filter: { status?: BatchStatus | undefined; after?: { at: Date; id: string } | undefined; limit: number },
) {
  let query = db
    .selectFrom('batches as b')
    .select([...BATCH_COLUMNS.map((c) => `b.${c}` as const)])
    .select((eb) =>
      eb
        .selectFrom('batch_orders as m')
        .select(sql<number>`count(*)::int`.as('n'))
        .whereRef('m.batch_id', '=', 'b.id')
        .as('orders'),
    )
  if (filter.status !== undefined) query = query.where('b.status', '=', filter.status)
  if (filter.after !== undefined) {
    query = query.where(
      sql<boolean>`(b.created_at, b.id) < (${filter.after.at}::timestamptz, ${filter.after.id}::uuid)`,
    )
  }
  return query
    .orderBy('b.created_at', 'desc')
    .orderBy('b.id', 'desc')
    .limit(filter.limit + 1)
    .execute()
}

export async function setBatchStatus(db: Database, id: string, status: BatchStatus, at: Date) {
  await db
    .updateTable('batches')
    .set({
      status,
      updated_at: at,
      ...(status === 'in_progress' ? { started_at: at } : {}),
      ...(status === 'completed' || status === 'failed' ? { finished_at: at } : {}),
    })
    .where('id', '=', id)
    .execute()
  // A finished batch frees its orders for another one.
  if (status === 'completed' || status === 'failed') {
    await db.updateTable('batch_orders').set({ open: false }).where('batch_id', '=', id).execute()
  }
}

export async function touchBatch(db: Database, id: string, at: Date) {
  await db.updateTable('batches').set({ updated_at: at }).where('id', '=', id).execute()
}

export async function deleteBatch(db: Database, id: string) {
  await db.deleteFrom('batches').where('id', '=', id).execute()
}

/** How many production orders the batch holds. */
export async function countBatchOrders(db: Database, batchId: string): Promise<number> {
  const row = await db
    .selectFrom('batch_orders')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The batch's production order ids, in id order (the order their locks are taken in). */
export async function batchOrderIds(db: Database, batchId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('batch_orders')
    .select('production_order_id')
    .where('batch_id', '=', batchId)
    .orderBy('production_order_id')
    .execute()
  return rows.map((r) => r.production_order_id)
}

/** Adds production orders to an open batch; false when one of them is already in another open batch. */
export async function addBatchOrders(
  trx: Database,
  batchId: string,
  ids: string[],
  at: Date,
): Promise<boolean> {
  const inserted = await trx
    .insertInto('batch_orders')
    .values(ids.map((id) => ({ batch_id: batchId, production_order_id: id, added_at: at })))
    .onConflict((oc) => oc.doNothing())
    .returning('production_order_id')
    .execute()
  return inserted.length === ids.length
}

export async function removeBatchOrders(db: Database, batchId: string, ids: string[]): Promise<number> {
  const removed = await db
    .deleteFrom('batch_orders')
    .where('batch_id', '=', batchId)
    .where('production_order_id', 'in', ids)
    .executeTakeFirst()
  return Number(removed.numDeletedRows)
}

/** The open batch each of these production orders is in (none: absent). */
export async function openBatchesOf(db: Database, productionOrderIds: string[]) {
  if (productionOrderIds.length === 0)
    return new Map<string, { id: string; name: string; status: BatchStatus }>()
  const rows = await db
    .selectFrom('batch_orders as m')
    .innerJoin('batches as b', 'b.id', 'm.batch_id')
    .select(['m.production_order_id', 'b.id', 'b.name', 'b.status'])
    .where('m.open', '=', true)
    .where('m.production_order_id', 'in', productionOrderIds)
    .execute()
  return new Map(rows.map((r) => [r.production_order_id, { id: r.id, name: r.name, status: r.status }]))
}

/**
 * Production orders that may join a batch, up to `limit`: pending, not held,
 * not waiting for their print check, in no open batch; by due date (none:
 * last), then arrival, as the board lists them.
 */
export async function findJoinable(
  db: Database,
  filter: {
    sku?: string | undefined
    dueBy?: string | undefined
    organizationId?: string | undefined
    limit: number
  },
): Promise<string[]> {
  let query = db
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select('p.id')
    .where('p.status', '=', 'pending')
    .where('o.environment', '=', 'live')
    .where('p.held_at', 'is', null)
    .where('p.awaiting_rules', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('batch_orders as m')
            .select('m.batch_id')
            .whereRef('m.production_order_id', '=', 'p.id')
            .where('m.open', '=', true),
        ),
      ),
    )
  if (filter.organizationId !== undefined)
    query = query.where('o.organization_id', '=', filter.organizationId)
  if (filter.dueBy !== undefined) {
    query = query.where(sql<boolean>`${dueKey} <= ${filter.dueBy}::date`)
  }
  if (filter.sku !== undefined) {
    const sku = filter.sku
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('order_items as i')
          .select('i.id')
          .whereRef('i.order_id', '=', 'p.order_id')
          .where('i.sku', '=', sku),
      ),
    )
  }
  const rows = await query
    .orderBy(dueKey)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .limit(filter.limit)
    .execute()
  return rows.map((r) => r.id)
}

/** The batch's production orders with their orders and organizations, soonest due first (the batch page and sheet). */
export async function findBatchMembers(db: Database, batchId: string) {
  return db
    .selectFrom('batch_orders as m')
    .innerJoin('production_orders as p', 'p.id', 'm.production_order_id')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .innerJoin('organizations as org', 'org.id', 'o.organization_id')
    .select([
      'p.id',
      'p.order_id',
      'p.status',
      'p.produced_by_partner',
      'p.priority',
      'p.held_at',
      sql<string | null>`to_char(p.due_on, 'YYYY-MM-DD')`.as('due_on'),
      'p.created_at',
      'p.updated_at',
      'm.added_at',
      'o.organization_id',
      'org.name as organization_name',
      'o.external_order_id',
      'o.customer_name',
      'o.status as order_status',
    ])
    .where('m.batch_id', '=', batchId)
    .orderBy(dueKey)
    .orderBy('p.created_at')
    .orderBy('p.id')
    .execute()
}
