import type { Environment, OrderRow } from '../../db/schema.ts'
import { cursorCodec, keysetPage, type Page, type Position } from '../../http/pagination.ts'
import { csvLine } from '../../lib/csv.ts'
import type { OrderAggregates, OrderDeps } from './order-aggregates.ts'
import { type OrderAggregate, toOperatorOrder } from './orders.mappers.ts'
import type { OrderScope } from './orders.repo.ts'
import type { ListOrdersQuery, OperatorOrder } from './orders.schemas.ts'
import { findNewestOrdersPage, findOrdersPageBody, findOrganizationOrdersPage } from './orders-pages.repo.ts'
import { PAGE_BUDGET_BYTES, withinBudget } from './page-budget.ts'

/** Order lists' cursors: the last row's position in the list's order (updated_at or created_at, then id). */
export const ORDER_CURSOR = cursorCodec()

/** The filters of the dashboard's list of one environment's orders (its pages and its CSV). */
export interface NewestFilters {
  status?: string | undefined
  from?: Date | undefined
  until?: Date | undefined
  search?: string | undefined
  held?: boolean | undefined
  priority?: 'rush' | 'normal' | undefined
  partner?: boolean | undefined
  tag?: string | undefined
  preflight?: 'problem' | 'warning' | undefined
}

/**
 * Lists of orders, each read by a keyset: the polling list of /v1/orders, the
 * operator's list of an organization's orders, and the dashboard's newest
 * first (its pages and its CSV).
 */
export function createOrderLists(deps: OrderDeps, { aggregatesFor }: OrderAggregates) {
  const { db } = deps
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

  /** Rows of the newest-first list under its filters, before a position, limit + 1 of them. */
  const newestRows = (
    scope: OrderScope,
    filters: NewestFilters,
    before: { createdAt: Date; id: string } | undefined,
    limit: number,
  ) =>
    findNewestOrdersPage(db, {
      scope,
      status: filters.status,
      from: filters.from,
      until: filters.until,
      search: filters.search?.trim() || undefined,
      held: filters.held,
      priority: filters.priority,
      partner: filters.partner,
      tag: filters.tag,
      preflight: filters.preflight,
      before,
      limit,
    })

  return {
    /**
     * A page of the polling list as the answer's JSON text, written by the
     * database in the bytes the response serializer writes for Order objects.
     */
    async list(scope: OrderScope, query: ListOrdersQuery): Promise<string> {
      return findOrdersPageBody(db, {
        scope,
        updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
        after: query.cursor === undefined ? undefined : ORDER_CURSOR.decode(query.cursor),
        limit: query.limit ?? 50,
        budgetBytes: pageBudgetBytes,
      })
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
     * The dashboard's list of one environment's orders, newest first by
     * creation, with its filters; the cursor carries (created_at, id).
     */
    async listNewest(
      scope: OrderScope,
      query: NewestFilters & { cursor?: string | undefined; limit: number },
    ): Promise<Page<OperatorOrder>> {
      const after = query.cursor === undefined ? undefined : ORDER_CURSOR.decode(query.cursor)
      const rows = await newestRows(scope, query, after && { createdAt: after.at, id: after.id }, query.limit)
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
    async *csv(scope: OrderScope, query: NewestFilters) {
      yield csvLine(ORDER_CSV_COLUMNS)
      let before: { createdAt: Date; id: string } | undefined
      for (;;) {
        const rows = await newestRows(scope, query, before, CSV_PAGE)
        const shown = rows.slice(0, CSV_PAGE)
        let chunk = ''
        for (const r of shown) chunk += csvRow(r)
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

/** An order's line of the CSV, in ORDER_CSV_COLUMNS' order. */
const csvRow = (r: OrderRow) =>
  csvLine([
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
