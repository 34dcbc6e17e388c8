import { AppError } from '../../http/errors.ts'
import type { LockedProduction } from './production.repo.ts'
import type { ProductionStatus } from './production.views.ts'

/**
 * The console's precondition: the status the operator saw. A production order
 * that has another status by the time its lock is held is refused with 409
 * production_conflict, so two operators acting at once never both act.
 */
export interface ProductionPrecondition {
  expectedStatus?: ProductionStatus | undefined
  /** The order's updated_at the page showed (the dashboard's order page): any later change is a 409. */
  expectedUpdatedAt?: string | undefined
  /** Refuse (409) rather than do anything to a completed or cancelled production order. */
  unfinishedOnly?: boolean
  /** A member's organization: an order of another one is not found (404). */
  organizationId?: string | undefined
}

const conflict = (current: string) =>
  new AppError('production_conflict', {
    message: `The order changed since you saw it: its production status is now ${current}. Nothing was done.`,
  })

/** The order page's precondition failed: someone changed the order after the page showed it. */
export const staleOrder = (updatedAt: Date) =>
  new AppError('production_conflict', {
    message: `The order was changed at ${updatedAt.toISOString()}, after this page showed it. Nothing was done: reload the order and make the change again.`,
  })

export const orderNotFound = () => new AppError('not_found', { message: 'No order with this id.' })

export const productionOrderNotFound = () =>
  new AppError('not_found', { message: 'No production order with this id.' })

/** Whether a member of the organization may see the order (an operator, with no organization, sees all). */
export const visibleTo = (order: { organization_id: string }, precondition: ProductionPrecondition) =>
  precondition.organizationId === undefined || order.organization_id === precondition.organizationId

/** Refuses a change whose precondition no longer holds, under the production order's lock. */
export function checkPrecondition(p: LockedProduction, precondition: ProductionPrecondition) {
  if (!visibleTo(p, precondition)) throw orderNotFound()
  if (precondition.expectedStatus !== undefined && p.status !== precondition.expectedStatus) {
    throw conflict(p.status)
  }
  if (
    precondition.expectedUpdatedAt !== undefined &&
    p.order_updated_at.getTime() !== new Date(precondition.expectedUpdatedAt).getTime()
  ) {
    throw staleOrder(p.order_updated_at)
  }
  if (precondition.unfinishedOnly && (p.status === 'completed' || p.status === 'cancelled')) {
    throw new AppError('production_conflict', {
      message: `The order is already ${p.status}: it can no longer be cancelled. Nothing was done.`,
    })
  }
}

/**
 * A held order waits for a member's release, and one whose rules wait for its
 * files' print check waits for the results: no status but cancelled (or
 * pending, unchanged) moves either.
 */
export function checkNotHeld(p: LockedProduction, status: ProductionStatus) {
  if (status === 'pending' || status === 'cancelled') return
  const awaiting = p.awaiting_rules ?? []
  if (p.held_at === null && awaiting.length > 0) {
    throw new AppError('production_conflict', {
      message: `This order waits for its files' print check, which rule '${awaiting[0]!.name}' reads: production can start once the results are in and the rule is applied, usually within seconds. Nothing was done.`,
    })
  }
  if (p.held_at === null) return
  throw new AppError('production_conflict', {
    message: `This order is held for review${p.hold ? ` by rule '${p.hold.name}'` : ''}: an owner or developer must release it in the dashboard before production starts. Nothing was done.`,
  })
}
