import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../../dashboard/route-config.ts'
import { sendFileDownload } from '../../../http/file-download.ts'
import { FileDownload } from '../../orders/pages/pages.schemas.ts'
import type { WebhookService } from '../../webhooks/webhooks.service.ts'
import {
  BoardPage,
  BoardQuery,
  ProductionFileParams,
  ProductionOrderAnswer,
  ProductionOrderParams,
} from '../production.console.schemas.ts'
import type { ProductionService } from '../production.service.ts'

/**
 * The operator console's production board and its production order pages
 * (what to make, with files and history): what operators read before they
 * act (production.console.routes.ts holds the changes).
 */
export const productionBoardConsoleRoutes: DashboardArea<{
  production: Pick<ProductionService, 'board' | 'productionOrder' | 'openFile'>
  webhooks: Pick<WebhookService, 'orderTimeline'>
}> = (app, { production, webhooks }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/production',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorProductionBoard',
        tags,
        summary:
          'Live production orders of one status, soonest due first, with filters (next_cursor pages on)',
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
        preflight: q.preflight,
        due: q.due,
        dueBy: q.due_by,
        batch: q.batch,
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
}
