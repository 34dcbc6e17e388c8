import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import { sendFileDownload } from '../../http/file-download.ts'
import { OperatorOrderAnswer } from '../orders/pages/pages.console.schemas.ts'
import { FileDownload, OrderParams } from '../orders/pages/pages.schemas.ts'
import type { RecordedEvent } from '../webhooks/outbox/outbox.service.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import {
  BoardPage,
  BoardQuery,
  JobCompleted,
  JobParams,
  OperatorOrderParams,
  OrderCancelled,
  PreconditionBody,
  ProductionChanged,
  ProductionFileParams,
  ProductionOrderAnswer,
  ProductionOrderParams,
  SetPartnerBody,
  SetStatusBody,
} from './production.console.schemas.ts'
import { PageRequest } from './production.dashboard.schemas.ts'
import type { ProductionService } from './production.service.ts'

/** The events an action recorded, as its answer shows them. */
const eventsView = (events: RecordedEvent[]) =>
  events.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data }))

/**
 * The operator console's production board, its production order pages (what
 * to make, with files and history) and its changes; each change's answer
 * shows the events it recorded.
 */
export const productionConsoleRoutes: DashboardArea<{
  production: ProductionService
  webhooks: Pick<WebhookService, 'orderTimeline'>
}> = (app, { production, webhooks }) => {
  const tags = [DASHBOARD_TAG]
  const conflict: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

  app.get(
    '/operator/production',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorProductionBoard',
        tags,
        summary: 'Live production orders of one status, oldest first, with filters (next_cursor pages on)',
        querystring: BoardQuery,
        response: { 200: BoardPage },
      },
    },
    async (request) => {
      const q = request.query
      return production.board({
        status: q.status ?? 'pending',
        organizationId: q.organization_id || undefined,
        producedByPartner: q.partner,
        olderThanMinutes: q.older_than_minutes,
        held: q.held,
        tag: q.tag,
        cursor: q.cursor,
        limit: q.limit ?? 25,
      })
    },
  )

  app.get(
    '/operator/production-orders/:production_order_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorGetProductionOrder',
        tags,
        summary:
          'A production order with its order (items, personalization, files), organization and history',
        params: ProductionOrderParams,
        response: { 200: ProductionOrderAnswer },
      },
    },
    async (request) => {
      const found = await production.productionOrder(request.params.production_order_id)
      const timeline = await webhooks.orderTimeline(found.organization.id, found.order.id)
      return { data: { ...found, timeline } }
    },
  )

  app.get(
    '/operator/production-orders/:production_order_id/files/:upload_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorDownloadProductionFile',
        tags,
        summary: "A file of the production order's order: the stored bytes as a download (SVG sanitized)",
        params: ProductionFileParams,
        response: { 200: FileDownload },
      },
    },
    async (request, reply) => {
      const { production_order_id, upload_id } = request.params
      const file = await production.openFile(production_order_id, upload_id)
      return sendFileDownload(reply, file)
    },
  )

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
      const { status, expected_status } = request.body
      const { view, events } = await production.changeStatus(
        request.params.production_order_id,
        status,
        opActor(request),
        { expectedStatus: expected_status },
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
      const { produced_by_partner, expected_status } = request.body
      const { view, events } = await production.changePartner(
        request.params.production_order_id,
        produced_by_partner,
        opActor(request),
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
      const { view, events } = await production.changeJob(request.params.job_id, opActor(request), {
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
      const { view, events } = await production.cancel(request.params.order_id, opActor(request), {
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
