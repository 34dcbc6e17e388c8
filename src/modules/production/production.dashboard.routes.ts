import { actor, change, ctx, DASHBOARD_TAG, type DashboardArea } from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import { OrderAnswer, OrderParams } from '../orders/pages/pages.schemas.ts'
import { PageRequest } from './production.dashboard.schemas.ts'
import type { ProductionService } from './production.service.ts'

const tags = [DASHBOARD_TAG]

/**
 * A member's production actions on the order page: cancelling a live order as
 * a whole (the operator's cancel, the same order.cancelled event) and
 * releasing an order a rule held for review. Both act on the updated_at the
 * page showed; an order of another organization is a 404.
 */
export const productionDashboardRoutes: DashboardArea<{ production: ProductionService }> = (
  app,
  { production },
) => {
  const refusals: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.post(
    '/orders/:order_id/cancel',
    {
      config: { ...change('developer'), errors: refusals },
      schema: {
        operationId: 'dashboardCancelOrder',
        tags,
        summary:
          'Cancel a live order as a whole (before it is completed); records order.cancelled as the operator\u2019s cancel does',
        description:
          'Test orders have no production and cannot be cancelled (422). A completed or cancelled order, or a page older than the order\u2019s last change, is a 409.',
        params: OrderParams,
        body: PageRequest,
        response: { 200: OrderAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const { view } = await production.cancel(request.params.order_id, actor(request), {
        expectedUpdatedAt: request.body.expected_updated_at,
        unfinishedOnly: true,
        organizationId,
      })
      const { organization_id: _, ...own } = view
      return { data: { order: own } }
    },
  )

  app.post(
    '/orders/:order_id/release',
    {
      config: { ...change('developer'), errors: ['not_found', 'production_conflict', 'validation_failed'] },
      schema: {
        operationId: 'dashboardReleaseOrder',
        tags,
        summary: 'Release an order an automation rule held for review: its production can start',
        description:
          'The hold stays on the order as the record of the rule that set it; `held` becomes false and updated_at moves. An order not held, or a page older than the order\u2019s last change, is a 409 and nothing is written. Audited as order.released.',
        params: OrderParams,
        body: PageRequest,
        response: { 200: OrderAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const order = await production.release(request.params.order_id, actor(request), {
        expectedUpdatedAt: request.body.expected_updated_at,
        organizationId,
      })
      const { organization_id: _, ...own } = order
      return { data: { order: own } }
    },
  )
}
