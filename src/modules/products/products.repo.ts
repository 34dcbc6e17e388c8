import type { Database } from '../../db/database.ts'
import type { PrintSpecs, ProductRow } from '../../db/schema.ts'

/** Inserts the product; false when the organization already has one with this sku. */
export async function insertProduct(db: Database, row: ProductRow): Promise<boolean> {
  const inserted = await db
    .insertInto('products')
    .values({ ...row, print_spec: row.print_spec === null ? null : JSON.stringify(row.print_spec) })
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

/** The product of the organization with this id, or undefined. */
export async function findProduct(db: Database, organizationId: string, id: string) {
  return db
    .selectFrom('products')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The product with this id, whoever's it is (the operator's), or undefined. */
export async function findAnyProduct(db: Database, id: string) {
  return db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Sets (or with null removes) the product's print specifications: the row as it is now. */
export async function setPrintSpecs(db: Database, id: string, specs: PrintSpecs | null) {
  return db
    .updateTable('products')
    .set({ print_spec: specs === null ? null : JSON.stringify(specs) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Sets (or with null removes) the product's lead time in working days: the row as it is now. */
export async function setLeadTime(db: Database, id: string, days: number | null) {
  return db
    .updateTable('products')
    .set({ lead_time_days: days })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
}
