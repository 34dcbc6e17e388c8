import type { Database } from '../../db/database.ts'
import { cursorCodec, keysetPage } from '../../http/pagination.ts'
import type { Clock } from '../../lib/clock.ts'
import { isUuid } from '../../lib/ids.ts'
import { findItemsWithJobs } from '../orders/orders.repo.ts'
import { findBoardPage } from './production.repo.ts'
import { type ProductionStatus, productionOrderView } from './production.views.ts'

/** What the operators' board shows: production orders to work on, with their items' jobs. */
/** The board's cursor: the last production order's created_at and id. */
const BOARD_CURSOR = cursorCodec()

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
      const after = query.cursor === undefined ? undefined : BOARD_CURSOR.decode(query.cursor)
      const rows = await findBoardPage(db, {
        status: query.status,
        organizationId: query.organizationId,
        producedByPartner: query.producedByPartner,
        createdBefore:
          query.olderThanMinutes === undefined
            ? undefined
            : new Date(clock.now().getTime() - query.olderThanMinutes * 60_000),
        after: after && { createdAt: after.at, id: after.id },
        limit: query.limit,
      })
      const orderIds = rows.slice(0, query.limit).map((r) => r.order_id)
      const items = await findItemsWithJobs(db, orderIds)
      return keysetPage(rows, query.limit, {
        cursor: (r) => BOARD_CURSOR.encode({ at: r.created_at, id: r.id }),
        view: (r) => ({
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
        }),
      })
    },
  }
}
