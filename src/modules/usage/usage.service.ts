import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { csvLine } from '../../lib/csv.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import {
  type ProductUsage,
  productNames,
  type UsageTotals,
  usageByOrganization,
  usageByProduct,
} from './usage.repo.ts'

/** A month as the API names it: YYYY-MM (UTC). */
export const MONTH_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])$'

export interface ProductUsageView extends UsageTotals {
  product_id: string
  sku: string | null
  name: string | null
}

export interface OrganizationUsageView extends UsageTotals {
  id: string
  name: string
  /** Items linked to a product, per product (most quantity first). */
  products: ProductUsageView[]
  /** Items linked to no product. */
  unlinked: { items: number; quantity: number }
}

const ZERO: UsageTotals = { orders: 0, items: 0, quantity: 0 }

/**
 * Usage counted for billing: live orders (API and shop orders; test orders
 * never) per organization and calendar month (UTC) of creation, with their
 * item lines and quantity, split by product where an item is linked to one.
 * An order counts once, when it is created: cancelling it later leaves it
 * counted. Read from the monthly aggregates, never by counting orders.
 */
export function createUsageService(deps: {
  db: Database
  clock: Clock
  organizations: Pick<OrganizationService, 'require' | 'list'>
}) {
  const { db, clock } = deps

  const currentMonth = () => clock.now().toISOString().slice(0, 7)

  async function productsOf(rows: ProductUsage[]): Promise<Map<string, ProductUsageView[]>> {
    const names = await productNames(db, [...new Set(rows.map((r) => r.product_id))])
    const byOrg = new Map<string, ProductUsageView[]>()
    for (const r of rows) {
      const product = names.get(r.product_id)
      const list = byOrg.get(r.organization_id) ?? []
      list.push({
        product_id: r.product_id,
        sku: product?.sku ?? null,
        name: product?.name ?? null,
        orders: r.orders,
        items: r.items,
        quantity: r.quantity,
      })
      byOrg.set(r.organization_id, list)
    }
    for (const list of byOrg.values()) {
      list.sort((a, b) => b.quantity - a.quantity || (a.sku ?? '').localeCompare(b.sku ?? ''))
    }
    return byOrg
  }

  function view(
    org: { id: string; name: string },
    totals: UsageTotals | undefined,
    products: ProductUsageView[] = [],
  ): OrganizationUsageView {
    const t = totals ?? ZERO
    const linkedItems = products.reduce((n, p) => n + p.items, 0)
    const linkedQuantity = products.reduce((n, p) => n + p.quantity, 0)
    return {
      id: org.id,
      name: org.name,
      orders: t.orders,
      items: t.items,
      quantity: t.quantity,
      products,
      unlinked: { items: t.items - linkedItems, quantity: t.quantity - linkedQuantity },
    }
  }

  return {
    currentMonth,

    /** Every organization's usage in the month (default: the current UTC month), by name, and the totals. */
    async platformUsage(month: string = currentMonth()) {
      const first = `${month}-01`
      const [organizations, totals, products] = await Promise.all([
        deps.organizations.list(),
        usageByOrganization(db, first),
        usageByProduct(db, first),
      ])
      const byOrg = new Map(totals.map((t) => [t.organization_id, t]))
      const productsByOrg = await productsOf(products)
      const rows = organizations
        .map((o) => view(o, byOrg.get(o.id), productsByOrg.get(o.id)))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
      return {
        month,
        organizations: rows,
        totals: {
          orders: rows.reduce((n, r) => n + r.orders, 0),
          items: rows.reduce((n, r) => n + r.items, 0),
          quantity: rows.reduce((n, r) => n + r.quantity, 0),
        },
      }
    },

    /** One organization's usage in the month (default: the current UTC month). */
    async organizationUsage(organizationId: string, month: string = currentMonth()) {
      const organization = await deps.organizations.require(organizationId)
      const first = `${month}-01`
      const [totals, products] = await Promise.all([
        usageByOrganization(db, first, organization.id),
        usageByProduct(db, first, organization.id),
      ])
      const productsByOrg = await productsOf(products)
      return { month, organization: view(organization, totals[0], productsByOrg.get(organization.id)) }
    },
  }
}

export type UsageService = ReturnType<typeof createUsageService>

/** The CSV of a month's usage: a line per organization, then one per product it sold and its unlinked items. */
export function usageCsv(usage: { month: string; organizations: OrganizationUsageView[] }): string {
  const lines = [
    [
      'month',
      'organization_id',
      'organization',
      'line',
      'product_id',
      'sku',
      'product',
      'orders',
      'items',
      'quantity',
    ],
  ] as (string | number | null)[][]
  for (const o of usage.organizations) {
    lines.push([usage.month, o.id, o.name, 'organization', null, null, null, o.orders, o.items, o.quantity])
    for (const p of o.products) {
      lines.push([
        usage.month,
        o.id,
        o.name,
        'product',
        p.product_id,
        p.sku,
        p.name,
        p.orders,
        p.items,
        p.quantity,
      ])
    }
    if (o.unlinked.items > 0) {
      lines.push([
        usage.month,
        o.id,
        o.name,
        'unlinked',
        null,
        null,
        null,
        null,
        o.unlinked.items,
        o.unlinked.quantity,
      ])
    }
  }
  return lines.map(csvLine).join('')
}
