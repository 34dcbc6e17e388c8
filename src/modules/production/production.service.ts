import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AuditAction, type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { findOrderById, setOrderStatus, touchOrders } from '../orders/orders.repo.ts'
import type { OperatorOrder, OrderStatus } from '../orders/orders.schemas.ts'
import { type EventType, eventData, recordEvent } from '../webhooks/outbox/outbox.service.ts'
import {
  completeJob,
  findJob,
  type LockedProduction,
  lockProduction,
  setProducedByPartner,
  setProductionStatus,
} from './production.repo.ts'

export const PRODUCTION_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
export type ProductionStatus = (typeof PRODUCTION_STATUSES)[number]

/** The order status that follows from a production order status. */
export const ORDER_STATUS_FOR: Record<ProductionStatus, OrderStatus> = {
  pending: 'pending',
  in_progress: 'in_production',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
}

const STATUS_EVENTS: Partial<Record<ProductionStatus, EventType>> = {
  in_progress: 'order.production_started',
  completed: 'order.production_completed',
  failed: 'order.production_failed',
  cancelled: 'order.cancelled',
}

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
  /** The operator's view of an order, answered after a whole-order cancel. */
  orders: { getOperatorView(orderId: string): Promise<OperatorOrder> }
}) {
  const { db, clock } = deps

  async function emit(
    trx: Database,
    p: LockedProduction,
    type: EventType,
    data: (order: { order_id: string; external_order_id: string }) => Record<string, unknown>,
    at: Date,
  ) {
    if (p.environment !== 'live' || p.source !== 'api') return
    await recordEvent(trx, {
      organizationId: p.organization_id,
      environment: p.environment,
      type,
      orderId: p.order_id,
      data: data(p),
      at,
    })
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

  return {
    async setStatus(productionOrderId: string, status: ProductionStatus, actor?: AuditActor) {
      if (!isUuid(productionOrderId)) throw notFound()
      return db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { productionOrderId })
        if (!p) throw notFound()
        if (p.status === status) return productionOrderView(p)
        const at = clock.now()
        await transition(trx, p, status, at)
        await audit(trx, actor, p, 'production.status_set', p.id, { from: p.status, to: status })
        const type = STATUS_EVENTS[status]
        if (type) {
          const production = {
            production_order_id: p.id,
            production_status: status,
            produced_by_partner: p.produced_by_partner,
          }
          await emit(trx, p, type, (order) => eventData.production(order, production), at)
        }
        return productionOrderView({ ...p, status })
      })
    },

    async setPartner(productionOrderId: string, producedByPartner: boolean, actor?: AuditActor) {
      if (!isUuid(productionOrderId)) throw notFound()
      return db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { productionOrderId })
        if (!p) throw notFound()
        if (p.produced_by_partner !== producedByPartner) {
          await setProducedByPartner(trx, p.id, producedByPartner, clock.now())
          await audit(trx, actor, p, 'production.partner_set', p.id, {
            produced_by_partner: producedByPartner,
          })
        }
        return productionOrderView({ ...p, produced_by_partner: producedByPartner })
      })
    },

    /** Completes one item's job; order_item.completed unless the order is partner-produced. */
    async completeJob(jobId: string, actor?: AuditActor) {
      return db.transaction().execute(async (trx) => {
        const job = isUuid(jobId) ? await findJob(trx, jobId) : undefined
        if (!job) throw new AppError('not_found', { message: 'No production job with this id.' })
        const p = (await lockProduction(trx, { productionOrderId: job.production_order_id }))!
        const view = (status: string) => ({
          id: job.id,
          production_order_id: job.production_order_id,
          order_item_id: job.order_item_id,
          status,
        })
        if (job.status === 'completed') return view('completed')
        const at = clock.now()
        await completeJob(trx, job.id, at)
        await touchOrders(trx, [p.order_id], at)
        await audit(trx, actor, p, 'production.job_completed', job.id, { sku: job.sku })
        if (!p.produced_by_partner) {
          const item = {
            order_item_id: job.order_item_id,
            production_job_id: job.id,
            sku: job.sku,
            name: job.name,
          }
          await emit(trx, p, 'order_item.completed', (order) => eventData.itemCompleted(order, item), at)
        }
        return view('completed')
      })
    },

    /** Cancels the order as a whole (order.cancelled without production_status); answers the operator's view of it. */
    async cancelOrder(orderId: string, actor?: AuditActor): Promise<OperatorOrder> {
      if (!isUuid(orderId)) throw new AppError('not_found', { message: 'No order with this id.' })
      await db.transaction().execute(async (trx) => {
        const p = await lockProduction(trx, { orderId })
        if (!p) {
          if (!(await findOrderById(trx, orderId))) {
            throw new AppError('not_found', { message: 'No order with this id.' })
          }
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
        if (p.status === 'cancelled') return
        const at = clock.now()
        await transition(trx, p, 'cancelled', at)
        await audit(trx, actor, p, 'order.cancelled', p.order_id, { from: p.status })
        const production = { production_order_id: p.id, produced_by_partner: p.produced_by_partner }
        await emit(trx, p, 'order.cancelled', (order) => eventData.production(order, production), at)
      })
      return deps.orders.getOperatorView(orderId)
    },
  }
}

export type ProductionService = ReturnType<typeof createProductionService>
