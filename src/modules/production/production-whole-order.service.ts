import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { DB } from '../../db/schema.ts'
import type { ItemVerdict } from '../../db/tables/preflight.ts'
import { AppError } from '../../http/errors.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import type { AuditActor } from '../audit/audit.service.ts'
import { compileRules, evaluate } from '../automation/automation.evaluate.ts'
import type { Rule } from '../automation/automation.rules.ts'
import { findItemsWithJobs, findOrderById, setRuleOutcome, touchOrders } from '../orders/orders.repo.ts'
import type { OperatorOrder } from '../orders/orders.schemas.ts'
import type { OrderService } from '../orders/orders.service.ts'
import { eventData } from '../webhooks/outbox/outbox.service.ts'
import {
  checkPrecondition,
  orderNotFound,
  type ProductionPrecondition,
  visibleTo,
} from './production.preconditions.ts'
import { applyAwaited, lockProduction, releaseHold } from './production.repo.ts'
import { ORDER_STATUS_FOR } from './production.views.ts'
import { auditChange, emitEvent, type ProductionChange, transition } from './production.writes.ts'

/**
 * What production does to an order as a whole, by the order's id: the release
 * of a hold and the cancel; each answers the operator's view of the order.
 */
export function createWholeOrderChanges(deps: {
  db: Database
  clock: Clock
  orders: Pick<OrderService, 'getOperatorView'>
}) {
  const { db, clock } = deps

  /** An order with no production order (a test order): refused as not found unless it exists and is visible. */
  async function requireOrder(trx: Database, orderId: string, precondition: ProductionPrecondition) {
    const order = await findOrderById(trx, orderId)
    if (!order || !visibleTo(order, precondition)) throw orderNotFound()
  }

  return {
    /**
     * Applies the rules that waited for the order's print check, now that its
     * items' verdicts are known, in the transaction that stores them: each
     * matching one does to the order what it would have done at intake (a
     * hold unless one holds it already, the partner, the priority, its tags),
     * after the rules applied then, and production may start. A cancelled
     * order only stops waiting. No event is sent: none of this is in the
     * reference's Order.
     */
    async applyAwaitingRules(
      trx: Transaction<DB>,
      checked: { id: string; items: ItemVerdict[] },
    ): Promise<void> {
      const p = await lockProduction(trx, { orderId: checked.id })
      if (!p?.awaiting_rules) return
      const at = clock.now()
      const [order, items] = await Promise.all([
        findOrderById(trx, checked.id),
        findItemsWithJobs(trx, [checked.id]),
      ])
      if (!order || p.status === 'cancelled') {
        await applyAwaited(trx, p.id, {}, at)
        return
      }
      const outcome = evaluate(compileRules(p.awaiting_rules as Rule[]).rules, {
        source: order.source,
        currency: order.currency,
        total: order.total_amount === null ? null : Number(order.total_amount),
        customerEmail: order.customer_email,
        items: items.map((item, n) => ({
          sku: item.sku,
          linked: item.product_id !== null,
          quantity: item.quantity,
          personalization: item.personalization,
          files: item.files.length,
          preflight: checked.items[n] ?? 'ok',
        })),
      })
      const setsPriority = outcome.matched.some((m) => m.actions.some((a) => a.type === 'priority'))
      await applyAwaited(
        trx,
        p.id,
        {
          hold: p.held_at === null && outcome.hold ? outcome.hold : undefined,
          partner: outcome.partner && !p.produced_by_partner ? true : undefined,
          priority: setsPriority ? outcome.priority : undefined,
        },
        at,
      )
      if (outcome.matched.length === 0) return
      await setRuleOutcome(
        trx,
        order.id,
        {
          tags: [...order.tags, ...outcome.tags.filter((t) => !order.tags.includes(t))],
          automation: [...(order.automation ?? []), ...outcome.matched],
        },
        at,
      )
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
        await auditChange(trx, clock, actor, p, 'order.released', p.order_id, {
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
        await auditChange(trx, clock, actor, p, 'order.cancelled', p.order_id, {
          from: p.status,
          before: { status: ORDER_STATUS_FOR[p.status] },
          after: { status: 'cancelled' },
        })
        const production = { production_order_id: p.id, produced_by_partner: p.produced_by_partner }
        return emitEvent(trx, p, 'order.cancelled', (order) => eventData.production(order, production), at)
      })
      return { view: await deps.orders.getOperatorView(orderId), events }
    },
  }
}
