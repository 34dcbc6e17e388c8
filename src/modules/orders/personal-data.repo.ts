import { sql, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB, OrderRow, PersonalizationValue } from '../../db/schema.ts'

/** The orders of a batch of an erasure, locked, as they are now (another erasure may have taken some). */
export async function lockOrdersToErase(
  trx: Transaction<DB>,
  organizationId: string,
  ids: string[],
): Promise<OrderRow[]> {
  return trx
    .selectFrom('orders')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute()
}

/**
 * The orders' customers become the erased customer (`erased`, no e-mail, no
 * phone); updated_at moves, so that pollers see it. With personalization, the
 * time it went too.
 */
export async function eraseOrderCustomers(
  trx: Database,
  ids: string[],
  at: Date,
  withPersonalization: boolean,
) {
  await trx
    .updateTable('orders')
    .set({
      customer_name: 'erased',
      customer_email: null,
      customer_phone: null,
      erased_at: sql<Date>`coalesce(erased_at, ${at}::timestamptz)`,
      updated_at: at,
      ...(withPersonalization ? { personalization_erased_at: at } : {}),
    })
    .where('id', 'in', ids)
    .execute()
}

export async function setItemPersonalization(
  trx: Database,
  items: { id: string; personalization: Record<string, PersonalizationValue> }[],
) {
  if (items.length === 0) return
  await sql`
    update order_items i set personalization = v.personalization::json
    from unnest(${items.map((i) => i.id)}::uuid[], ${items.map((i) => JSON.stringify(i.personalization))}::text[])
      as v(id, personalization)
    where i.id = v.id`.execute(trx)
}
