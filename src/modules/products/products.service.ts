import type { Database } from '../../db/database.ts'
import type { PrintSpecs, ProductRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid, newId } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { linkItemsToProduct } from '../orders/orders.repo.ts'
import { findUnmatchedSkus } from '../orders/unmatched-skus.repo.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import type { PreflightService } from '../preflight/preflight.service.ts'
import type { ProductionCalendar } from '../production/calendar/calendar.service.ts'
import { normalizePrintSpecs, type PrintSpecsInput } from './print-spec.ts'
import {
  findAnyProduct,
  findProduct,
  insertProduct,
  listProducts,
  setLeadTime,
  setPrintSpecs,
} from './products.repo.ts'

export interface ProductView {
  id: string
  organization_id: string
  sku: string
  name: string
  created_at: string
  /** What its files must be to print well; null: none set. */
  print_spec: PrintSpecs | null
  /** Working days to make it; null: the production calendar's default. */
  lead_time_days: number | null
}

export interface UnmatchedSkuView {
  sku: string
  /** Items with this sku and no product, in orders of both environments. */
  items: number
  orders: number
  /** When the newest order with such an item was received. */
  last_seen_at: string
}

/** The unmatched skus a page lists at most (the most recently seen). */
export const MAX_UNMATCHED_SKUS = 200

const view = (row: ProductRow): ProductView => ({ ...row, created_at: row.created_at.toISOString() })

export function createProductService(deps: {
  db: Database
  clock: Clock
  organizations: OrganizationLookup
  /** Orders not started yet are checked again when a product's specs change or it links their items. */
  preflight: Pick<PreflightService, 'recheckProduct'>
  /** Open production orders are dated again when a product's lead time changes. */
  calendar: Pick<ProductionCalendar, 'redateProduct'>
}) {
  const { db, clock } = deps
  return {
    /**
     * Creates the product of an existing organization (else 404) and links every
     * existing unlinked item of the organization with that sku, so pollers see
     * the change; a second product with the same sku is 409. Future items link
     * at creation. The audit entry is written in the same transaction; the
     * answer says how many existing items the product linked.
     */
    async create(
      organizationId: string,
      input: { sku: string; name: string },
      actor?: AuditActor,
    ): Promise<{ product: ProductView; linkedItems: number }> {
      const organization = await deps.organizations.require(organizationId)
      const row: ProductRow = {
        id: newId(),
        organization_id: organization.id,
        sku: input.sku,
        name: input.name,
        created_at: clock.now(),
        print_spec: null,
        lead_time_days: null,
      }
      const linked = await db.transaction().execute(async (trx) => {
        if (!(await insertProduct(trx, row))) return undefined
        const items = await linkItemsToProduct(trx, {
          organizationId: row.organization_id,
          sku: row.sku,
          productId: row.id,
          at: row.created_at,
        })
        if (items > 0) await deps.preflight.recheckProduct(row.id, trx)
        if (actor) {
          await recordAudit(trx, clock, {
            organizationId: row.organization_id,
            actor,
            action: 'product.created',
            subject: row.sku,
            details: { name: row.name, linked_items: items },
          })
        }
        return items
      })
      if (linked === undefined) throw new AppError('product_already_exists', { field: 'sku' })
      return { product: view(row), linkedItems: linked }
    },

    /**
     * Sets the product's print specifications (null removes them), with
     * defaults filled in, in one transaction with its audit entry and the
     * queueing of its orders not started yet to be checked again. The
     * organization's product only (`organizationId`; the operator: any);
     * 404 for any other id.
     */
    async setPrintSpecs(
      scope: { organizationId: string } | 'any',
      productId: string,
      input: PrintSpecsInput | null,
      actor: AuditActor,
    ): Promise<ProductView> {
      const found = await this.find(scope, productId)
      const specs = normalizePrintSpecs(input)
      const row = await db.transaction().execute(async (trx) => {
        const updated = await setPrintSpecs(trx, found.id, specs)
        await deps.preflight.recheckProduct(found.id, trx)
        await recordAudit(trx, clock, {
          organizationId: found.organization_id,
          actor,
          action: 'product.print_spec_set',
          subject: found.sku,
          details: { print_spec: specs },
        })
        return updated
      })
      return view(row)
    },

    /**
     * Sets the product's lead time in working days (null: the calendar's
     * default), in one transaction with its audit entry and the new due dates
     * of its open production orders. Scoped as setPrintSpecs.
     */
    async setLeadTime(
      scope: { organizationId: string } | 'any',
      productId: string,
      leadTimeDays: number | null,
      actor: AuditActor,
    ): Promise<{ product: ProductView; redatedOrders: number }> {
      const found = await this.find(scope, productId)
      return db.transaction().execute(async (trx) => {
        const updated = await setLeadTime(trx, found.id, leadTimeDays)
        const redated = await deps.calendar.redateProduct(trx, found.id)
        await recordAudit(trx, clock, {
          organizationId: found.organization_id,
          actor,
          action: 'product.lead_time_set',
          subject: found.sku,
          details: { lead_time_days: leadTimeDays, before: found.lead_time_days, redated_orders: redated },
        })
        return { product: view(updated), redatedOrders: redated }
      })
    },

    /** The organization's product (`organizationId`; the operator: any); 404 for any other id. */
    async find(scope: { organizationId: string } | 'any', productId: string): Promise<ProductRow> {
      const found = !isUuid(productId)
        ? undefined
        : scope === 'any'
          ? await findAnyProduct(db, productId)
          : await findProduct(db, scope.organizationId, productId)
      if (!found) throw new AppError('not_found', { message: 'No product with this id.' })
      return found
    },

    async list(organizationId: string): Promise<ProductView[]> {
      const organization = await deps.organizations.require(organizationId)
      return (await listProducts(db, organization.id)).map(view)
    },

    /** Skus seen in the organization's orders that no product matches, most recently seen first. */
    async unmatchedSkus(organizationId: string): Promise<UnmatchedSkuView[]> {
      const organization = await deps.organizations.require(organizationId)
      const rows = await findUnmatchedSkus(db, organization.id, MAX_UNMATCHED_SKUS)
      return rows.map((r) => ({ ...r, last_seen_at: r.last_seen_at.toISOString() }))
    },
  }
}

export type ProductService = ReturnType<typeof createProductService>
