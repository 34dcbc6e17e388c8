import type { Database } from '../../db/database.ts'
import type { Environment, OrderRow, ProductionOrderRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { contentHash } from '../../lib/canonical-json.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AuditActor, recordAudit } from '../audit/audit.service.ts'
import type { OrganizationLookup } from '../organizations/organizations.service.ts'
import { FileConflictError, type UploadService } from '../uploads/uploads.service.ts'
import { decodeCursor, encodeCursor, type Position } from './cursor.ts'
import { type DailyTotals, sumDailyStats, sumDailyStatsByOrganization } from './daily-stats.repo.ts'
import { buildOrderGraph, linkProducts, type OrderContext } from './order-graph.ts'
import { type OrderAggregate, toOperatorOrder, toPublicOrder } from './orders.mappers.ts'
import {
  findItemsWithJobs,
  findNewestOrdersPage,
  findOrderByExternalId,
  findOrderById,
  findOrdersPage,
  findOrganizationOrdersPage,
  findProductionOrders,
  type ItemWithJob,
  insertOrderGraph,
  type OrderScope,
} from './orders.repo.ts'
import {
  type ListOrdersQuery,
  type OperatorOrder,
  ORDER_STATUSES,
  type Order,
  type OrderRequest,
  type Warning,
} from './orders.schemas.ts'
import { PAGE_BUDGET_BYTES, withinBudget } from './page-budget.ts'

interface Created<View> {
  /** false: an identical repeat, answered with the existing order. */
  created: boolean
  order: View
  warnings: Warning[]
}

/** A concurrent PUT or sweep changed a file between its check and the order's commit: check again. */
const MAX_ATTEMPTS = 3

export function createOrderService(deps: {
  db: Database
  clock: Clock
  uploads: Pick<UploadService, 'prepare' | 'commit' | 'afterCommit' | 'discard' | 'details' | 'open'>
  organizations: OrganizationLookup
  /** Bytes of items a list page may carry (tests lower it). */
  pageBudgetBytes?: number
}) {
  const { db, clock, uploads } = deps
  const pageBudgetBytes = deps.pageBudgetBytes ?? PAGE_BUDGET_BYTES

  async function fileDetails(items: ItemWithJob[]) {
    return uploads.details(items.flatMap((i) => i.files.map((f) => f.upload_id)))
  }

  async function aggregatesFor(rows: OrderRow[], withProduction: boolean): Promise<OrderAggregate[]> {
    const ids = rows.map((r) => r.id)
    const [items, productionOrders] = await Promise.all([
      findItemsWithJobs(db, ids),
      withProduction ? findProductionOrders(db, ids) : Promise.resolve([] as ProductionOrderRow[]),
    ])
    const files = await fileDetails(items)
    const itemsByOrder = new Map<string, ItemWithJob[]>()
    for (const item of items) {
      const list = itemsByOrder.get(item.order_id)
      if (list) list.push(item)
      else itemsByOrder.set(item.order_id, [item])
    }
    const productionByOrder = new Map(productionOrders.map((p) => [p.order_id, p]))
    return rows.map((row) => ({
      row,
      items: itemsByOrder.get(row.id) ?? [],
      productionOrder: productionByOrder.get(row.id) ?? null,
      files,
    }))
  }

  /** The existing order answers an identical repeat (200) and refuses different content (409). */
  async function resolveExisting(existing: OrderRow, hash: string): Promise<Created<OrderAggregate>> {
    if (existing.content_hash !== hash) {
      throw new AppError('order_already_exists_with_different_content', {
        hint: `The existing order's id is ${existing.id}.`,
      })
    }
    const [aggregate] = await aggregatesFor([existing], true)
    return { created: false, order: aggregate!, warnings: [] }
  }

  async function create(
    ctx: OrderContext,
    body: OrderRequest,
    attempt = 1,
    /** Written in the transaction that inserts the order (the operator's audit entry), only when it is new. */
    onCreated?: (trx: Database, orderId: string) => Promise<void>,
  ): Promise<Created<OrderAggregate>> {
    const hash = contentHash(body)
    const orderedAt = body.ordered_at ? new Date(body.ordered_at) : undefined
    if (orderedAt && Number.isNaN(orderedAt.getTime())) {
      throw AppError.validation([
        { code: 'invalid_format', field: 'ordered_at', message: 'ordered_at must be a valid date-time' },
      ])
    }

    // A repeat is answered before any file is looked at: same content 200,
    // different content (new upload ids included) 409. Orders without files skip
    // this read; the insert's conflict tells the same.
    const hasFiles = body.items.some((item) => (item.files?.length ?? 0) > 0)
    if (hasFiles) {
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (existing) return resolveExisting(existing, hash)
    }

    // Files are checked at acceptance; any unusable file rejects the whole order
    // and leaves every upload as it was, usable for a resend.
    const { errors: fileErrors, plan } = await uploads.prepare(ctx, body.items)
    if (fileErrors.length > 0) throw AppError.validation(fileErrors)

    const now = clock.now()
    const { graph, items } = buildOrderGraph(ctx, body, { contentHash: hash, orderedAt, now })
    let productIds: (string | null)[] | undefined
    try {
      productIds =
        plan.finalize.length === 0 && !onCreated
          ? await insertOrderGraph(db, graph)
          : await db.transaction().execute(async (trx) => {
              const inserted = await insertOrderGraph(trx, graph)
              if (inserted && plan.finalize.length > 0) await uploads.commit(trx, plan, now)
              if (inserted && onCreated) await onCreated(trx, graph.order.id)
              return inserted
            })
    } catch (err) {
      await uploads.discard(plan)
      if (err instanceof FileConflictError && attempt < MAX_ATTEMPTS) {
        return create(ctx, body, attempt + 1, onCreated)
      }
      throw err
    }

    if (!productIds) {
      // The external id exists (a repeat, or a concurrent request that won).
      await uploads.discard(plan)
      const existing = await findOrderByExternalId(db, ctx, body.external_order_id)
      if (!existing) throw new AppError('internal_error')
      return resolveExisting(existing, hash)
    }
    await uploads.afterCommit(plan)

    const warnings = linkProducts(items, productIds)
    const production = graph.production
    return {
      created: true,
      order: {
        row: graph.order,
        items,
        productionOrder: production
          ? { id: production.id, status: 'pending', produced_by_partner: false }
          : null,
        files: await fileDetails(items),
      },
      warnings,
    }
  }

  /**
   * One page of a list: the rows fetched (one more than the limit), cut to the
   * limit and the byte budget; the cursor is the last row's position in the
   * list's order (default: the polling order's (updated_at, id)).
   */
  async function page<View>(
    rows: OrderRow[],
    limit: number,
    view: {
      withProduction: boolean
      map: (aggregate: OrderAggregate) => View
      position?: (row: OrderRow) => Position
    },
  ): Promise<{ data: View[]; next_cursor: string | null }> {
    const position = view.position ?? ((row: OrderRow) => ({ updatedAt: row.updated_at, id: row.id }))
    const shown = withinBudget(rows.slice(0, limit), pageBudgetBytes)
    const last = shown.at(-1)
    const aggregates = await aggregatesFor(shown, view.withProduction)
    return {
      data: aggregates.map(view.map),
      next_cursor: rows.length > shown.length && last ? encodeCursor(position(last)) : null,
    }
  }

  /** The order with this id (of this organization when one is named), else 404. */
  async function orderRow(id: string, organizationId?: string): Promise<OrderRow> {
    const row = isUuid(id) ? await findOrderById(db, id) : undefined
    if (!row || (organizationId !== undefined && row.organization_id !== organizationId)) {
      throw new AppError('not_found', { message: 'No order with this id.' })
    }
    return row
  }

  async function operatorAggregate(id: string, organizationId?: string): Promise<OrderAggregate> {
    const row = await orderRow(id, organizationId)
    const [aggregate] = await aggregatesFor([row], true)
    return aggregate!
  }

  return {
    /** POST /v1/orders: idempotent on external_order_id and content. */
    async create(scope: OrderScope, body: OrderRequest): Promise<Created<Order>> {
      const ctx: OrderContext = {
        organizationId: scope.organizationId,
        environment: scope.environment,
        source: 'api',
      }
      const result = await create(ctx, body)
      return { ...result, order: toPublicOrder(result.order) }
    },

    /** An order from the shop (operator API): always live, never emits events. */
    async createShopOrder(
      organizationId: string,
      body: OrderRequest,
      actor?: AuditActor,
    ): Promise<Created<OperatorOrder>> {
      const organization = await deps.organizations.require(organizationId)
      const ctx: OrderContext = { organizationId: organization.id, environment: 'live', source: 'shop' }
      const audit = actor
        ? (trx: Database, orderId: string) =>
            recordAudit(trx, clock, {
              organizationId: organization.id,
              actor,
              action: 'shop_order.created',
              subject: orderId,
              details: { external_order_id: body.external_order_id },
            })
        : undefined
      const result = await create(ctx, body, 1, audit)
      return { ...result, order: toOperatorOrder(result.order) }
    },

    async get(scope: OrderScope, id: string): Promise<Order> {
      const row = isUuid(id) ? await findOrderById(db, id) : undefined
      if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
        throw new AppError('not_found', { message: 'No order with this id.' })
      }
      const [aggregate] = await aggregatesFor([row], false)
      return toPublicOrder(aggregate!)
    },

    async list(
      scope: OrderScope,
      query: ListOrdersQuery,
    ): Promise<{ data: Order[]; next_cursor: string | null }> {
      const limit = query.limit ?? 50
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
      const rows = await findOrdersPage(db, {
        scope,
        updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
        after,
        limit,
      })
      return page(rows, limit, { withProduction: false, map: toPublicOrder })
    },

    async getOperatorView(id: string): Promise<OperatorOrder> {
      return toOperatorOrder(await operatorAggregate(id))
    },

    /**
     * The dashboard's order: the operator's view (items with their jobs and
     * files), of either environment, for a member of its organization only;
     * any other id is 404.
     */
    async getForOrganization(organizationId: string, id: string): Promise<OperatorOrder> {
      return toOperatorOrder(await operatorAggregate(id, organizationId))
    },

    /** 404 unless the order exists and belongs to the organization. */
    async requireOwn(organizationId: string, id: string): Promise<{ id: string; environment: Environment }> {
      const row = await orderRow(id, organizationId)
      return { id: row.id, environment: row.environment }
    },

    /** The operator's list of an existing organization's orders (else 404), newest first. */
    async listForOrganization(input: {
      organizationId: string
      environment: Environment | undefined
      limit: number
      cursor: string | undefined
    }): Promise<{ data: OperatorOrder[]; next_cursor: string | null }> {
      const organization = await deps.organizations.require(input.organizationId)
      const beforeId = input.cursor === undefined ? undefined : decodeCursor(input.cursor).id
      const rows = await findOrganizationOrdersPage(db, {
        ...input,
        organizationId: organization.id,
        beforeId,
      })
      return page(rows, input.limit, { withProduction: true, map: toOperatorOrder })
    },

    /**
     * A file of an order, for the operator or (naming the organization) a
     * member of the order's organization: only through an order that
     * references it (else 404).
     */
    async openFile(orderId: string, uploadId: string, organizationId?: string) {
      if (organizationId !== undefined) await orderRow(orderId, organizationId)
      const items = isUuid(orderId) ? await findItemsWithJobs(db, [orderId]) : []
      if (!items.some((item) => item.files.some((f) => f.upload_id === uploadId))) {
        throw new AppError('not_found', { message: 'This order has no file with this upload_id.' })
      }
      return uploads.open(uploadId)
    },

    /** Live orders of an existing organization (else 404) only: test orders never appear in statistics. */
    async stats(organizationId: string) {
      const organization = await deps.organizations.require(organizationId)
      const { all } = await sumDailyStats(db, organization.id, { all: null })
      return totalsView(all!)
    },

    /**
     * The dashboard's list of one environment's orders, newest first by
     * creation, with its filters; the cursor carries (created_at, id).
     */
    async listNewest(
      scope: OrderScope,
      query: {
        status?: string | undefined
        from?: Date | undefined
        until?: Date | undefined
        search?: string | undefined
        cursor?: string | undefined
        limit: number
      },
    ): Promise<{ data: Order[]; next_cursor: string | null }> {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
      const rows = await findNewestOrdersPage(db, {
        scope,
        status: query.status,
        from: query.from,
        until: query.until,
        search: query.search?.trim() || undefined,
        before: after && { createdAt: after.updatedAt, id: after.id },
        limit: query.limit,
      })
      return page(rows, query.limit, {
        withProduction: false,
        map: toPublicOrder,
        position: (row) => ({ updatedAt: row.created_at, id: row.id }),
      })
    },

    /**
     * Live orders created today, in the last 7 and 30 days (UTC days: today
     * and the 6 or 29 before it) and in all, and how many are in production
     * now, read from the daily statistics (never by counting orders).
     */
    async dashboardStats(organizationId: string) {
      const now = clock.now()
      const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
      const windows = await sumDailyStats(db, organizationId, {
        today: day(0),
        last_7_days: day(6),
        last_30_days: day(29),
        all_time: null,
      })
      const all = totalsView(windows.all_time!)
      return {
        today: day(0),
        windows: {
          today: totalsView(windows.today!),
          last_7_days: totalsView(windows.last_7_days!),
          last_30_days: totalsView(windows.last_30_days!),
          all_time: all,
        },
        in_production: all.orders_by_status.in_production ?? 0,
      }
    },

    /**
     * Live orders across organizations (the operator console): the same
     * windows as dashboardStats, for the platform and per organization, read
     * from the daily statistics in one statement.
     */
    async platformStats() {
      const now = clock.now()
      const day = (back: number) => new Date(now.getTime() - back * 86_400_000).toISOString().slice(0, 10)
      const since = { today: day(0), last_7_days: day(6), last_30_days: day(29), all_time: null }
      const perOrganization = await sumDailyStatsByOrganization(db, since)
      const names = Object.keys(since) as (keyof typeof since)[]
      const merged = Object.fromEntries(
        names.map((name) => {
          const byStatus = new Map<string, DailyTotals>()
          for (const windows of perOrganization.values()) {
            for (const row of windows[name]!) {
              const sum = byStatus.get(row.status) ?? { status: row.status, orders: 0, items: 0, quantity: 0 }
              sum.orders += row.orders
              sum.items += row.items
              sum.quantity += row.quantity
              byStatus.set(row.status, sum)
            }
          }
          return [name, totalsView([...byStatus.values()])]
        }),
      ) as Record<keyof typeof since, ReturnType<typeof totalsView>>
      return {
        today: day(0),
        windows: merged,
        organizations: [...perOrganization].map(([organizationId, windows]) => ({
          organization_id: organizationId,
          windows: Object.fromEntries(names.map((name) => [name, totalsView(windows[name]!)])) as Record<
            keyof typeof since,
            ReturnType<typeof totalsView>
          >,
        })),
      }
    },
  }
}

/** Daily totals per status as the statistics answer them: every status a key (0 when none). */
function totalsView(rows: DailyTotals[]) {
  const ordersByStatus: Record<string, number> = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0]))
  let orders = 0
  let items = 0
  let quantity = 0
  for (const row of rows) {
    ordersByStatus[row.status] = row.orders
    orders += row.orders
    items += row.items
    quantity += row.quantity
  }
  return {
    orders_total: orders,
    orders_by_status: ordersByStatus,
    items_total: items,
    quantity_total: quantity,
  }
}

export type OrderService = ReturnType<typeof createOrderService>
