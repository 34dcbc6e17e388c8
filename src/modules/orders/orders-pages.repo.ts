import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, OrderRow } from '../../db/schema.ts'
import type { OrderScope } from './orders.repo.ts'

/** The order lists: the integrators' polling order, an organization's orders, the dashboard's newest first. */
export interface PollingPage {
  scope: OrderScope
  updatedSince: Date | undefined
  after: { at: Date; id: string } | undefined
  limit: number
}

/**
 * One page of the polling order, (updated_at, id) ascending, read with a keyset
 * condition on the polling index: the cost of a page does not depend on how many
 * orders come before it. Fetches one extra row to know whether a next page exists.
 */
export function ordersPageQuery(db: Database, page: PollingPage) {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', page.scope.organizationId)
    .where('environment', '=', page.scope.environment)
  if (page.updatedSince) query = query.where('updated_at', '>=', page.updatedSince)
  const after = page.after
  if (after) {
    query = query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '>', eb.tuple(after.at, after.id)))
  }
  return query
    .orderBy('updated_at')
    .orderBy('id')
    .limit(page.limit + 1)
}

export async function findOrdersPage(db: Database, page: PollingPage): Promise<OrderRow[]> {
  return ordersPageQuery(db, page).execute()
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

export interface NewestPage {
  scope: OrderScope
  status: string | undefined
  /** created_at >= from */
  from: Date | undefined
  /** created_at < until */
  until: Date | undefined
  /** A prefix of the external order id, the customer's email or name (any case). */
  search: string | undefined
  /** The last row of the previous page: (created_at, id). */
  before: { createdAt: Date; id: string } | undefined
  /** What automation rules did: held for review, rush, partner-produced, a tag. */
  held?: boolean | undefined
  priority?: 'rush' | 'normal' | undefined
  partner?: boolean | undefined
  tag?: string | undefined
  limit: number
}

const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * The dashboard's list: newest first by (created_at, id) with a keyset
 * condition, so a page costs the same at any depth and orders arriving
 * meanwhile only ever appear above the first page. The search is a prefix
 * match on lower(column), each read from an index of migration 0017.
 */
export async function findNewestOrdersPage(db: Database, page: NewestPage): Promise<OrderRow[]> {
  return newestOrdersPageQuery(db, page).execute()
}

/**
 * The automation filters read the partial indexes of migration 0029: a tag
 * through orders_tags_idx (the condition tags <> '{}' lets the planner use
 * it), held and rush orders as a semi-join from production_orders_held_idx
 * and production_orders_rush_idx, which hold only those rows.
 */
export function newestOrdersPageQuery(db: Database, page: NewestPage) {
  let query = db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', page.scope.organizationId)
    .where('environment', '=', page.scope.environment)
  if (page.status) query = query.where('status', '=', page.status)
  if (page.from) query = query.where('created_at', '>=', page.from)
  if (page.until) query = query.where('created_at', '<', page.until)
  if (page.tag !== undefined) {
    query = query.where(sql<boolean>`tags <> '{}'`).where(sql<boolean>`tags @> array[${page.tag}]::text[]`)
  }
  const production = (condition: ReturnType<typeof sql<boolean>>) =>
    sql<boolean>`exists (select 1 from production_orders p where p.order_id = orders.id and ${condition})`
  if (page.held === true) query = query.where(production(sql`p.held_at is not null`))
  if (page.held === false) query = query.where(sql<boolean>`not ${production(sql`p.held_at is not null`)}`)
  if (page.priority === 'rush') query = query.where(production(sql`p.priority = 'rush'`))
  if (page.priority === 'normal')
    query = query.where(sql<boolean>`not ${production(sql`p.priority = 'rush'`)}`)
  if (page.partner !== undefined) {
    query = query.where(production(sql`p.produced_by_partner = ${page.partner}`))
  }
  const search = page.search
  if (search) {
    const pattern = likePrefix(search)
    query = query.where((eb) =>
      eb.or(
        (['external_order_id', 'customer_email', 'customer_name'] as const).map((column) =>
          eb(eb.fn('lower', [column]), 'like', pattern),
        ),
      ),
    )
  }
  const before = page.before
  if (before) {
    query = query.where((eb) =>
      eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before.createdAt, before.id)),
    )
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
}
