import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { FileFacts, OrderPreflightTable, PrintSpecs, StoredFileRef } from '../../db/schema.ts'

/*
 * Preflight's tables (migration 0036): file_facts, preflight_queue (also
 * filled by the order fold, orders/changes/changes.repo.ts) and order_preflight.
 */

export interface ClaimedOrder {
  order_id: string
  queued_at: Date
  attempts: number
}

/**
 * Claims up to `limit` queued orders for `leaseMs`, oldest first, skipping
 * those another instance holds: an order whose lease ran out (its instance
 * stopped) is taken again.
 */
export async function claimQueued(db: Database, now: Date, leaseMs: number, limit: number) {
  const { rows } = await sql<ClaimedOrder>`
    update preflight_queue q
    set claimed_until = ${new Date(now.getTime() + leaseMs)}::timestamptz, attempts = q.attempts + 1
    where q.order_id in (
      select order_id from preflight_queue
      where claimed_until is null or claimed_until < ${now}::timestamptz
      order by queued_at
      limit ${limit}::int
      for update skip locked
    )
    returning q.order_id, q.queued_at, q.attempts`.execute(db)
  return rows
}

/** Done with a claimed order, unless it was queued again meanwhile (then it stays for another round). */
export async function finishQueued(db: Database, order: ClaimedOrder): Promise<void> {
  await db
    .deleteFrom('preflight_queue')
    .where('order_id', '=', order.order_id)
    .where('queued_at', '=', order.queued_at)
    .execute()
}

/** Queues orders to be checked (again), from now. */
export async function enqueueOrders(
  db: Database,
  orders: { id: string; organizationId: string }[],
  at: Date,
): Promise<void> {
  if (orders.length === 0) return
  await sql`
    insert into preflight_queue (order_id, organization_id, queued_at)
    select * from unnest(${orders.map((o) => o.id)}::uuid[], ${orders.map((o) => o.organizationId)}::uuid[])
      as o (id, organization_id), lateral (select ${at}::timestamptz) t
    on conflict (order_id) do update set queued_at = excluded.queued_at, claimed_until = null, attempts = 0`.execute(
    db,
  )
}

/**
 * Queues the orders with files of the product's items whose production has
 * not started (pending, held included), to be checked against its specs again.
 * Resolves to how many.
 */
export async function enqueueOpenOrdersOf(db: Database, productId: string, at: Date): Promise<number> {
  const result = await sql`
    insert into preflight_queue (order_id, organization_id, queued_at)
    select distinct i.order_id, i.organization_id, ${at}::timestamptz
    from order_items i
    join production_orders p on p.order_id = i.order_id
    where i.product_id = ${productId}::uuid and p.status = 'pending' and json_array_length(i.files) > 0
    on conflict (order_id) do update set queued_at = excluded.queued_at, claimed_until = null, attempts = 0`.execute(
    db,
  )
  return Number(result.numAffectedRows ?? 0)
}

export interface PreflightItem {
  id: string
  product_id: string | null
  files: StoredFileRef[]
}

/** The order's organization, environment and items, as preflight reads them. */
export async function findOrderForPreflight(db: Database, orderId: string) {
  const order = await db
    .selectFrom('orders')
    .select(['id', 'organization_id', 'environment'])
    .where('id', '=', orderId)
    .executeTakeFirst()
  if (!order) return undefined
  const items: PreflightItem[] = await db
    .selectFrom('order_items')
    .select(['id', 'product_id', 'files'])
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute()
  return { ...order, items }
}

/** Print specs of products, by id. */
export async function findPrintSpecs(
  db: Database,
  productIds: string[],
): Promise<Map<string, PrintSpecs | null>> {
  if (productIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('products')
    .select(['id', 'print_spec'])
    .where('id', 'in', [...new Set(productIds)])
    .execute()
  return new Map(rows.map((r) => [r.id, r.print_spec]))
}

/** The stored uploads among these, with what measuring needs. */
export async function findUploadsToMeasure(db: Database, ids: string[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('uploads')
    .select(['id', 'organization_id', 'storage_key', 'content_type'])
    .where('id', 'in', ids)
    .where('referenced_at', 'is not', null)
    .where((w) =>
      w.not(
        w.exists(
          w.selectFrom('file_facts as f').select('f.upload_id').whereRef('f.upload_id', '=', 'uploads.id'),
        ),
      ),
    )
    .execute()
}

/** The detected content type of each upload. */
export async function findContentTypes(db: Database, ids: string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('uploads').select(['id', 'content_type']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [r.id, r.content_type]))
}

export async function findFacts(db: Database, uploadIds: string[]) {
  if (uploadIds.length === 0) return []
  return db
    .selectFrom('file_facts')
    .selectAll()
    .where('upload_id', 'in', [...new Set(uploadIds)])
    .execute()
}

/** Records a file's facts; false when another instance measured it first. */
export async function insertFacts(
  db: Database,
  row: {
    upload_id: string
    organization_id: string
    measured: boolean
    facts: FileFacts | null
    reason: string | null
    thumbnail_key: string | null
    measured_at: Date
  },
): Promise<boolean> {
  const inserted = await db
    .insertInto('file_facts')
    .values({ ...row, facts: row.facts === null ? null : JSON.stringify(row.facts) })
    .onConflict((oc) => oc.column('upload_id').doNothing())
    .returning('upload_id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function saveVerdict(
  db: Database,
  row: Omit<OrderPreflightTable, 'items'> & { items: string },
): Promise<void> {
  await db
    .insertInto('order_preflight')
    .values(row)
    .onConflict((oc) =>
      oc.column('order_id').doUpdateSet({
        verdict: row.verdict,
        problems: row.problems,
        warnings: row.warnings,
        checked_at: row.checked_at,
        items: row.items,
      }),
    )
    .execute()
}

export async function findVerdicts(db: Database, orderIds: string[]) {
  if (orderIds.length === 0) return []
  return db.selectFrom('order_preflight').selectAll().where('order_id', 'in', orderIds).execute()
}

/** Whether the order still waits in the queue (its files being measured or its verdict worked out again). */
export async function isQueued(db: Database, orderId: string): Promise<boolean> {
  const row = await db
    .selectFrom('preflight_queue')
    .select('order_id')
    .where('order_id', '=', orderId)
    .executeTakeFirst()
  return row !== undefined
}
