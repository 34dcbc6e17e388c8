import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { newId } from '../../lib/ids.ts'

export interface ProductView {
  id: string
  organization_id: string
  sku: string
  name: string
  created_at: string
}

export class ProductExistsError extends Error {}

export function createProductService(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
  return {
    /**
     * Creates the product and links every existing unlinked item of the
     * organization with that sku, bumping their orders' updated_at so pollers
     * see the change. Future items link at creation.
     */
    async create(organizationId: string, input: { sku: string; name: string }): Promise<ProductView> {
      const now = clock.now()
      const id = newId()
      const created = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('products')
          .values({ id, organization_id: organizationId, sku: input.sku, name: input.name, created_at: now })
          .onConflict((oc) => oc.columns(['organization_id', 'sku']).doNothing())
          .returning('id')
          .executeTakeFirst()
        if (!inserted) return false
        const linked = await trx
          .updateTable('order_items')
          .set({ product_id: id })
          .where('organization_id', '=', organizationId)
          .where('sku', '=', input.sku)
          .where('product_id', 'is', null)
          .returning('order_id')
          .execute()
        const orderIds = [...new Set(linked.map((r) => r.order_id))]
        if (orderIds.length > 0) {
          await trx.updateTable('orders').set({ updated_at: now }).where('id', 'in', orderIds).execute()
        }
        return true
      })
      if (!created) throw new ProductExistsError(`a product with sku ${input.sku} already exists`)
      return {
        id,
        organization_id: organizationId,
        sku: input.sku,
        name: input.name,
        created_at: now.toISOString(),
      }
    },

    async list(organizationId: string): Promise<ProductView[]> {
      const rows = await db
        .selectFrom('products')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('sku')
        .execute()
      return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() }))
    },
  }
}

export type ProductService = ReturnType<typeof createProductService>
