import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AuditAction, type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { findOrderById, setOrderStatus, touchOrders } from '../orders/orders.repo.ts'
import type { OperatorOrder } from '../orders/orders.schemas.ts'
import type { OrderService } from '../orders/orders.service.ts'
import {
  type EventType,
  eventData,
  type RecordedEvent,
  recordEvent,
} from '../webhooks/outbox/outbox.service.ts'
import {
  checkNotHeld,
  checkPrecondition,
  orderNotFound,
  type ProductionPrecondition,
  visibleTo,
} from './production.preconditions.ts'
import {
  completeJob,
  findJob,
  type LockedProduction,
  lockProduction,
  releaseHold,
  setProducedByPartner,
  setProductionStatus,
} from './production.repo.ts'
import { ORDER_STATUS_FOR, type ProductionStatus, productionOrderView } from './production.views.ts'
import { createProductionBoard } from './production-board.service.ts'

export { type ProductionPrecondition, staleOrder } from './production.preconditions.ts'
export {
  ORDER_STATUS_FOR,
  PRODUCTION_STATUSES,
  type ProductionStatus,
  productionOrderView,
} from './production.views.ts'

const STATUS_EVENTS: Partial<Record<ProductionStatus, EventType>> = {
  in_progress: 'order.production_started',
  completed: 'order.production_completed',
  failed: 'order.production_failed',
  cancelled: 'order.cancelled',
}

/** What a change did: its answer and the events it recorded (none for an unchanged order, shop orders, partner-produced items). */
export interface ProductionChange<View> {
  view: View
  events: RecordedEvent[]
}

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
  const { db, clock } = deps

  async function emit(
    trx: Database,
    p: LockedProduction,
    type: EventType,
    data: (order: { order_id: string; external_order_id: string }) => Record<string, unknown>,
    at: Date,
  ): Promise<RecordedEvent[]> {
    if (p.environment !== 'live' || p.source !== 'api') return []
    const event = await recordEvent(trx, {
      organizationId: p.organization_id,
      environment: p.environment,
      type,
      orderId: p.order_id,
      data: data(p),
      at,
    })
    return [event]
  }

  /** Moves the production order, its unfinished jobs and the order to a new status. */
  async function transition(trx: Database, p: LockedProduction, status: ProductionStatus, at: Date) {
    await setProductionStatus(trx, p.id, status, at)
    await setOrderStatus(trx, p.order_id, ORDER_STATUS_FOR[status], at)
  }

  /** The operator's audit entry, in the change's transaction (only for changes that happened). */
  async function audit(
    trx: Database,
    actor: AuditActor | undefined,
    p: LockedProduction,
    action: AuditAction,
    subject: string,
    details: Record<string, unknown>,
  ) {
    if (!actor) return
    await recordAudit(trx, clock, {
      organizationId: p.organization_id,
      actor,
      action,
      subject,
      details: { order_id: p.order_id, external_order_id: p.external_order_id, ...details },
    })
  }

  const notFound = () => new AppError('not_found', { message: 'No production order with this id.' })

  /** An order with no production order (a test order): refused as not found unless it exists and is visible. */
  async function requireOrder(trx: Database, orderId: string, precondition: ProductionPrecondition) {
    const order = await findOrderById(trx, orderId)
    if (!order || !visibleTo(order, precondition)) throw orderNotFound()
  }

  const api = {
    /** Sets a production order's status; the event of the new status (live API orders), unless unchanged. */
    async changeStatus(
      productionOrderId: string,
      status: ProductionStatus,
      actor?: AuditActor,
      precondition: ProductionPrecondition = {},
    ): Promise<ProductionChange<ReturnType<typeof productionOrderView>>> {
      if (!isUuid(productionOrderId)) throw notFound()
      return db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { productionOrderId })
        if (!p) throw notFound()
        checkPrecondition(p, precondition)
        if (p.status === status) return { view: productionOrderView(p), events: [] }
        checkNotHeld(p, status)
        const at = clock.now()
        await transition(trx, p, status, at)
        await audit(trx, actor, p, 'production.status_set', p.id, { from: p.status, to: status })
        const type = STATUS_EVENTS[status]
        const production = {
          production_order_id: p.id,
          production_status: status,
          produced_by_partner: p.produced_by_partner,
        }
        const events = type
          ? await emit(trx, p, type, (order) => eventData.production(order, production), at)
          : []
        return { view: productionOrderView({ ...p, status }), events }
      })
    },

    async changePartner(
      productionOrderId: string,
      producedByPartner: boolean,
      actor?: AuditActor,
      precondition: ProductionPrecondition = {},
    ): Promise<ProductionChange<ReturnType<typeof productionOrderView>>> {
      if (!isUuid(productionOrderId)) throw notFound()
      return db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { productionOrderId })
        if (!p) throw notFound()
        checkPrecondition(p, precondition)
        if (p.produced_by_partner !== producedByPartner) {
          await setProducedByPartner(trx, p.id, producedByPartner, clock.now())
          await audit(trx, actor, p, 'production.partner_set', p.id, {
            produced_by_partner: producedByPartner,
          })
        }
        return { view: productionOrderView({ ...p, produced_by_partner: producedByPartner }), events: [] }
      })
    },

    /**
     * Completes one item's job; order_item.completed unless the order is
     * partner-produced. The job is read again under the production order's
     * lock, so two completions at once record one event. With
     * `requirePending`, a job already completed is a 409 production_conflict
     * (the console); without, it answers the job unchanged (/admin/v1).
     */
    async changeJob(
      jobId: string,
      actor?: AuditActor,
      precondition: ProductionPrecondition & { requirePending?: boolean } = {},
    ) {
      return db.transaction().execute(async (trx) => {
        const found = isUuid(jobId) ? await findJob(trx, jobId) : undefined
        if (!found) throw new AppError('not_found', { message: 'No production job with this id.' })
        const p = (await lockProduction(trx, { productionOrderId: found.production_order_id }))!
        const job = (await findJob(trx, jobId))!
        checkPrecondition(p, precondition)
        const view = (status: string) => ({
          id: job.id,
          production_order_id: job.production_order_id,
          order_item_id: job.order_item_id,
          status,
        })
        if (job.status !== 'completed') checkNotHeld(p, 'in_progress')
        if (job.status === 'completed') {
          if (precondition.requirePending) {
            throw new AppError('production_conflict', {
              message: `The item ${job.sku ?? job.name} was already completed. Nothing was done.`,
            })
          }
          return { view: view('completed'), events: [] as RecordedEvent[] }
        }
        const at = clock.now()
        await completeJob(trx, job.id, at)
        await touchOrders(trx, [p.order_id], at)
        await audit(trx, actor, p, 'production.job_completed', job.id, { sku: job.sku })
        let events: RecordedEvent[] = []
        if (!p.produced_by_partner) {
          const item = {
            order_item_id: job.order_item_id,
            production_job_id: job.id,
            sku: job.sku,
            name: job.name,
          }
          events = await emit(
            trx,
            p,
            'order_item.completed',
            (order) => eventData.itemCompleted(order, item),
            at,
          )
        }
        return { view: view('completed'), events }
      })
    },

    /**
     * Releases an order held for review by an automation rule: its production
     * order becomes startable and the order's updated_at moves (pollers and
     * open pages see it). An order not held is a 409; test orders are never held.
     */
    async release(
      orderId: string,
      actor: AuditActor,
      precondition: ProductionPrecondition = {},
    ): Promise<OperatorOrder> {
      if (!isUuid(orderId)) throw orderNotFound()
      await db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { orderId })
        if (p) checkPrecondition(p, precondition)
        else await requireOrder(trx, orderId, precondition)
        if (!p || p.held_at === null) {
          throw new AppError('production_conflict', {
            message: 'This order is not held for review: there is nothing to release. Nothing was done.',
          })
        }
        const at = clock.now()
        await releaseHold(trx, p.id, at)
        await touchOrders(trx, [p.order_id], at)
        await audit(trx, actor, p, 'order.released', p.order_id, {
          production_order_id: p.id,
          changed: ['held'],
          rule: p.hold,
        })
      })
      return deps.orders.getOperatorView(orderId)
    },

    /** Cancels the order as a whole (order.cancelled without production_status); answers the operator's view of it. */
    async cancel(
      orderId: string,
      actor?: AuditActor,
      precondition: ProductionPrecondition = {},
    ): Promise<ProductionChange<OperatorOrder>> {
      if (!isUuid(orderId)) throw orderNotFound()
      const events = await db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { orderId })
        if (!p) {
          await requireOrder(trx, orderId, precondition)
          throw AppError.validation(
            [
              {
                code: 'invalid_format',
                field: 'order_id',
                message: 'Test orders have no production to cancel.',
              },
            ],
            'Test orders never start production and cannot be cancelled.',
          )
        }
        checkPrecondition(p, precondition)
        if (p.status === 'cancelled') return []
        const at = clock.now()
        await transition(trx, p, 'cancelled', at)
        await audit(trx, actor, p, 'order.cancelled', p.order_id, {
          from: p.status,
          before: { status: ORDER_STATUS_FOR[p.status] },
          after: { status: 'cancelled' },
        })
        const production = { production_order_id: p.id, produced_by_partner: p.produced_by_partner }
        return emit(trx, p, 'order.cancelled', (order) => eventData.production(order, production), at)
      })
      return { view: await deps.orders.getOperatorView(orderId), events }
    },
  }

  return {
    ...api,
    ...createProductionBoard(deps),
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
      return (await api.changeStatus(productionOrderId, status, actor, precondition)).view
    },
    async setPartner(productionOrderId: string, producedByPartner: boolean, actor?: AuditActor) {
      return (await api.changePartner(productionOrderId, producedByPartner, actor)).view
    },
    async completeJob(jobId: string, actor?: AuditActor) {
      return (await api.changeJob(jobId, actor)).view
    },
    async cancelOrder(orderId: string, actor?: AuditActor): Promise<OperatorOrder> {
      return (await api.cancel(orderId, actor)).view
    },
  }
}

export type ProductionService = ReturnType<typeof createProductionService>
