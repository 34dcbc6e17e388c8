import { sql } from 'kysely'
import type { Database } from '../../db/database.ts'
import { countsForUsage } from '../orders/changes/changes.repo.ts'

/**
 * monthly_usage and monthly_product_usage (migration 0028): live orders per
 * organization and UTC month of creation, folded in from order_changes off
 * the order path (orders/changes/changes.repo.ts). The readers add the
 * creations not folded yet, so the figures are exact whenever they are read;
 * a month's figures read one row per organization (and one per product it
 * sold), never the orders.
 */

export interface UsageTotals {
  orders: number
  items: number
  quantity: number
}

export interface OrganizationUsage extends UsageTotals {
  organization_id: string
}

export interface ProductUsage extends UsageTotals {
  organization_id: string
  product_id: string
}

type Row = { organization_id: string; orders: string; items: string; quantity: string }
const totals = (r: Row): UsageTotals => ({
  orders: Number(r.orders),
  items: Number(r.items),
  quantity: Number(r.quantity),
})

const onlyOrg = (organizationId?: string) =>
  organizationId === undefined ? sql`` : sql`and organization_id = ${organizationId}::uuid`

/** Each organization's usage in the month starting on `month` (YYYY-MM-01); organizations without any are left out. */
export async function usageByOrganization(
  db: Database,
  month: string,
  organizationId?: string,
): Promise<OrganizationUsage[]> {
  const result = await sql<Row>`
    select organization_id, sum(orders)::text as orders, sum(items)::text as items,
      sum(quantity)::text as quantity
    from (
      select organization_id, orders, items, quantity from monthly_usage
      where month = ${month}::date ${onlyOrg(organizationId)}
      union all
      select organization_id, orders, items, quantity from order_changes
      where live and ${countsForUsage} and day >= ${month}::date and day < ${month}::date + interval '1 month'
        ${onlyOrg(organizationId)}
    ) counted
    group by organization_id`.execute(db)
  return result.rows.map((r) => ({ organization_id: r.organization_id, ...totals(r) }))
}

/** The same per linked product. */
export async function usageByProduct(
  db: Database,
  month: string,
  organizationId?: string,
): Promise<ProductUsage[]> {
  const result = await sql<Row & { product_id: string }>`
    select organization_id, product_id, sum(orders)::text as orders, sum(items)::text as items,
      sum(quantity)::text as quantity
    from (
      select organization_id, product_id, orders, items, quantity from monthly_product_usage
      where month = ${month}::date ${onlyOrg(organizationId)}
      union all
      select c.organization_id, i.product_id, count(distinct c.order_id), count(*), sum(i.quantity)
      from order_changes c
      join order_items i on i.order_id = c.order_id
      where c.live and c.created and c.day >= ${month}::date and c.day < ${month}::date + interval '1 month'
        and i.product_id is not null
        ${organizationId === undefined ? sql`` : sql`and c.organization_id = ${organizationId}::uuid`}
      group by 1, 2
    ) counted
    group by organization_id, product_id`.execute(db)
  return result.rows.map((r) => ({
    organization_id: r.organization_id,
    product_id: r.product_id,
    ...totals(r),
  }))
}

/** The products of these ids: their sku and name. */
export async function productNames(
  db: Database,
  ids: string[],
): Promise<Map<string, { sku: string; name: string }>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('products').select(['id', 'sku', 'name']).where('id', 'in', ids).execute()
  return new Map(rows.map((r) => [r.id, { sku: r.sku, name: r.name }]))
}
