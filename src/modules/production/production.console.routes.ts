import { DASHBOARD_TAG, type DashboardArea, opActor, operatorChange } from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import { OperatorOrderAnswer } from '../orders/pages/pages.console.schemas.ts'
import { OrderParams } from '../orders/pages/pages.schemas.ts'
import {
  JobCompleted,
  JobParams,
  OperatorOrderParams,
  OrderCancelled,
  PreconditionBody,
  ProductionChanged,
  ProductionOrderParams,
  SetPartnerBody,
  SetStatusBody,
} from './production.console.schemas.ts'
import { PageRequest } from './production.dashboard.schemas.ts'
import type { ProductionService } from './production.service.ts'
import { eventsView } from './production.views.ts'

/**
 * The operator console's changes to production: a production order's status
 * and partner, an item's job, the whole order's cancel and release (the board
 * and its pages are board/board.console.routes.ts); each change's answer shows
 * the events it recorded.
 */
export const productionConsoleRoutes: DashboardArea<{
  production: ProductionService
}> = (app, { production }) => {
  const tags = [DASHBOARD_TAG]
  const conflict: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.post(
    '/operator/production-orders/:production_order_id/status',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorSetProductionStatus',
        tags,
        summary: 'Move a production order to a status; answers the events it recorded',
        params: ProductionOrderParams,
        body: SetStatusBody,
        response: { 200: ProductionChanged },
      },
    },
    async (request) => {
      const { status, expected_status, station_id, reason } = request.body
      const { view, events } = await production.changeStatus(
        request.params.production_order_id,
        status,
        await production.stations.at(opActor(request), station_id),
        { expectedStatus: expected_status },
        reason ? { reason } : {},
      )
      return { data: { production_order: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/production-orders/:production_order_id/partner',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorSetPartner',
        tags,
        summary: 'Set whether a partner produces the order (records no event)',
        params: ProductionOrderParams,
        body: SetPartnerBody,
        response: { 200: ProductionChanged },
      },
    },
    async (request) => {
      const { produced_by_partner, expected_status, station_id } = request.body
      const { view, events } = await production.changePartner(
        request.params.production_order_id,
        produced_by_partner,
        await production.stations.at(opActor(request), station_id),
        { expectedStatus: expected_status },
      )
      return { data: { production_order: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/production-jobs/:job_id/complete',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorCompleteJob',
        tags,
        summary: "Complete an item's job (409 if it already is); answers the events it recorded",
        params: JobParams,
        body: PreconditionBody,
        response: { 200: JobCompleted },
      },
    },
    async (request) => {
      const actor = await production.stations.at(opActor(request), request.body.station_id)
      const { view, events } = await production.changeJob(request.params.job_id, actor, {
        expectedStatus: request.body.expected_status,
        requirePending: true,
      })
      return { data: { production_job: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/orders/:order_id/cancel',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorCancelOrder',
        tags,
        summary: 'Cancel a live order as a whole; answers the events it recorded',
        params: OperatorOrderParams,
        body: PreconditionBody,
        response: { 200: OrderCancelled },
      },
    },
    async (request) => {
      const actor = await production.stations.at(opActor(request), request.body.station_id)
      const { view, events } = await production.cancel(request.params.order_id, actor, {
        expectedStatus: request.body.expected_status,
      })
      return { data: { order: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/orders/:order_id/release',
    {
      config: { ...operatorChange(), errors: ['not_found', 'production_conflict', 'validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorReleaseOrder',
        tags,
        summary: 'Release an order an automation rule held for review (audited as the operator)',
        description: 'As the dashboard\u2019s release: on the page\u2019s updated_at; not held is a 409.',
        params: OrderParams,
        body: PageRequest,
        response: { 200: OperatorOrderAnswer },
      },
    },
    async (request) => {
      const order = await production.release(request.params.order_id, opActor(request), {
        expectedUpdatedAt: request.body.expected_updated_at,
      })
      return { data: { order } }
    },
  )
}
