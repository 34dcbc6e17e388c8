import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../dashboard/route-config.ts'
import { PreflightAnswer, PreflightParams, Thumbnail, ThumbnailParams } from './preflight.schemas.ts'
import type { PreflightService } from './preflight.service.ts'
import { sendThumbnail } from './thumbnail-reply.ts'

const tags = [DASHBOARD_TAG]

/** The console's order and production order pages: any order's files' preflight and thumbnails. */
export const preflightConsoleRoutes: DashboardArea<{ preflight: PreflightService }> = (
  app,
  { preflight },
) => {
  app.get(
    '/operator/orders/:order_id/preflight',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorOrderPreflight',
        tags,
        summary: "Any order's files checked against their products' print specifications",
        params: PreflightParams,
        response: { 200: PreflightAnswer },
      },
    },
    async (request) => ({ data: await preflight.forOrder(undefined, request.params.order_id) }),
  )

  app.get(
    '/operator/orders/:order_id/files/:upload_id/thumbnail',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorOrderFileThumbnail',
        tags,
        summary: "A file's thumbnail (404 until it is made, and for files that get none)",
        params: ThumbnailParams,
        response: { 200: Thumbnail },
      },
    },
    async (request, reply) => {
      const { order_id, upload_id } = request.params
      return sendThumbnail(reply, (await preflight.thumbnail(undefined, order_id, upload_id)).stream)
    },
  )
}
