import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import {
  FileDownload,
  OrderAnswer,
  OrderFileParams,
  OrderParams,
  TimelineAnswer,
} from './order.dashboard.schemas.ts'
import type { OrderService } from './orders.service.ts'

const tags = [DASHBOARD_TAG]

/**
 * The order page: one order of either environment (ids are unique), its
 * files through the session, and the timeline of its events and deliveries.
 * Every route answers 404 for an order of another organization.
 */
export const orderDashboardRoutes: DashboardArea<{ orders: OrderService; webhooks: WebhookService }> = (
  app,
  { orders, webhooks },
) => {
  app.get(
    '/orders/:order_id',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardGetOrder',
        tags,
        summary: 'An order with its items, personalization, production status and files',
        params: OrderParams,
        response: { 200: OrderAnswer },
      },
    },
    async (request) => ({
      data: {
        order: await orders.getForOrganization(ctx(request).member.organization_id, request.params.order_id),
      },
    }),
  )

  app.get(
    '/orders/:order_id/files/:upload_id',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardDownloadOrderFile',
        tags,
        summary: 'A file of the order: the stored bytes as a download (the only way to reach them)',
        params: OrderFileParams,
        response: { 200: FileDownload },
      },
    },
    async (request, reply) => {
      const { order_id, upload_id } = request.params
      const file = await orders.openFile(order_id, upload_id, ctx(request).member.organization_id)
      // As the operator's download: an attachment of the detected type, never
      // sniffed or run as a page; <img> still shows images (and the sanitized
      // SVG, where scripts never run) as thumbnails.
      return reply
        .header('content-type', file.contentType)
        .header('content-length', String(file.size))
        .header('content-disposition', `attachment; filename="${file.filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-origin')
        .send(file.stream)
    },
  )

  app.get(
    '/orders/:order_id/timeline',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardOrderTimeline',
        tags,
        summary: "The order's events, oldest first, with their webhook deliveries",
        params: OrderParams,
        response: { 200: TimelineAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const order = await orders.requireOwn(organizationId, request.params.order_id)
      return { data: await webhooks.orderTimeline(organizationId, order.id) }
    },
  )
}
