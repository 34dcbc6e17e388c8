import type { Insertable } from 'kysely'
import type { Database } from '../../db/database.ts'
import type {
  Environment,
  OrderItemTable,
  OrderRow,
  OrderTable,
  ProductionOrderRow,
} from '../../db/schema.ts'

export interface OrderScope {
  organizationId: string
  environment: Environment
}

export async function findOrderByExternalId(db: Database, scope: OrderScope, externalOrderId: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', scope.organizationId)
    .where('environment', '=', scope.environment)
    .where('external_order_id', '=', externalOrderId)
    .executeTakeFirst()
}

/** Inserts the order unless (organization, environment, external id) exists; true when inserted. */
export async function insertOrderIfAbsent(db: Database, row: Insertable<OrderTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('orders')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'environment', 'external_order_id']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function insertItems(db: Database, rows: Insertable<OrderItemTable>[]): Promise<void> {
  await db.insertInto('order_items').values(rows).execute()
}

export async function findOrderById(db: Database, id: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst()
}

export interface ItemWithJob {
  id: string
  order_id: string
  position: number
  sku: string | null
  name: string
  quantity: number
  price: string | null
  product_id: string | null
  personalization: Record<string, string | number | boolean | null>
  files: { upload_id: string; role: string | null }[]
  job_id: string | null
  job_status: string | null
}

/** Items of the given orders with their production job, in request order. */
export async function findItemsWithJobs(db: Database, orderIds: string[]): Promise<ItemWithJob[]> {
  if (orderIds.length === 0) return []
  return db
    .selectFrom('order_items')
    .leftJoin('production_jobs', 'production_jobs.order_item_id', 'order_items.id')
    .select([
      'order_items.id',
      'order_items.order_id',
      'order_items.position',
      'order_items.sku',
      'order_items.name',
      'order_items.quantity',
      'order_items.price',
      'order_items.product_id',
      'order_items.personalization',
      'order_items.files',
      'production_jobs.id as job_id',
      'production_jobs.status as job_status',
    ])
    .where('order_items.order_id', 'in', orderIds)
    .orderBy('order_items.order_id')
    .orderBy('order_items.position')
    .execute()
}

export async function findProductionOrders(db: Database, orderIds: string[]): Promise<ProductionOrderRow[]> {
  if (orderIds.length === 0) return []
  return db.selectFrom('production_orders').selectAll().where('order_id', 'in', orderIds).execute()
}

export interface PollingPage {
  scope: OrderScope
  updatedSince: Date | undefined
  after: { updatedAt: Date; id: string } | undefined
  limit: number
}

/**
 * One page of the polling order, (updated_at, id) ascending, read with a keyset
 * condition on the polling index: the cost of a page does not depend on how many
 * orders come before it. Fetches one extra row to know whether a next page exists.
 */
export async function findOrdersPage(db: Database, page: PollingPage): Promise<OrderRow[]> {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', page.scope.organizationId)
    .where('environment', '=', page.scope.environment)
  if (page.updatedSince) query = query.where('updated_at', '>=', page.updatedSince)
  const after = page.after
  if (after) {
    query = query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.updatedAt, after.id)))
  }
  return query
    .orderBy('updated_at')
    .orderBy('id')
    .limit(page.limit + 1)
    .execute()
}

/** The operator's list: newest first (ids are time-ordered), optionally one environment. */
export async function findOrganizationOrdersPage(
  db: Database,
  page: {
    organizationId: string
    environment: Environment | undefined
    beforeId: string | undefined
    limit: number
  },
): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('organization_id', '=', page.organizationId)
  if (page.environment) query = query.where('environment', '=', page.environment)
  if (page.beforeId) query = query.where('id', '<', page.beforeId)
  return query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute()
}

export async function countLiveOrders(db: Database, organizationId: string) {
  const byStatus = await db
    .selectFrom('orders')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('organization_id', '=', organizationId)
    .where('environment', '=', 'live')
    .groupBy('status')
    .execute()
  const items = await db
    .selectFrom('order_items')
    .innerJoin('orders', 'orders.id', 'order_items.order_id')
    .select([
      (eb) => eb.fn.countAll<number>().as('items_total'),
      (eb) => eb.fn.coalesce(eb.fn.sum<number>('order_items.quantity'), eb.lit(0)).as('quantity_total'),
    ])
    .where('orders.organization_id', '=', organizationId)
    .where('orders.environment', '=', 'live')
    .executeTakeFirstOrThrow()
  return { byStatus, items }
}
