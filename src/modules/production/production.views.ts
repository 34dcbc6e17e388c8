/** The production statuses of the reference, and a production order as answers show it. */
export const PRODUCTION_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number]

export function productionOrderView(row: {
  id: string
  order_id: string
  status: string
  produced_by_partner: boolean
}) {
  return {
    id: row.id,
    order_id: row.order_id,
    status: row.status,
    produced_by_partner: row.produced_by_partner,
  }
}
