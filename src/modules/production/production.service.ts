import type { Database } from '../../db/database.ts'
import { newId } from '../../lib/ids.ts'

export const PRODUCTION_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number]

/** The order status that follows from a production order status. */
export const ORDER_STATUS_FOR: Record<ProductionStatus, string> = {
  pending: 'pending',
  in_progress: 'in_production',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
}

export interface StartedProduction {
  productionOrder: { id: string; status: ProductionStatus; produced_by_partner: boolean }
  jobs: Map<string, { id: string; status: ProductionStatus }>
}

/** One production order and one pending job per item, in the order's transaction. */
export async function startProduction(
  trx: Database,
  input: { orderId: string; itemIds: string[]; at: Date },
): Promise<StartedProduction> {
  const productionOrder = { id: newId(), status: 'pending' as const, produced_by_partner: false }
  await trx
    .insertInto('production_orders')
    .values({
      id: productionOrder.id,
      order_id: input.orderId,
      status: productionOrder.status,
      produced_by_partner: false,
      created_at: input.at,
      updated_at: input.at,
    })
    .execute()
  const jobs = new Map<string, { id: string; status: ProductionStatus }>()
  const rows = input.itemIds.map((itemId) => {
    const job = { id: newId(), status: 'pending' as const }
    jobs.set(itemId, job)
    return {
      id: job.id,
      production_order_id: productionOrder.id,
      order_item_id: itemId,
      status: job.status,
      created_at: input.at,
      updated_at: input.at,
    }
  })
  if (rows.length > 0) await trx.insertInto('production_jobs').values(rows).execute()
  return { productionOrder, jobs }
}
