import type { Database } from '../../db/database.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import type { AuditActor } from '../audit/audit.service.ts'
import { touchOrders } from '../orders/orders.repo.ts'
import { eventData, type RecordedEvent } from '../webhooks/outbox/outbox.service.ts'
import {
  checkNotHeld,
  checkPrecondition,
  type ProductionPrecondition,
  productionOrderNotFound,
} from './production.preconditions.ts'
import {
  completeJob,
  findJob,
  type LockedProduction,
  lockProduction,
  setProducedByPartner,
} from './production.repo.ts'
import { type ProductionStatus, productionOrderView } from './production.views.ts'
import { auditChange, emitEvent, type ProductionChange, statusChange } from './production.writes.ts'

/** Changes of one production order, by its id or its job's: its status, its partner, an item's job. */
export function createProductionOrderChanges(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps

  /** In one transaction, the production order locked and its precondition checked (an unknown id is 404), then the change. */
  async function onLocked<T>(
    productionOrderId: string,
    precondition: ProductionPrecondition,
    change: (trx: Database, p: LockedProduction) => Promise<T>,
  ): Promise<T> {
    if (!isUuid(productionOrderId)) throw productionOrderNotFound()
    return db.transaction().execute(async (trx) => {
      const p = await lockProduction(trx, { productionOrderId })
      if (!p) throw productionOrderNotFound()
      checkPrecondition(p, precondition)
      return change(trx, p)
    })
  }

  return {
    /** Sets a production order's status; the event of the new status (live API orders), unless unchanged. */
    async changeStatus(
      productionOrderId: string,
      status: ProductionStatus,
      actor?: AuditActor,
      precondition: ProductionPrecondition = {},
      /** Beside from and to in the audit entry (a failure's reason). */
      details: Record<string, unknown> = {},
    ): Promise<ProductionChange<ReturnType<typeof productionOrderView>>> {
      return onLocked(productionOrderId, precondition, (trx, p) =>
        statusChange(trx, clock, p, status, actor, details),
      )
    },

    async changePartner(
      productionOrderId: string,
      producedByPartner: boolean,
      actor?: AuditActor,
      precondition: ProductionPrecondition = {},
    ): Promise<ProductionChange<ReturnType<typeof productionOrderView>>> {
      return onLocked(productionOrderId, precondition, async (trx, p) => {
        if (p.produced_by_partner !== producedByPartner) {
          await setProducedByPartner(trx, p.id, producedByPartner, clock.now())
          await auditChange(trx, clock, actor, p, 'production.partner_set', p.id, {
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
        await auditChange(trx, clock, actor, p, 'production.job_completed', job.id, { sku: job.sku })
        let events: RecordedEvent[] = []
        if (!p.produced_by_partner) {
          const item = {
            order_item_id: job.order_item_id,
            production_job_id: job.id,
            sku: job.sku,
            name: job.name,
          }
          events = await emitEvent(
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
  }
}
