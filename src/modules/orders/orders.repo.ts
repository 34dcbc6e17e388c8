import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB, Environment, OrderRow, ProductionOrderRow } from '../../db/schema.ts'
import { EMPTY, run, stmt } from '../../db/statement.ts'
import { type NewProduction, newProductionCtes } from '../production/production.repo.ts'
import type { NewEventInput } from '../webhooks/outbox/events.ts'
import { outboxCtes, outboxWake } from '../webhooks/outbox/outbox.repo.ts'
import {
  countLinkedUsage,
  lockOrderChanges,
  newOrderChangeCte,
  setOrderStatusRecorded,
} from './changes/changes.repo.ts'
import type { OrderStatus } from './orders.schemas.ts'

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

export interface OrderGraph {
  order: OrderRow
  /** `items` as the JSON document the insert reads (its length is the order's content_bytes). */
  itemsDocument: Buffer
  items: {
    id: string
    position: number
    sku: string | null
    name: string
    quantity: number
    price: string | null
    personalization: Record<string, unknown>
    files: unknown[]
    /** Live orders: the item's production job. */
    job_id: string | null
  }[]
  /** Live orders: the production order (its jobs are the items' job_id), as the automation rules left it. */
  production: NewProduction | null
  /**
   * Live orders: the version of the automation rules applied, and the skus
   * they took as having no product (null: no rule read it). The order is
   * written only while the version is current and those skus have no product.
   */
  rules: { version: number; unlinked: string[] | null } | null
  /** The event the creation emits, written to the outbox with the order. */
  event: { id: string; input: NewEventInput } | null
}

/**
 * Creates an order with its items (linked to the organization's products by
 * sku), production order, jobs, event and deliveries in ONE statement of
 * data-modifying CTEs: atomic without a transaction round trip, and with a
 * text that does not depend on the number of items, so it is prepared once per
 * connection. The items travel as one JSON document read by json_to_recordset:
 * one JSON.stringify instead of a PostgreSQL array literal per column, whose
 * escaping of every personalization text costs more than the insert on large
 * orders. The document goes as UTF-8 bytes, json's binary wire format, which
 * the driver copies as it is instead of measuring and encoding a string.
 * When (organization, environment, external_order_id) exists, ON CONFLICT DO
 * NOTHING leaves the order CTE empty and nothing else is written either;
 * concurrent identical requests wait on the unique index and then find the
 * winner. Returns whether the key was valid and the automation rules applied
 * still current (nothing is written otherwise), and the product id of each
 * item, or undefined on conflict.
 */
export async function insertOrderGraph(
  db: Database,
  graph: OrderGraph,
  /** An API key from memory: the order is written only if the key is still not revoked. */
  uncheckedKeyId: string | null = null,
): Promise<{ keyValid: boolean; rulesCurrent: boolean; productIds: (string | null)[] | undefined }> {
  const o = graph.order
  const production = graph.production
  const from = { order: 'new_order', items: 'item_input' }
  const productionCtes = production ? stmt`,${newProductionCtes(production, o.created_at, from)}` : EMPTY
  const change = { organizationId: o.organization_id, createdAt: o.created_at, status: o.status }
  const event = graph.event
  const outbox = event ? stmt`, ${outboxCtes(event.id, event.input, 'new_order')}` : EMPTY
  const keyCheck =
    uncheckedKeyId === null
      ? stmt`true`
      : stmt`exists (select 1 from api_keys where id = ${uncheckedKeyId}::uuid and revoked_at is null)`
  const rules = graph.rules
  const unlinked = rules !== null && rules.unlinked !== null && rules.unlinked.length > 0
  const rulesCheck =
    rules === null
      ? stmt`true`
      : stmt`coalesce((select version from automation_versions where organization_id = ${o.organization_id}::uuid), 0) = ${rules.version}
        ${
          unlinked
            ? stmt`and not exists (select 1 from products where organization_id = ${o.organization_id}::uuid
                and sku = any(${rules.unlinked}::text[]))`
            : EMPTY
        }`
  // Every choice above that changes the text, and nothing else.
  const shape = `insert_order:${production ? 'p' : '-'}${event ? 'e' : '-'}${uncheckedKeyId === null ? '-' : 'k'}${rules === null ? '-' : unlinked ? 'u' : 'v'}`
  const statement = stmt`
    with key_check as (select ${keyCheck} as valid, ${rulesCheck} as rules_current),
    item_input as (
      select * from json_to_recordset(${graph.itemsDocument}::json)
        as i(id uuid, job_id uuid, position int, sku text, name text, quantity int, price numeric,
          personalization json, files json)
    ),
    new_order as (
      insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
        total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at, content_hash,
        content_bytes, tags, automation)
      select ${o.id}::uuid, ${o.organization_id}::uuid, ${o.environment}::text, ${o.source}::text,
        ${o.external_order_id}::text, ${o.status}::text, ${o.currency}::text, ${o.total_amount}::numeric,
        ${o.customer_name}::text, ${o.customer_email}::text, ${o.customer_phone}::text,
        ${o.ordered_at}::timestamptz, ${o.created_at}::timestamptz, ${o.updated_at}::timestamptz,
        ${o.content_hash}::text, ${o.content_bytes}::int, ${o.tags}::text[],
        ${o.automation === null ? null : JSON.stringify(o.automation)}::jsonb
      where (select valid and rules_current from key_check)
      on conflict (organization_id, environment, external_order_id) do nothing
      returning id
    ),
    new_items as (
      insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price, product_id,
        personalization, files)
      select i.id, new_order.id, ${o.organization_id}::uuid, i.position, i.sku, i.name, i.quantity, i.price, p.id,
        i.personalization, i.files
      from new_order
      cross join item_input i
      left join products p on p.organization_id = ${o.organization_id}::uuid and p.sku = i.sku
      returning position, sku, product_id
    ),
    ${newOrderChangeCte({ ...change, live: o.environment === 'live' }, from)}${productionCtes}${outbox}
    select (select valid from key_check) as key_valid, (select rules_current from key_check) as rules_current, exists (select 1 from new_order) as inserted,
      (select array_agg(product_id order by position) from new_items) as product_ids,
      ${event ? outboxWake() : stmt`null`} as woke`
  const [row] = await run<{
    key_valid: boolean
    rules_current: boolean
    inserted: boolean
    product_ids: (string | null)[] | null
  }>(db, statement, shape)
  return {
    keyValid: row!.key_valid,
    rulesCurrent: row!.rules_current,
    productIds: row!.inserted ? (row!.product_ids ?? []) : undefined,
  }
}

/** Bumps updated_at of orders whose change lies outside the orders row, so pollers see it. */
export async function touchOrders(db: Database, orderIds: string[], at: Date): Promise<void> {
  if (orderIds.length === 0) return
  await db.updateTable('orders').set({ updated_at: at }).where('id', 'in', orderIds).execute()
}

/** What rules that waited for the print check did to an order (under its lock): its tags and matches as they now are. */
export async function setRuleOutcome(
  db: Database,
  orderId: string,
  outcome: { tags: string[]; automation: unknown[] },
  at: Date,
): Promise<void> {
  await db
    .updateTable('orders')
    .set({ tags: outcome.tags, automation: JSON.stringify(outcome.automation), updated_at: at })
    .where('id', '=', orderId)
    .execute()
}

/** Sets an order's status (and moves it in the statistics); the caller holds the order's lock. */
export async function setOrderStatus(db: Database, orderId: string, status: OrderStatus, at: Date) {
  await setOrderStatusRecorded(db, orderId, status, at)
}

/**
 * Links the organization's unlinked items with this sku to a new product,
 * touches their orders and takes the sku off the unmatched skus, in one
 * statement; returns how many items it linked.
 */
export async function linkItemsToProduct(
  trx: Transaction<DB>,
  link: { organizationId: string; sku: string; productId: string; at: Date },
): Promise<number> {
  await lockOrderChanges(trx)
  await countLinkedUsage(trx, link)
  const row = await trx
    .with('linked', (w) =>
      w
        .updateTable('order_items')
        .set({ product_id: link.productId })
        .where('organization_id', '=', link.organizationId)
        .where('sku', '=', link.sku)
        .where('product_id', 'is', null)
        .returning('order_id'),
    )
    .with('matched', (w) =>
      w
        .deleteFrom('unmatched_skus')
        .where('organization_id', '=', link.organizationId)
        .where('sku', '=', link.sku),
    )
    .with('touched', (w) =>
      w
        .updateTable('orders')
        .set({ updated_at: link.at })
        .where('id', 'in', (eb) => eb.selectFrom('linked').select('order_id'))
        .returning('id'),
    )
    .selectFrom('linked')
    .select((eb) => eb.fn.countAll<string>().as('items'))
    .executeTakeFirstOrThrow()
  return Number(row.items)
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

/**
 * Items of the given orders with their production job, in request order: for
 * each order its items by the (order_id, position) index, for each item its
 * job by its unique index. The lateral subqueries (ordered, limited) keep the
 * planner from turning them into joins: a plain join hashed every job of the
 * table for a page's few hundred items, a cost that grew with the table.
 */
export function itemsWithJobsQuery(orderIds: string[]) {
  return sql<ItemWithJob>`
    select i.id, i.order_id, i.position, i.sku, i.name, i.quantity, i.price, i.product_id,
      i.personalization, i.files, j.id as job_id, j.status as job_status
    from unnest(${orderIds}::uuid[]) as page (order_id)
    cross join lateral (
      select * from order_items where order_items.order_id = page.order_id order by position
    ) i
    left join lateral (
      select id, status from production_jobs where production_jobs.order_item_id = i.id limit 1
    ) j on true
    order by i.order_id, i.position`
}

export async function findItemsWithJobs(db: Database, orderIds: string[]): Promise<ItemWithJob[]> {
  if (orderIds.length === 0) return []
  return (await itemsWithJobsQuery(orderIds).execute(db)).rows
}

export async function findProductionOrders(db: Database, orderIds: string[]): Promise<ProductionOrderRow[]> {
  if (orderIds.length === 0) return []
  return db
    .selectFrom('production_orders')
    .select([
      'id',
      'order_id',
      'status',
      'produced_by_partner',
      'created_at',
      'updated_at',
      'priority',
      'held_at',
      'hold',
      'awaiting_rules',
      sql<string | null>`to_char(due_on, 'YYYY-MM-DD')`.as('due_on'),
    ])
    .where('order_id', 'in', orderIds)
    .execute()
}

/** Locks an order's row for a dashboard change (the caller holds its production order's lock first). */
export async function lockOrder(trx: Transaction<DB>, id: string): Promise<OrderRow | undefined> {
  return trx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
}

/**
 * A dashboard change of the order: its customer, updated_at, and content_bytes
 * by how much its items' JSON grew or shrank (list pages budget by it);
 * content_hash stays what the client sent.
 */
export async function updateOrderCustomer(
  db: Database,
  id: string,
  customer: { name: string; email: string | null; phone: string | null },
  at: Date,
  contentBytesDelta = 0,
) {
  await db
    .updateTable('orders')
    .set({
      customer_name: customer.name,
      customer_email: customer.email,
      customer_phone: customer.phone,
      updated_at: at,
      content_bytes: sql<number>`greatest(content_bytes + ${contentBytesDelta}::int, 0)`,
    })
    .where('id', '=', id)
    .execute()
}

/** A dashboard change of one item's quantity, personalization and files. */
export async function updateOrderItem(
  db: Database,
  id: string,
  item: {
    quantity: number
    personalization: Record<string, unknown>
    files: { upload_id: string; role: string | null }[]
  },
) {
  await db
    .updateTable('order_items')
    .set({
      quantity: item.quantity,
      personalization: JSON.stringify(item.personalization),
      files: JSON.stringify(item.files),
    })
    .where('id', '=', id)
    .execute()
}
