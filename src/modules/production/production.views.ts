/** The production statuses of the reference, and a production order as answers show it. */
import type { ProductionStatus } from '../../db/tables/common.ts'

export type { ProductionStatus }
export const PRODUCTION_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly ProductionStatus[]

export function productionOrderView(row: {
  id: string
  order_id: string
  status: ProductionStatus
  produced_by_partner: boolean
}) {
  return {
    id: row.id,
    order_id: row.order_id,
    status: row.status,
    produced_by_partner: row.produced_by_partner,
  }
}
