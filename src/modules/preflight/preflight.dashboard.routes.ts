import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { PreflightAnswer, PreflightParams, Thumbnail, ThumbnailParams } from './preflight.schemas.ts'
import type { PreflightService } from './preflight.service.ts'
import { sendThumbnail } from './thumbnail-reply.ts'

const tags = [DASHBOARD_TAG]

/** The member's order page: its files' preflight and thumbnails (404 for another organization's order). */
export const preflightDashboardRoutes: DashboardArea<{ preflight: PreflightService }> = (
  app,
  { preflight },
) => {
  app.get(
    '/orders/:order_id/preflight',
    {
      config: { ...viewer, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOrderPreflight',
        tags,
        summary: "The order's files checked against their products' print specifications",
        params: PreflightParams,
        response: { 200: PreflightAnswer },
      },
    },
    async (request) => ({
      data: await preflight.forOrder(ctx(request).member.organization_id, request.params.order_id),
    }),
  )

  app.get(
    '/orders/:order_id/files/:upload_id/thumbnail',
    {
      config: { ...viewer, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOrderFileThumbnail',
        tags,
        summary: "A file's thumbnail (404 until it is made, and for files that get none)",
        params: ThumbnailParams,
        response: { 200: Thumbnail },
      },
    },
    async (request, reply) => {
      const { order_id, upload_id } = request.params
      const found = await preflight.thumbnail(ctx(request).member.organization_id, order_id, upload_id)
      return sendThumbnail(reply, found.stream)
    },
  )
}
