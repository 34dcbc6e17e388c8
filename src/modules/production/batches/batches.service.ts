import type { Transaction } from 'kysely'
import type { Database } from '../../../db/database.ts'
import type { DB } from '../../../db/schema.ts'
import type { BatchStatus } from '../../../db/tables/production.ts'
import { AppError } from '../../../http/errors.ts'
import { cursorCodec, keysetPage } from '../../../http/pagination.ts'
import type { Clock } from '../../../lib/clock.ts'
import { isUuid, newId } from '../../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import { findItemsWithJobs } from '../../orders/orders.repo.ts'
import type { RecordedEvent } from '../../webhooks/outbox/outbox.service.ts'
import type { ProductionCalendar } from '../calendar/calendar.service.ts'
import { type LockedProduction, lockProductions } from '../production.repo.ts'
import { type ProductionStatus, productionOrderView } from '../production.views.ts'
import { statusChange } from '../production.writes.ts'
import {
  addBatchOrders,
  type BatchRow,
  batchOrderIds,
  deleteBatch,
  findBatch,
  findBatchMembers,
  findJoinable,
  insertBatch,
  listBatches,
  lockBatch,
  openBatchesOf,
  removeBatchOrders,
  setBatchStatus,
  touchBatch,
} from './batches.repo.ts'

/** A batch holds at most this many production orders. */
export const BATCH_MAX_ORDERS = 500

/** Which orders to add: these ids, or every joinable one matching a selection (up to the batch's room). */
export type BatchSelection =
  | { productionOrderIds: string[] }
  | { sku?: string | undefined; dueBy?: string | undefined; organizationId?: string | undefined }

/** What a batch action does to each of its orders: the status it moves to, from the ones it may move from. */
const ACTIONS = {
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

const CURSOR = cursorCodec()

const batchNotFound = () => new AppError('not_found', { message: 'No batch with this id.' })

const batchView = (b: BatchRow & { orders?: number | null }) => ({
  id: b.id,
  name: b.name,
  status: b.status,
  created_by: b.created_by,
  orders: b.orders ?? 0,
  created_at: b.created_at.toISOString(),
  updated_at: b.updated_at.toISOString(),
  started_at: b.started_at?.toISOString() ?? null,
  finished_at: b.finished_at?.toISOString() ?? null,
})

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
    const room = BATCH_MAX_ORDERS - (await batchOrderIds(trx, batch.id)).length
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

  /**
   * A batch with its production orders (soonest due first) and their items
   * grouped by product: quantities summed, each line with its order,
   * personalization, files and job.
   */
  async function batch(batchId: string) {
    const row = isUuid(batchId) ? await findBatch(db, batchId) : undefined
    if (!row) throw batchNotFound()
    const members = await findBatchMembers(db, row.id)
    const items = await findItemsWithJobs(
      db,
      members.map((m) => m.order_id),
    )
    const { view: dueView } = await deps.calendar.dueViews()
    const byOrder = new Map(members.map((m) => [m.order_id, m]))
    const products = new Map<
      string,
      { sku: string | null; name: string; quantity: number; lines: ReturnType<typeof line>[] }
    >()
    function line(i: (typeof items)[number]) {
      const m = byOrder.get(i.order_id)!
      return {
        production_order_id: m.id,
        order_id: m.order_id,
        external_order_id: m.external_order_id,
        item_id: i.id,
        position: i.position,
        quantity: i.quantity,
        personalization: i.personalization,
        files: i.files.map((f) => ({ upload_id: f.upload_id, role: f.role })),
        job: i.job_id ? { id: i.job_id, status: i.job_status! } : null,
      }
    }
    for (const i of items) {
      const key = `${i.sku ?? ''}\u0000${i.name}`
      const group = products.get(key) ?? { sku: i.sku, name: i.name, quantity: 0, lines: [] }
      group.quantity += i.quantity
      group.lines.push(line(i))
      products.set(key, group)
    }
    const order = (id: string) => members.findIndex((m) => m.order_id === id)
    return {
      batch: batchView({ ...row, orders: members.length }),
      orders: members.map((m) => ({
        production_order: productionOrderView(m),
        order: {
          id: m.order_id,
          external_order_id: m.external_order_id,
          status: m.order_status,
          customer_name: m.customer_name,
        },
        organization: { id: m.organization_id, name: m.organization_name },
        priority: m.priority,
        held: m.held_at !== null,
        due: dueView(m.due_on),
        added_at: m.added_at.toISOString(),
        items: items.filter((i) => i.order_id === m.order_id).length,
      })),
      products: [...products.values()]
        .map((g) => ({
          ...g,
          lines: g.lines.sort((a, b) => order(a.order_id) - order(b.order_id) || a.position - b.position),
        }))
        .sort((a, b) => (a.sku ?? a.name).localeCompare(b.sku ?? b.name)),
    }
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
        const orders = (await batchOrderIds(trx, batch.id)).length
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
        const rows = await lockProductions(trx, await batchOrderIds(trx, batch.id))
        const events: RecordedEvent[] = []
        const results = []
        const details = {
          batch_id: batch.id,
          batch_name: batch.name,
          ...(options.reason ? { reason: options.reason } : {}),
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
