import type { Environment, OrderRow } from '../../db/schema.ts'
import { AppError } from '../../http/errors.ts'
import { type LookupScope, notFoundHere } from '../../http/not-found.ts'
import { isUuid } from '../../lib/ids.ts'
import { createOrderIntakeService } from './intake/intake.service.ts'
import { type OrderDeps, orderAggregates } from './order-aggregates.ts'
import { createOrderLists } from './order-lists.service.ts'
import { type OrderAggregate, toOperatorOrder, toPublicOrder } from './orders.mappers.ts'
import { findItemsWithJobs, findOrderById, findProductionOrders } from './orders.repo.ts'
import type { OperatorOrder, Order } from './orders.schemas.ts'
import { createOrderStatsService } from './statistics/statistics.service.ts'

export { ORDER_CURSOR } from './order-lists.service.ts'

/**
 * Orders: taken (intake/), listed (order-lists.service.ts), counted
 * (statistics/), and here one order by its id, as each audience sees it,
 * and its files.
 */
export function createOrderService(deps: OrderDeps) {
  const { db, uploads } = deps
  const aggregates = orderAggregates(deps)
  const { aggregatesFor } = aggregates

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
    ...createOrderLists(deps, aggregates),

    async get(scope: LookupScope, id: string): Promise<Order> {
      const row = isUuid(id) ? await findOrderById(db, id) : undefined
      if (!row || row.organization_id !== scope.organizationId || row.environment !== scope.environment) {
        throw notFoundHere('order', scope, row)
      }
      const [aggregate] = await aggregatesFor([row], false)
      return toPublicOrder(aggregate!)
    },

    async getOperatorView(id: string): Promise<OperatorOrder> {
      return toOperatorOrder(await operatorAggregate(id))
    },

    /** The console's order page: the order and its organization's name (the page names it, the id is to copy). */
    async getOperatorPage(id: string) {
      const order = toOperatorOrder(await operatorAggregate(id))
      const { id: orgId, name } = await deps.organizations.require(order.organization_id)
      return { order, organization: { id: orgId, name } }
    },

    /**
     * The dashboard's order: the operator's view (items with their jobs and
     * files), of either environment, for a member of its organization only;
     * any other id is 404.
     */
    async getForOrganization(organizationId: string, id: string): Promise<OperatorOrder> {
      return toOperatorOrder(await operatorAggregate(id, organizationId))
    },

    /** The ids production's audit entries of the order name: its production order's and its jobs'. */
    async productionSubjects(orderId: string): Promise<string[]> {
      const [production, items] = await Promise.all([
        findProductionOrders(db, [orderId]),
        findItemsWithJobs(db, [orderId]),
      ])
      return [...production.map((p) => p.id), ...items.flatMap((i) => (i.job_id ? [i.job_id] : []))]
    },

    /** 404 unless the order exists and belongs to the organization. */
    async requireOwn(organizationId: string, id: string): Promise<{ id: string; environment: Environment }> {
      const row = await orderRow(id, organizationId)
      return { id: row.id, environment: row.environment }
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
  }
}

export type OrderService = ReturnType<typeof createOrderService>
