import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { type AuditAction, type AuditActor, recordAudit } from '../audit/audit.service.ts'
import { setOrderStatus } from '../orders/orders.repo.ts'
import {
  type EventType,
  eventData,
  type RecordedEvent,
  recordEvent,
} from '../webhooks/outbox/outbox.service.ts'
import { checkNotHeld } from './production.preconditions.ts'
import { type LockedProduction, setProductionStatus } from './production.repo.ts'
import { ORDER_STATUS_FOR, type ProductionStatus, productionOrderView } from './production.views.ts'

/**
 * What every change of production writes with it, in the change's
 * transaction under the production order's lock: the order's status, its
 * event and the operator's audit entry.
 */

/** What a change did: its answer and the events it recorded (none for an unchanged order, shop orders, partner-produced items). */
export interface ProductionChange<View> {
  view: View
  events: RecordedEvent[]
}

/** The change's event; only live orders that came through the API record one. */
export async function emitEvent(
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
export async function transition(trx: Database, p: LockedProduction, status: ProductionStatus, at: Date) {
  await setProductionStatus(trx, p.id, status, at)
  await setOrderStatus(trx, p.order_id, ORDER_STATUS_FOR[status], at)
}

/** The operator's audit entry, in the change's transaction (only for changes that happened). */
export async function auditChange(
  trx: Database,
  clock: Clock,
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

const STATUS_EVENTS: Partial<Record<ProductionStatus, EventType>> = {
  in_progress: 'order.production_started',
  completed: 'order.production_completed',
  failed: 'order.production_failed',
  cancelled: 'order.cancelled',
}

/**
 * Sets a locked production order's status: the transition, the operator's
 * audit entry (with `details` beside from and to) and the new status's event
 * (live API orders); nothing when the status is already the one asked for. A
 * held order, or one waiting for its print check, cannot start (409).
 */
export async function statusChange(
  trx: Database,
  clock: Clock,
  p: LockedProduction,
  status: ProductionStatus,
  actor: AuditActor | undefined,
  details: Record<string, unknown> = {},
): Promise<ProductionChange<ReturnType<typeof productionOrderView>>> {
  if (p.status === status) return { view: productionOrderView(p), events: [] }
  checkNotHeld(p, status)
  const at = clock.now()
  await transition(trx, p, status, at)
  await auditChange(trx, clock, actor, p, 'production.status_set', p.id, {
    from: p.status,
    to: status,
    ...details,
  })
  const type = STATUS_EVENTS[status]
  const production = {
    production_order_id: p.id,
    production_status: status,
    produced_by_partner: p.produced_by_partner,
  }
  const events = type
    ? await emitEvent(trx, p, type, (order) => eventData.production(order, production), at)
    : []
  return { view: productionOrderView({ ...p, status }), events }
}
