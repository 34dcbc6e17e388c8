import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AuditActor } from '../audit/audit.service.ts'
import type { OperatorOrder } from '../orders/orders.schemas.ts'
import type { OrderService } from '../orders/orders.service.ts'
import { createBatches } from './batches/batches.service.ts'
import { createProductionBoard } from './board/board.service.ts'
import { createProductionCalendar } from './calendar/calendar.service.ts'
import type { ProductionPrecondition } from './production.preconditions.ts'
import { lockProduction } from './production.repo.ts'
import type { ProductionStatus } from './production.views.ts'
import { createProductionOrderChanges } from './production-order-changes.service.ts'
import { createWholeOrderChanges } from './production-whole-order.service.ts'
import { createStations } from './stations/stations.service.ts'

export { type ProductionPrecondition, staleOrder } from './production.preconditions.ts'
export {
  ORDER_STATUS_FOR,
  PRODUCTION_STATUSES,
  type ProductionStatus,
  productionOrderView,
} from './production.views.ts'
export type { ProductionChange } from './production.writes.ts'

/**
 * What the dashboard does to production. Every change locks the production
 * order, moves the order's status and updated_at with it, and writes its event
 * in the same transaction; setting a status the order already has changes
 * nothing and writes nothing. Only live orders that came through the API emit
 * events; shop orders never do (test orders have no production at all).
 */
export function createProductionService(deps: {
  db: Database
  clock: Clock
  /** The operator's view of an order (after a whole-order cancel, on the production order page) and its files. */
  orders: Pick<OrderService, 'getOperatorView' | 'openFile' | 'liveOrdersByStatus'>
}) {
  const changes = createProductionOrderChanges(deps)
  const wholeOrder = createWholeOrderChanges(deps)
  const calendar = createProductionCalendar(deps)
  const board = createProductionBoard({ ...deps, calendar })
  const batches = createBatches({ ...deps, calendar })

  return {
    ...changes,
    ...wholeOrder,
    ...board,
    /** The platform's production calendar and the due dates it gives. */
    calendar,
    /** Batches: production orders made together. */
    batches,
    /** The floor's stations, and what a scan at one opens or does. */
    stations: createStations({
      ...deps,
      productionOrder: board.productionOrder,
      batch: batches.batch,
      completeJob: (jobId, actor) => changes.changeJob(jobId, actor, { requirePending: true }),
    }),
    /**
     * Inside another module's change of a live order (the dashboard's order
     * changes): locks its production order, so production cannot start while
     * the change is decided; undefined for test orders.
     */
    lockForOrderChange: (trx: Transaction<DB>, orderId: string) => lockProduction(trx, { orderId }),
    /** /admin/v1's answers: the changed object only. */
    async setStatus(
      productionOrderId: string,
      status: ProductionStatus,
      actor?: AuditActor,
      precondition: Pick<ProductionPrecondition, 'expectedStatus'> = {},
    ) {
      return (await changes.changeStatus(productionOrderId, status, actor, precondition)).view
    },
    async setPartner(productionOrderId: string, producedByPartner: boolean, actor?: AuditActor) {
      return (await changes.changePartner(productionOrderId, producedByPartner, actor)).view
    },
    async completeJob(jobId: string, actor?: AuditActor) {
      return (await changes.changeJob(jobId, actor)).view
    },
    async cancelOrder(orderId: string, actor?: AuditActor): Promise<OperatorOrder> {
      return (await wholeOrder.cancel(orderId, actor)).view
    },
  }
}

export type ProductionService = ReturnType<typeof createProductionService>
