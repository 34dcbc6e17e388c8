import type { Database } from '../../db/database.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { decodeCursor, encodeCursor } from '../orders/cursor.ts'
import { findItemsWithJobs } from '../orders/orders.repo.ts'
import { findBoardPage } from './production.repo.ts'
import { type ProductionStatus, productionOrderView } from './production.views.ts'

/** What the operators' board shows: production orders to work on, with their items' jobs. */
export function createProductionBoard(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps
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
      cursor?: string | undefined
      limit: number
    }) {
      if (query.organizationId !== undefined && !isUuid(query.organizationId)) {
        return { data: [], next_cursor: null }
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
      const rows = await findBoardPage(db, {
        status: query.status,
        organizationId: query.organizationId,
        producedByPartner: query.producedByPartner,
        createdBefore:
          query.olderThanMinutes === undefined
            ? undefined
            : new Date(clock.now().getTime() - query.olderThanMinutes * 60_000),
        after: after && { createdAt: after.updatedAt, id: after.id },
        limit: query.limit,
      })
      const page = rows.slice(0, query.limit)
      const items = await findItemsWithJobs(
        db,
        page.map((r) => r.order_id),
      )
      const last = page.at(-1)
      return {
        data: page.map((r) => ({
          production_order: productionOrderView(r),
          order: {
            id: r.order_id,
            external_order_id: r.external_order_id,
            status: r.order_status,
            source: r.source,
            customer_name: r.customer_name,
          },
          organization: { id: r.organization_id, name: r.organization_name },
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
        })),
        next_cursor:
          rows.length > query.limit && last
            ? encodeCursor({ updatedAt: last.created_at, id: last.id })
            : null,
      }
    },
  }
}
