import type { Database } from '../../../db/database.ts'
import { badCursor, cursorCodec, keysetPage } from '../../../http/pagination.ts'
import type { Clock } from '../../../lib/clock.ts'
import { isUuid } from '../../../lib/ids.ts'
import { findItemsWithJobs, type ItemWithJob } from '../../orders/orders.repo.ts'
import type { OrderService } from '../../orders/orders.service.ts'
import { openBatchesOf } from '../batches/batches.repo.ts'
import type { ProductionCalendar } from '../calendar/calendar.service.ts'
import { productionOrderNotFound } from '../production.preconditions.ts'
import { findProductionOrder } from '../production.repo.ts'
import {
  ORDER_STATUS_FOR,
  PRODUCTION_STATUSES,
  type ProductionStatus,
  productionOrderView,
} from '../production.views.ts'
import { type BoardFilter, countBoard, countDue, countHeld, findBoardPage } from './board.repo.ts'

/**
 * What the operators' board shows: production orders to work on, with their
 * items' jobs and each status's count; and one production order's page.
 */

/**
 * The board's cursor: the last production order's due date, created_at and
 * id; rush orders come first, so a cursor among them says so.
 */
/** The last production order's created_at and id, inside the board's cursor. */
const POSITION = cursorCodec()

interface BoardPosition {
  rush: boolean
  due: string | null
  at: Date
  id: string
}

/** `<rush|normal>|<due date or none>|<position>`, base64url. */
const encodeCursor = (p: BoardPosition) =>
  Buffer.from(`${p.rush ? 'rush' : 'normal'}|${p.due ?? 'none'}|${POSITION.encode(p)}`, 'utf8').toString(
    'base64url',
  )

function decodeCursor(cursor: string): BoardPosition {
  const [kind, due, position, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  const known = (kind === 'rush' || kind === 'normal') && extra === undefined
  if (!known || (due !== 'none' && !isDay(due ?? ''))) throw badCursor()
  return { rush: kind === 'rush', due: due === 'none' ? null : due!, ...POSITION.decode(position ?? '') }
}

const isDay = (day: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day)

const boardBatch = (batch: string | undefined): BoardFilter['batch'] =>
  batch === undefined || batch === 'none' || batch === 'any' ? batch : { id: batch }

/** The board counts each status up to this many orders; beyond, it says "more than". */
export const BOARD_COUNT_CAP = 1000

type BoardDeps = {
  db: Database
  clock: Clock
  calendar: Pick<ProductionCalendar, 'dueViews'>
  orders: Pick<OrderService, 'getOperatorView' | 'openFile' | 'liveOrdersByStatus'>
}

export function createProductionBoard(deps: BoardDeps) {
  const { db, clock, orders } = deps

  return {
    /**
     * The console's production board: live production orders of one status,
     * oldest first, with their items' jobs; next_cursor pages on.
     */
    async board(query: {
      status: ProductionStatus
      organizationId?: string | undefined
      producedByPartner?: boolean | undefined
      olderThanMinutes?: number | undefined
      held?: boolean | undefined
      tag?: string | undefined
      preflight?: 'problem' | 'warning' | undefined
      /** late: open and past due; today: due today (in the calendar's time zone). */
      due?: 'late' | 'today' | undefined
      /** Due on or before this day (YYYY-MM-DD). */
      dueBy?: string | undefined
      /** none: in no open batch; any: in one; an id: in that batch. */
      batch?: string | undefined
      cursor?: string | undefined
      limit: number
    }) {
      if (query.organizationId !== undefined && !isUuid(query.organizationId)) {
        return { data: [], next_cursor: null, counts: query.cursor === undefined ? noCounts() : null }
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
      const { today, view: dueView } = await deps.calendar.dueViews()
      const filter = {
        due:
          query.due === 'late'
            ? { late: today }
            : query.due === 'today'
              ? { today }
              : query.dueBy !== undefined
                ? { by: query.dueBy }
                : undefined,
        organizationId: query.organizationId,
        batch: boardBatch(query.batch),
        producedByPartner: query.producedByPartner,
        tag: query.tag,
        preflight: query.preflight,
        createdBefore:
          query.olderThanMinutes === undefined
            ? undefined
            : new Date(clock.now().getTime() - query.olderThanMinutes * 60_000),
      }
      const [rows, counted] = await Promise.all([
        // Held orders are pending, shown apart and never startable from the other lists.
        boardPage(
          db,
          {
            ...filter,
            status: query.held ? 'pending' : query.status,
            held: query.held ?? false,
            limit: query.limit,
          },
          after,
        ),
        // The first page carries the counts; the pages after it would only repeat them.
        after === undefined ? counts(deps, filter) : undefined,
      ])
      const shown = rows.slice(0, query.limit)
      const [items, batches] = await Promise.all([
        findItemsWithJobs(
          db,
          shown.map((r) => r.order_id),
        ),
        openBatchesOf(
          db,
          shown.map((r) => r.id),
        ),
      ])
      const page = keysetPage(rows, query.limit, {
        cursor: (r) =>
          encodeCursor({
            rush: r.priority === 'rush' && !query.held,
            due: r.due_on,
            at: r.created_at,
            id: r.id,
          }),
        view: (r) => ({ ...boardEntry(r, items), due: dueView(r.due_on), batch: batches.get(r.id) ?? null }),
      })
      return { ...page, counts: counted === undefined ? null : countsView(counted) }
    },

    /** One production order with its order (the operator's view) and organization; 404 for an unknown id. */
    async productionOrder(productionOrderId: string) {
      const row = isUuid(productionOrderId) ? await findProductionOrder(db, productionOrderId) : undefined
      if (!row) throw productionOrderNotFound()
      const { view: dueView } = await deps.calendar.dueViews()
      return {
        production_order: productionOrderView(row),
        organization: { id: row.organization_id, name: row.organization_name },
        due: dueView(row.due_on),
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        order: await orders.getOperatorView(row.order_id),
      }
    },

    /** Open production orders late and due today (of one organization, or all), counted up to BOARD_COUNT_CAP each. */
    async dueCounts(organizationId?: string) {
      if (organizationId !== undefined && !isUuid(organizationId)) return { late: 0, today: 0, more: false }
      const { today } = await deps.calendar.dueViews()
      const n = await countDue(db, { organizationId }, today, BOARD_COUNT_CAP)
      return {
        late: Math.min(n.late, BOARD_COUNT_CAP),
        today: Math.min(n.today, BOARD_COUNT_CAP),
        more: n.late > BOARD_COUNT_CAP || n.today > BOARD_COUNT_CAP,
      }
    },

    /** A file of a production order's order (the stored bytes, the sanitized SVG for an SVG). */
    async openFile(productionOrderId: string, uploadId: string) {
      const row = isUuid(productionOrderId) ? await findProductionOrder(db, productionOrderId) : undefined
      if (!row) throw productionOrderNotFound()
      return orders.openFile(row.order_id, uploadId)
    },
  }
}

/**
 * Each status's count under the board's filters. By organization alone (or
 * none) they are the order statistics' (a live order's status follows its
 * production order's), exact at any size; with partner or age filters,
 * counted on production_orders, stopping past BOARD_COUNT_CAP per status.
 */
async function counts(
  { db, orders }: Pick<BoardDeps, 'db' | 'orders'>,
  filter: {
    organizationId?: string | undefined
    producedByPartner?: boolean | undefined
    createdBefore?: Date | undefined
    tag?: string | undefined
    preflight?: 'problem' | 'warning' | undefined
    due?: BoardFilter['due']
    batch?: BoardFilter['batch']
  },
): Promise<Counts> {
  const held = await countHeld(db, filter, BOARD_COUNT_CAP)
  if (
    filter.due === undefined &&
    filter.batch === undefined &&
    filter.producedByPartner === undefined &&
    filter.createdBefore === undefined &&
    filter.tag === undefined &&
    filter.preflight === undefined
  ) {
    const byStatus = await orders.liveOrdersByStatus(filter.organizationId)
    const counted = Object.fromEntries(
      PRODUCTION_STATUSES.map((s) => [s, byStatus[ORDER_STATUS_FOR[s]] ?? 0]),
    ) as Counts
    // A held order is pending: the board shows it apart, so pending counts the startable ones
    // (counted on the board itself when too many are held to subtract them exactly).
    const pending =
      held > BOARD_COUNT_CAP
        ? (await countBoard(db, filter, ['pending'], BOARD_COUNT_CAP)).pending
        : Math.max(0, counted.pending - held)
    return { ...counted, pending, held }
  }
  return { ...(await countBoard(db, filter, PRODUCTION_STATUSES, BOARD_COUNT_CAP)), held }
}

/**
 * One page of a status: rush orders first, then the others, each oldest
 * first (the rush ones from production_orders_rush_due_idx, which holds only
 * them); held ones only with `held`.
 */
async function boardPage(
  db: Database,
  filter: Omit<BoardFilter, 'after' | 'priority'>,
  after: ReturnType<typeof decodeCursor> | undefined,
) {
  const position = after && { due: after.due, createdAt: after.at, id: after.id }
  if (filter.held) return findBoardPage(db, { ...filter, after: position })
  const rush =
    after === undefined || after.rush
      ? await findBoardPage(db, { ...filter, priority: 'rush', after: position })
      : []
  if (rush.length > filter.limit) return rush
  const normal = await findBoardPage(db, {
    ...filter,
    priority: 'normal',
    after: after && !after.rush ? position : undefined,
    limit: filter.limit - rush.length,
  })
  return [...rush, ...normal]
}

/** A production order on the board: with its order, organization and its items' jobs. */
function boardEntry(r: BoardRow, items: ItemWithJob[]) {
  return {
    production_order: productionOrderView(r),
    order: {
      id: r.order_id,
      external_order_id: r.external_order_id,
      status: r.order_status,
      source: r.source,
      customer_name: r.customer_name,
    },
    organization: { id: r.organization_id, name: r.organization_name },
    priority: r.priority,
    held: r.held_at !== null,
    hold: r.hold,
    awaiting_preflight: (r.awaiting_rules ?? []).map((rule) => rule.name),
    tags: r.tags,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    items: items
      .filter((i) => i.order_id === r.order_id)
      .map((i) => ({
        id: i.id,
        sku: i.sku,
        name: i.name,
        quantity: i.quantity,
        job: i.job_id ? { id: i.job_id, status: i.job_status! } : null,
      })),
  }
}

type BoardRow = Awaited<ReturnType<typeof findBoardPage>>[number]

type Counts = Record<ProductionStatus | 'held', number>

function countsView(counts: Counts) {
  return Object.fromEntries(
    [...PRODUCTION_STATUSES, 'held' as const].map((s) => [
      s,
      { count: Math.min(counts[s], BOARD_COUNT_CAP), more: counts[s] > BOARD_COUNT_CAP },
    ]),
  ) as Record<ProductionStatus | 'held', { count: number; more: boolean }>
}

const noCounts = () =>
  countsView({ pending: 0, in_progress: 0, completed: 0, failed: 0, cancelled: 0, held: 0 })
