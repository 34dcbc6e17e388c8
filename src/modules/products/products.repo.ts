import type { Database } from '../../db/database.ts'
import type { ProductRow } from '../../db/schema.ts'

/** Inserts the product; false when the organization already has one with this sku. */
export async function insertProduct(db: Database, row: ProductRow): Promise<boolean> {
  const inserted = await db
    .insertInto('products')
    .values(row)
    .onConflict((oc) => oc.columns(['organization_id', 'sku']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return inserted !== undefined
}

export async function listProducts(db: Database, organizationId: string): Promise<ProductRow[]> {
  return db
    .selectFrom('products')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('sku')
    .execute()
}
