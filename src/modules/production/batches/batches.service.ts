import type { Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB } from '../../../db/schema.ts'
import type { BatchStatus } from '../../../db/tables/production.ts'
import { AppError } from '../../../http/errors.ts'
import { cursorCodec, keysetPage } from '../../../http/pagination.ts'
import type { Clock } from '../../../lib/clock.ts'
import { isUuid, newId } from '../../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import type { ProductionCalendar } from '../calendar/calendar.service.ts'
import { type LockedProduction, lockProductions } from '../production.repo.ts'
import { ACTIONS, type BatchAction, moveOrders } from './batches.actions.ts'
import {
  addBatchOrders,
  type BatchRow,
  countBatchOrders,
  deleteBatch,
  findBatch,
  findJoinable,
  insertBatch,
  listBatches,
  lockBatch,
  openBatchesOf,
  removeBatchOrders,
  setBatchStatus,
  touchBatch,
} from './batches.repo.ts'
import { batchDetail, batchNotFound, batchView } from './batches.views.ts'

export type { BatchAction }

/** A batch holds at most this many production orders. */
export const BATCH_MAX_ORDERS = 500

/** Which orders to add: these ids, or every joinable one matching a selection (up to the batch's room). */
export type BatchSelection =
  | { productionOrderIds: string[] }
  | { sku?: string | undefined; dueBy?: string | undefined; organizationId?: string | undefined }

const CURSOR = cursorCodec()

/** Why an order cannot join a batch, in words; undefined: it can. */
function cannotJoin(p: LockedProduction, inBatch: { name: string } | undefined): string | undefined {
  const name = `Order ${p.external_order_id}`
  if (p.status !== 'pending')
    return `${name} is ${p.status.replace('_', ' ')}: only pending orders join a batch.`
  if (p.held_at !== null) return `${name} is held for review: it can join a batch once it is released.`
  if ((p.awaiting_rules ?? []).length > 0)
    return `${name} waits for its files' print check: it can join a batch once the results are in.`
  if (inBatch) return `${name} is already in the batch '${inBatch.name}'.`
  return undefined
}

/**
 * Batches: production orders made together. Orders join and leave an open
 * batch; starting, completing or failing it moves each of its orders as the
 * console's status change does (its event, its audit entry), in one
 * transaction, so a retry moves only what is left and records nothing twice.
 */
export function createBatches(deps: {
  db: Database
  clock: Clock
  calendar: Pick<ProductionCalendar, 'dueViews'>
}) {
  const { db, clock } = deps

  /** Adds the selected orders to the locked open batch (all or none: a refusal names the first that cannot join). */
  async function add(
    trx: Transaction<DB>,
    batch: BatchRow,
    selection: BatchSelection,
    at: Date,
  ): Promise<string[]> {
    if (batch.status !== 'open') {
      throw new AppError('production_conflict', {
        message: `The batch '${batch.name}' is ${batch.status.replace('_', ' ')}: orders join only until it starts. Nothing was done.`,
      })
    }
    const room = BATCH_MAX_ORDERS - (await countBatchOrders(trx, batch.id))
    const ids =
      'productionOrderIds' in selection
        ? [...new Set(selection.productionOrderIds)]
        : await findJoinable(trx, { ...selection, limit: Math.max(room, 0) })
    if (ids.length === 0) {
      throw AppError.validation([
        {
          code: 'too_few',
          field: 'select',
          message: 'No pending production order outside a batch matches.',
        },
      ])
    }
    if (ids.length > room) {
      throw AppError.validation([
        {
          code: 'too_many',
          field: 'production_order_ids',
          message: `A batch holds at most ${BATCH_MAX_ORDERS} orders; this one has room for ${room}.`,
        },
      ])
    }
    const unknown = ids.find((id) => !isUuid(id))
    const rows = unknown ? [] : await lockProductions(trx, ids)
    if (unknown || rows.length !== ids.length) {
      const found = new Set(rows.map((r) => r.id))
      throw new AppError('not_found', {
        message: `No production order with the id ${ids.find((id) => !found.has(id))}. Nothing was done.`,
      })
    }
    const inBatches = await openBatchesOf(trx, ids)
    for (const p of rows) {
      const reason = cannotJoin(p, inBatches.get(p.id))
      if (reason) throw new AppError('production_conflict', { message: `${reason} Nothing was done.` })
    }
    if (!(await addBatchOrders(trx, batch.id, ids, at))) {
      throw new AppError('production_conflict', {
        message: 'An order joined another batch at the same time. Nothing was done: reload and try again.',
      })
    }
    return ids
  }

  async function audit(
    trx: Database,
    actor: AuditActor,
    action: Parameters<typeof recordAudit>[2]['action'],
    batch: { id: string; name: string },
    details: Record<string, unknown>,
  ) {
    await recordAudit(trx, clock, {
      organizationId: null,
      actor,
      action,
      subject: batch.id,
      details: { name: batch.name, ...details },
    })
  }

  /** A batch with its orders and their items by product (404 when unknown). */
  async function batch(batchId: string) {
    const row = isUuid(batchId) ? await findBatch(db, batchId) : undefined
    if (!row) throw batchNotFound()
    return batchDetail(db, (await deps.calendar.dueViews()).view, row)
  }

  return {
    batch,
    /** A new open batch with its first orders. */
    async createBatch(name: string, selection: BatchSelection, actor: AuditActor) {
      const id = newId()
      await db.transaction().execute(async (trx) => {
        const at = clock.now()
        await insertBatch(trx, { id, name, createdBy: actor.label, at })
        const batch = (await lockBatch(trx, id))!
        const added = await add(trx, batch, selection, at)
        await audit(trx, actor, 'production.batch_created', batch, { orders: added.length })
      })
      return batch(id)
    },

    /** Adds orders to an open batch. */
    async addOrders(batchId: string, selection: BatchSelection, actor: AuditActor) {
      if (!isUuid(batchId)) throw batchNotFound()
      await db.transaction().execute(async (trx) => {
        const batch = await lockBatch(trx, batchId)
        if (!batch) throw batchNotFound()
        const at = clock.now()
        const added = await add(trx, batch, selection, at)
        await touchBatch(trx, batch.id, at)
        await audit(trx, actor, 'production.batch_orders_added', batch, { orders: added.length })
      })
      return batch(batchId)
    },

    /** Takes an order out of an open batch (404 when it is not in it). */
    async removeOrder(batchId: string, productionOrderId: string, actor: AuditActor) {
      if (!isUuid(batchId)) throw batchNotFound()
      await db.transaction().execute(async (trx) => {
        const batch = await lockBatch(trx, batchId)
        if (!batch) throw batchNotFound()
        if (batch.status !== 'open') {
          throw new AppError('production_conflict', {
            message: `The batch '${batch.name}' is ${batch.status.replace('_', ' ')}: orders leave only until it starts. Nothing was done.`,
          })
        }
        const removed = isUuid(productionOrderId)
          ? await removeBatchOrders(trx, batch.id, [productionOrderId])
          : 0
        if (removed === 0)
          throw new AppError('not_found', { message: 'This production order is not in the batch.' })
        const at = clock.now()
        await touchBatch(trx, batch.id, at)
        await audit(trx, actor, 'production.batch_order_removed', batch, {
          production_order_id: productionOrderId,
        })
      })
      return batch(batchId)
    },

    /** Deletes an open batch: its orders are free again; nothing happened to them. */
    async deleteBatch(batchId: string, actor: AuditActor) {
      if (!isUuid(batchId)) throw batchNotFound()
      return db.transaction().execute(async (trx) => {
        const batch = await lockBatch(trx, batchId)
        if (!batch) throw batchNotFound()
        if (batch.status !== 'open') {
          throw new AppError('production_conflict', {
            message: `The batch '${batch.name}' has started: it stays as the record of what was made. Nothing was done.`,
          })
        }
        const orders = await countBatchOrders(trx, batch.id)
        await deleteBatch(trx, batch.id)
        await audit(trx, actor, 'production.batch_deleted', batch, { orders })
        return batchView({ ...batch, orders })
      })
    },

    /** Batches newest first, of one status or all. */
    async listBatches(query: {
      status?: BatchStatus | undefined
      cursor?: string | undefined
      limit: number
    }) {
      const after = query.cursor === undefined ? undefined : CURSOR.decode(query.cursor)
      const rows = await listBatches(db, { status: query.status, after, limit: query.limit })
      return keysetPage(rows, query.limit, {
        cursor: (r) => CURSOR.encode({ at: r.created_at, id: r.id }),
        view: batchView,
      })
    },

    /**
     * Starts, completes or fails a batch: each of its orders that may move
     * makes the transition alone would (its event, its audit entry with the
     * batch), the others are left as they are and said why; the batch takes
     * the action's status. Repeating it moves only what is left.
     */
    async act(
      batchId: string,
      action: BatchAction,
      actor: AuditActor,
      options: { reason?: string | undefined } = {},
    ) {
      if (!isUuid(batchId)) throw batchNotFound()
      const rule = ACTIONS[action]
      const outcome = await db.transaction().execute(async (trx) => {
        const batch = await lockBatch(trx, batchId)
        if (!batch) throw batchNotFound()
        if (!(rule.batchFrom as readonly BatchStatus[]).includes(batch.status)) {
          throw new AppError('production_conflict', {
            message: `The batch '${batch.name}' is ${batch.status.replace('_', ' ')}: it cannot be ${action === 'start' ? 'started' : action === 'complete' ? 'completed' : 'failed'}. Nothing was done.`,
          })
        }
        const { results, events } = await moveOrders(trx, clock, batch, action, actor, options.reason)
        if (batch.status !== rule.batch) {
          await setBatchStatus(trx, batch.id, rule.batch, clock.now())
          await audit(
            trx,
            actor,
            `production.batch_${action === 'start' ? 'started' : action === 'complete' ? 'completed' : 'failed'}`,
            batch,
            {
              orders: results.filter((r) => r.outcome === 'changed').length,
              ...(options.reason ? { reason: options.reason } : {}),
            },
          )
        }
        return { results, events }
      })
      return { ...(await batch(batchId)), results: outcome.results, events: outcome.events }
    },

    /** The open batch of each production order (the board's entries). */
    openBatchesOf: (productionOrderIds: string[]) => openBatchesOf(db, productionOrderIds),
  }
}

export type Batches = ReturnType<typeof createBatches>
