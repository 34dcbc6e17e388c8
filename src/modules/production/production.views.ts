/** The production statuses of the reference, and a production order as answers show it. */
import type { ProductionStatus } from '../../db/tables/common.ts'
import type { OrderStatus } from '../orders/orders.schemas.ts'
import type { RecordedEvent } from '../webhooks/outbox/outbox.service.ts'

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

/** The events an action recorded, as the console's answers show them. */
export const eventsView = (events: RecordedEvent[]) =>
  events.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data }))
