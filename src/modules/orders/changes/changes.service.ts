import type { Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB, OrderRow } from '../../../db/schema.ts'
import { AppError } from '../../../http/errors.ts'
import type { Clock } from '../../../lib/clock.ts'
import { isUuid } from '../../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import type { PreflightService } from '../../preflight/preflight.service.ts'
import type { ProductionService } from '../../production/production.service.ts'
import { staleOrder } from '../../production/production.service.ts'
import type { UploadService, UploadSlot } from '../../uploads/uploads.service.ts'
import { eventData, type RecordedEvent, recordEvent } from '../../webhooks/outbox/outbox.service.ts'
import type { OrderAggregates } from '../order-aggregates.ts'
import { toOperatorOrder } from '../orders.mappers.ts'
import {
  findOrderById,
  type ItemWithJob,
  lockOrder,
  updateOrderCustomer,
  updateOrderItem,
} from '../orders.repo.ts'
import type { OperatorOrder } from '../orders.schemas.ts'
import { type ChangePlan, planChange } from './change-plan.ts'
import { lockOrderChanges, recordResize } from './changes.repo.ts'
import type { OrderChangeRequest } from './changes.schemas.ts'

/** Who changes an order: a member (only before production starts) or an operator (any time). */
export interface Changer {
  actor: AuditActor
  /** A member's organization: any other order is 404. Operators name none. */
  organizationId?: string
}

const notFound = () => new AppError('not_found', { message: 'No order with this id.' })

/** The production status that still lets members change an order (test orders have none). */
const productionStarted = (status: string | undefined) => status !== undefined && status !== 'pending'

const startedMessage = (status: string) =>
  `Production of this order has started (its production status is ${status}): it can no longer be changed in the dashboard. Ask the operator to change it.`

/**
 * Changes to accepted orders (the dashboard's order page, the console): the
 * customer, an item's quantity, personalization and files, each checked as
 * part of the whole order with POST /v1/orders' rules and messages; and the
 * whole-order cancel, which is production's. One transaction per change, on
 * the precondition of the order's updated_at, with its audit entry and (live
 * API orders) its order.updated event. content_hash is never touched: it is
 * what the client sent, so the client's resend still answers 200.
 */
export function createOrderEditService(deps: {
  db: Database
  clock: Clock
  uploads: Pick<UploadService, 'prepare' | 'commit' | 'afterCommit' | 'discard' | 'createSlot'>
  aggregates: OrderAggregates
  production: Pick<ProductionService, 'lockForOrderChange'>
  /** An order whose files changed is checked again. */
  preflight: Pick<PreflightService, 'enqueue'>
}) {
  const { db, clock, uploads, aggregates } = deps

  async function orderRow(orderId: string, organizationId: string | undefined): Promise<OrderRow> {
    const row = isUuid(orderId) ? await findOrderById(db, orderId) : undefined
    if (!row || (organizationId !== undefined && row.organization_id !== organizationId)) throw notFound()
    return row
  }

  async function view(row: OrderRow): Promise<OperatorOrder> {
    const [aggregate] = await aggregates.aggregatesFor([row], true)
    return toOperatorOrder(aggregate!)
  }

  async function lockAndCheck(
    trx: Transaction<DB>,
    orderId: string,
    expectedUpdatedAt: string,
    changer: Changer,
  ): Promise<{ row: OrderRow; production: Awaited<ReturnType<ProductionService['lockForOrderChange']>> }> {
    // Production first, then the order: the order the production service locks them in.
    const production = await deps.production.lockForOrderChange(trx, orderId)
    const row = await lockOrder(trx, orderId)
    if (!row) throw notFound()
    if (row.updated_at.getTime() !== new Date(expectedUpdatedAt).getTime()) throw staleOrder(row.updated_at)
    if (changer.organizationId !== undefined && productionStarted(production?.status)) {
      throw new AppError('production_conflict', { message: startedMessage(production!.status) })
    }
    return { row, production }
  }

  return {
    /** A signed upload slot in the order's organization and environment, for a file to add. */
    async createUploadSlot(orderId: string, filename: string, organizationId?: string): Promise<UploadSlot> {
      const row = await orderRow(orderId, organizationId)
      return uploads.createSlot(
        { organizationId: row.organization_id, environment: row.environment },
        filename,
      )
    },

    async change(
      orderId: string,
      change: OrderChangeRequest,
      changer: Changer,
    ): Promise<{ order: OperatorOrder; changed: string[]; events: RecordedEvent[] }> {
      const before = await orderRow(orderId, changer.organizationId)
      if (before.updated_at.getTime() !== new Date(change.expected_updated_at).getTime()) {
        throw staleOrder(before.updated_at)
      }
      const [aggregate] = await aggregates.aggregatesFor([before], true)
      const production = aggregate!.productionOrder
      if (changer.organizationId !== undefined && productionStarted(production?.status)) {
        throw new AppError('production_conflict', { message: startedMessage(production!.status) })
      }
      const items = aggregate!.items
      const next = planChange(before, items, change)
      if (next.errors.length > 0) throw AppError.validation(next.errors)
      if (next.changed.length === 0) return { order: toOperatorOrder(aggregate!), changed: [], events: [] }

      // Added files are checked as POST /v1/orders checks them (bracket notation, the order's positions).
      const scope = { organizationId: before.organization_id, environment: before.environment }
      const { errors: fileErrors, plan } = await uploads.prepare(scope, next.candidate.items)
      if (fileErrors.length > 0) throw AppError.validation(fileErrors)
      // A live order's quantities are counted (statistics, usage): the counts follow the change.
      const resized = [...next.touched]
        .map((n) => ({
          productId: items[n]!.product_id,
          difference: next.states[n]!.quantity - items[n]!.quantity,
        }))
        .filter((r) => r.difference !== 0)
      const counted = before.environment === 'live' && resized.length > 0
      let events: RecordedEvent[]
      try {
        events = await db.transaction().execute(async (trx) => {
          // The fold's lock before the order's (linking a product takes them in that order).
          if (counted) await lockOrderChanges(trx)
          const { row } = await lockAndCheck(trx, orderId, change.expected_updated_at, changer)
          const at = clock.now()
          await uploads.commit(trx, plan, at)
          if (next.changed.some((field) => field.endsWith('.files'))) {
            await deps.preflight.enqueue([{ id: row.id, organizationId: row.organization_id }], trx)
          }
          return writeChange(trx, clock, { row, items, next, resized, counted, changer }, at)
        })
      } catch (err) {
        await uploads.discard(plan)
        throw err
      }
      await uploads.afterCommit(plan)
      return { order: await view(await orderRow(orderId, undefined)), changed: next.changed, events }
    },
  }
}

/**
 * The change's writes, under the order's lock: the order's customer and its
 * changed items, the counts of a live order's resized items, the audit entry
 * and (live API orders) its order.updated event.
 */
async function writeChange(
  trx: Transaction<DB>,
  clock: Clock,
  change: {
    row: OrderRow
    items: ItemWithJob[]
    next: ChangePlan
    resized: { productId: string | null; difference: number }[]
    counted: boolean
    changer: Changer
  },
  at: Date,
): Promise<RecordedEvent[]> {
  const { row, items, next } = change
  const itemsBefore = [...next.touched].map((n) => ({
    id: items[n]!.id,
    quantity: items[n]!.quantity,
    personalization: items[n]!.personalization,
    files: items[n]!.files,
  }))
  const itemsAfter = [...next.touched].map((n) => ({ id: items[n]!.id, ...next.states[n]! }))
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
  await updateOrderCustomer(trx, row.id, next.customer, at, bytes(itemsAfter) - bytes(itemsBefore))
  for (const n of next.touched) await updateOrderItem(trx, items[n]!.id, next.states[n]!)
  if (change.counted) {
    const order = {
      id: row.id,
      organizationId: row.organization_id,
      createdAt: row.created_at,
      status: row.status,
    }
    await recordResize(trx, order, change.resized, at)
  }
  await recordAudit(trx, clock, {
    organizationId: row.organization_id,
    actor: change.changer.actor,
    action: 'order.changed',
    subject: row.id,
    details: {
      order_id: row.id,
      external_order_id: row.external_order_id,
      changed: next.changed,
      before: { customer: next.customerBefore, items: itemsBefore },
      after: { customer: next.customer, items: itemsAfter },
    },
  })
  // As every event: live orders that came through the API only.
  if (row.environment !== 'live' || row.source !== 'api') return []
  const order = { order_id: row.id, external_order_id: row.external_order_id }
  return [
    await recordEvent(trx, {
      organizationId: row.organization_id,
      environment: row.environment,
      type: 'order.updated',
      orderId: row.id,
      data: eventData.updated(order, next.changed),
      at,
    }),
  ]
}

export type OrderEditService = ReturnType<typeof createOrderEditService>
