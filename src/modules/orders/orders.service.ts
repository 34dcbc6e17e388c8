import type { Environment, OrderRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { type LookupScope, notFoundHere } from '../../http/not-found.ts'
import { cursorCodec, keysetPage, type Page, type Position } from '../../http/pagination.ts'
import { csvLine } from '../../lib/csv.ts'
import { isUuid } from '../../lib/ids.ts'
import { createOrderIntakeService } from './intake/intake.service.ts'
import { type OrderDeps, orderAggregates } from './order-aggregates.ts'
import { type OrderAggregate, toOperatorOrder, toPublicOrder } from './orders.mappers.ts'
import { findItemsWithJobs, findOrderById, type OrderScope } from './orders.repo.ts'
import type { ListOrdersQuery, OperatorOrder, Order } from './orders.schemas.ts'
import { findNewestOrdersPage, findOrdersPage, findOrganizationOrdersPage } from './orders-pages.repo.ts'
import { PAGE_BUDGET_BYTES, withinBudget } from './page-budget.ts'
import { createOrderStatsService } from './statistics/statistics.service.ts'

/** Order lists' cursors: the last row's position in the list's order (updated_at or created_at, then id). */
export const ORDER_CURSOR = cursorCodec()

export function createOrderService(deps: OrderDeps) {
  const { db, uploads } = deps
  const aggregates = orderAggregates(deps)
  const { aggregatesFor } = aggregates
  const pageBudgetBytes = deps.pageBudgetBytes ?? PAGE_BUDGET_BYTES

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
  ): Promise<Page<View>> {
    const position = view.position ?? ((row: OrderRow) => ({ at: row.updated_at, id: row.id }))
    const shown = keysetPage(rows, limit, {
      view: (row) => row,
      cursor: (row) => ORDER_CURSOR.encode(position(row)),
      shown: (first) => withinBudget(first, pageBudgetBytes),
    })
    const aggregates = await aggregatesFor(shown.data, view.withProduction)
    return { data: aggregates.map(view.map), next_cursor: shown.next_cursor }
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
    ...createOrderStatsService(deps),
    ...createOrderIntakeService(deps, aggregates),

    async get(scope: LookupScope, id: string): Promise<Order> {
      const row = isUuid(id) ? await findOrderById(db, id) : undefined
      if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
        throw notFoundHere('order', scope, row)
      }
      const [aggregate] = await aggregatesFor([row], false)
      return toPublicOrder(aggregate!)
    },

    async list(scope: OrderScope, query: ListOrdersQuery): Promise<Page<Order>> {
      const limit = query.limit ?? 50
      const after = query.cursor === undefined ? undefined : ORDER_CURSOR.decode(query.cursor)
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
    }): Promise<Page<OperatorOrder>> {
      const organization = await deps.organizations.require(input.organizationId)
      const beforeId = input.cursor === undefined ? undefined : ORDER_CURSOR.decode(input.cursor).id
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
        held?: boolean | undefined
        priority?: 'rush' | 'normal' | undefined
        partner?: boolean | undefined
        tag?: string | undefined
        cursor?: string | undefined
        limit: number
      },
    ): Promise<Page<OperatorOrder>> {
      const after = query.cursor === undefined ? undefined : ORDER_CURSOR.decode(query.cursor)
      const rows = await findNewestOrdersPage(db, {
        scope,
        status: query.status,
        from: query.from,
        until: query.until,
        search: query.search?.trim() || undefined,
        held: query.held,
        priority: query.priority,
        partner: query.partner,
        tag: query.tag,
        before: after && { createdAt: after.at, id: after.id },
        limit: query.limit,
      })
      // With production: the rows show held, rush and partner.
      return page(rows, query.limit, {
        withProduction: true,
        map: toOperatorOrder,
        position: (row) => ({ at: row.created_at, id: row.id }),
      })
    },

    /**
     * The orders listNewest's filters select, all of them, as CSV lines:
     * read CSV_PAGE rows at a time by the same keyset (and indexes) as the
     * Orders page, so any number of orders streams in constant memory.
     */
    async *csv(scope: OrderScope, query: Omit<Parameters<typeof this.listNewest>[1], 'cursor' | 'limit'>) {
      yield csvLine(ORDER_CSV_COLUMNS)
      let before: { createdAt: Date; id: string } | undefined
      for (;;) {
        const rows = await findNewestOrdersPage(db, {
          scope,
          status: query.status,
          from: query.from,
          until: query.until,
          search: query.search?.trim() || undefined,
          held: query.held,
          priority: query.priority,
          partner: query.partner,
          tag: query.tag,
          before,
          limit: CSV_PAGE,
        })
        const shown = rows.slice(0, CSV_PAGE)
        let chunk = ''
        for (const r of shown) {
          chunk += csvLine([
            r.id,
            r.external_order_id,
            r.status,
            r.environment,
            r.customer_name,
            r.customer_email,
            r.currency,
            r.total_amount === null ? null : String(r.total_amount),
            r.ordered_at.toISOString(),
            r.created_at.toISOString(),
            r.tags.join(' '),
          ])
        }
        if (chunk) yield chunk
        if (rows.length <= CSV_PAGE) return
        const last = shown.at(-1)!
        before = { createdAt: last.created_at, id: last.id }
      }
    },
  }
}

const CSV_PAGE = 500
const ORDER_CSV_COLUMNS = [
  'id',
  'external_order_id',
  'status',
  'environment',
  'customer_name',
  'customer_email',
  'currency',
  'total_amount',
  'ordered_at',
  'created_at',
  'tags',
]

export type OrderService = ReturnType<typeof createOrderService>
