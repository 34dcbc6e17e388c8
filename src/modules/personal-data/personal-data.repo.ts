import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Environment, OrderRow, PersonalizationValue, StoredFileRef } from '../../db/schema.ts'

/** How a customer's orders are found: any of e-mail, phone and name (each exact), or the orders themselves. */
export interface CustomerMatch {
  email?: string | undefined
  phone?: string | undefined
  name?: string | undefined
  orderIds?: string[] | undefined
}

/** An order found for a customer, with what is needed to erase it and to say what it is. */
export interface CustomerOrder {
  id: string
  environment: Environment
  external_order_id: string
  customer_name: string
  customer_email: string | null
  customer_phone: string | null
  created_at: Date
  erased_at: Date | null
  personalization_erased_at: Date | null
  /** The production order's status; null for test orders. */
  production_status: string | null
}

/** A phone number's digits: `+49 30 1234-56` and `004930123456` are the same number written twice. */
export const phoneDigits = (phone: string) => phone.replace(/\D/g, '')

/**
 * The organization's orders of the customer, oldest first: e-mail and name
 * compared without case (the search indexes), a phone by its digits, picked
 * orders whatever they hold. Erased orders no longer hold what was searched.
 */
export async function findCustomerOrders(
  db: Database,
  organizationId: string,
  match: CustomerMatch,
  limit: number,
): Promise<CustomerOrder[]> {
  const digits = match.phone === undefined ? '' : phoneDigits(match.phone)
  return db
    .selectFrom('orders as o')
    .leftJoin('production_orders as p', 'p.order_id', 'o.id')
    .select([
      'o.id',
      'o.environment',
      'o.external_order_id',
      'o.customer_name',
      'o.customer_email',
      'o.customer_phone',
      'o.created_at',
      'o.erased_at',
      'o.personalization_erased_at',
      'p.status as production_status',
    ])
    .where('o.organization_id', '=', organizationId)
    .where('o.environment', 'in', ['test', 'live'])
    .where((eb) => {
      const any = []
      if (match.email) any.push(eb(eb.fn('lower', ['o.customer_email']), '=', match.email.toLowerCase()))
      if (match.name) any.push(eb(eb.fn('lower', ['o.customer_name']), '=', match.name.toLowerCase()))
      if (digits !== '') any.push(eb(sql`regexp_replace(o.customer_phone, '[^0-9]', '', 'g')`, '=', digits))
      if (match.orderIds && match.orderIds.length > 0) any.push(eb('o.id', 'in', match.orderIds))
      return any.length === 0 ? sql<boolean>`false` : eb.or(any)
    })
    .orderBy('o.created_at')
    .orderBy('o.id')
    .limit(limit)
    .execute()
}

export async function itemsOf(
  db: Database,
  orderIds: string[],
): Promise<
  {
    id: string
    order_id: string
    personalization: Record<string, PersonalizationValue>
    files: StoredFileRef[]
  }[]
> {
  if (orderIds.length === 0) return []
  return db
    .selectFrom('order_items')
    .select(['id', 'order_id', 'personalization', 'files'])
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('position')
    .execute()
}

/** The orders as stored (an export's). */
export async function orderRows(db: Database, organizationId: string, ids: string[]): Promise<OrderRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
}

/**
 * Live orders of the organization whose production finished (completed or
 * cancelled) at or after `from` and before `olderThan`, not erased yet, in
 * the order they finished: the personal-data retention's next batch.
 */
export async function finishedOrdersToErase(
  db: Database,
  organizationId: string,
  from: Date | null,
  olderThan: Date,
  limit: number,
): Promise<{ id: string; finished_at: Date }[]> {
  return db
    .selectFrom('production_orders as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['o.id', 'p.updated_at as finished_at'])
    .where('p.status', 'in', ['completed', 'cancelled'])
    .where('p.updated_at', '<', olderThan)
    .$if(from !== null, (q) => q.where('p.updated_at', '>=', from!))
    .where('o.organization_id', '=', organizationId)
    .where('o.erased_at', 'is', null)
    .orderBy('p.updated_at')
    .orderBy('p.id')
    .limit(limit)
    .execute()
}

/** Test orders (never produced) of the organization created before `olderThan`, not erased yet. */
export async function oldTestOrdersToErase(
  db: Database,
  organizationId: string,
  olderThan: Date,
  limit: number,
): Promise<{ id: string }[]> {
  return db
    .selectFrom('orders')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('environment', '=', 'test')
    .where('created_at', '<', olderThan)
    .where('erased_at', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .execute()
}

/** The names of the uploads as stored (before an erasure renames them). */
export async function fileNamesOf(db: Database, uploadIds: string[]): Promise<string[]> {
  if (uploadIds.length === 0) return []
  const rows = await db.selectFrom('uploads').select('filename').where('id', 'in', uploadIds).execute()
  return rows.map((r) => r.filename)
}
