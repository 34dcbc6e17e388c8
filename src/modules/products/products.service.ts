import type { Database } from '../../db/database.ts'
import type { ProductRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { linkItemsToProduct } from '../orders/orders.repo.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import { insertProduct, listProducts } from './products.repo.ts'

export interface ProductView {
  id: string
  organization_id: string
  sku: string
  name: string
  created_at: string
}

const view = (row: ProductRow): ProductView => ({ ...row, created_at: row.created_at.toISOString() })

export function createProductService(deps: {
  db: Database
  clock: Clock
  organizations: OrganizationLookup
}) {
  const { db, clock } = deps
  return {
    /**
     * Creates the product of an existing organization (else 404) and links every
     * existing unlinked item of the organization with that sku, so pollers see
     * the change; a second product with the same sku is 409. Future items link
     * at creation.
     */
    async create(
      organizationId: string,
      input: { sku: string; name: string },
      actor?: AuditActor,
    ): Promise<ProductView> {
      const organization = await deps.organizations.require(organizationId)
      const row: ProductRow = {
        id: newId(),
        organization_id: organization.id,
        sku: input.sku,
        name: input.name,
        created_at: clock.now(),
      }
      const created = await db.transaction().execute(async (trx) => {
        if (!(await insertProduct(trx, row))) return false
        await linkItemsToProduct(trx, {
          organizationId: row.organization_id,
          sku: row.sku,
          productId: row.id,
          at: row.created_at,
        })
        if (actor) {
          await recordAudit(trx, clock, {
            organizationId: row.organization_id,
            actor,
            action: 'product.created',
            subject: row.sku,
            details: { id: row.id, name: row.name },
          })
        }
        return true
      })
      if (!created) throw new AppError('product_already_exists', { field: 'sku' })
      return view(row)
    },

    async list(organizationId: string): Promise<ProductView[]> {
      const organization = await deps.organizations.require(organizationId)
      return (await listProducts(db, organization.id)).map(view)
    },
  }
}

export type ProductService = ReturnType<typeof createProductService>
