/** The production statuses of the reference, and a production order as answers show it. */
import type { ProductionStatus } from '../../db/tables/common.ts'
import type { OrderStatus } from '../orders/orders.schemas.ts'

export type { ProductionStatus }
export const PRODUCTION_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly ProductionStatus[]

/** The order status that follows from a production order status. */
export const ORDER_STATUS_FOR: Record<ProductionStatus, OrderStatus> = {
  pending: 'pending',
  in_progress: 'in_production',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
}

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
