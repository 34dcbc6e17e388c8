import type { BatchStatus } from '../../../db/tables/production.ts'
import type { Clock } from '../../../lib/clock.ts'
import type { AuditActor } from '../../audit/audit.service.ts'
import type { RecordedEvent } from '../../webhooks/outbox/outbox.service.ts'
import { type LockedProduction, lockProductions } from '../production.repo.ts'
import type { ProductionStatus } from '../production.views.ts'
import { statusChange } from '../production.writes.ts'
import { type BatchRow, batchOrderIds } from './batches.repo.ts'

/** What a batch action does to each of its orders: the status it moves to, from the ones it may move from. */
export const ACTIONS = {
  start: { batch: 'in_progress', to: 'in_progress', from: ['pending'], batchFrom: ['open', 'in_progress'] },
  complete: {
    batch: 'completed',
    to: 'completed',
    from: ['in_progress'],
    batchFrom: ['in_progress', 'completed'],
  },
  fail: {
    batch: 'failed',
    to: 'failed',
    from: ['pending', 'in_progress'],
    batchFrom: ['in_progress', 'failed'],
  },
} as const satisfies Record<
  string,
  { batch: BatchStatus; to: ProductionStatus; from: ProductionStatus[]; batchFrom: BatchStatus[] }
>
export type BatchAction = keyof typeof ACTIONS

/** Why a batch action leaves an order as it is, in words. */
function skipped(p: LockedProduction, action: BatchAction): string {
  const status = p.status.replace('_', ' ')
  if (action === 'start' && p.held_at !== null) return 'held for review: not started'
  if (action === 'start' && (p.awaiting_rules ?? []).length > 0)
    return "waits for its files' print check: not started"
  if (action === 'complete' && p.status === 'pending') return 'not started: not completed'
  return `${status}: left as it is`
}

/**
 * Moves each of the locked batch's orders that may make the action's move,
 * as its own status change would (its event, its audit entry with the
 * batch), in id order under their locks; the others are left as they are,
 * each result says why.
 */
export async function moveOrders(
  trx: Parameters<typeof lockProductions>[0],
  clock: Clock,
  batch: BatchRow,
  action: BatchAction,
  actor: AuditActor,
  reason: string | undefined,
) {
  const rule = ACTIONS[action]
  const rows = await lockProductions(trx, await batchOrderIds(trx, batch.id))
  const events: RecordedEvent[] = []
  const results = []
  const details = {
    batch_id: batch.id,
    batch_name: batch.name,
    ...(reason ? { reason } : {}),
  }
  for (const p of rows) {
    const movable =
      (rule.from as readonly ProductionStatus[]).includes(p.status) &&
      (action !== 'start' || (p.held_at === null && (p.awaiting_rules ?? []).length === 0))
    if (p.status === rule.to || !movable) {
      results.push({
        production_order_id: p.id,
        external_order_id: p.external_order_id,
        status: p.status,
        outcome: p.status === rule.to ? ('unchanged' as const) : ('skipped' as const),
        reason: p.status === rule.to ? null : skipped(p, action),
      })
      continue
    }
    const change = await statusChange(trx, clock, p, rule.to, actor, details)
    events.push(...change.events)
    results.push({
      production_order_id: p.id,
      external_order_id: p.external_order_id,
      status: rule.to as ProductionStatus,
      outcome: 'changed' as const,
      reason: null,
    })
  }
  return { results, events }
}
