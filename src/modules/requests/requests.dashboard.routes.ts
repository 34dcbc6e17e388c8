import type { FastifyRequest } from 'fastify'
import Type from 'typebox'
import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { restorePlusInOffsets } from '../../http/query-timestamps.ts'
import { closed, EnvironmentQuery, RequestDetail, RequestsPage, RequestsQuery } from './requests.schemas.ts'
import type { RequestLogService, RequestScope } from './requests.service.ts'

/**
 * The request log: the organization's /v1 requests in the environment of the
 * page's test/live switch, newest first, and one request with its bodies
 * (owners and developers; viewers read the lines without bodies).
 */
export const requestsDashboardRoutes: DashboardArea<{ requests: RequestLogService }> = (
  app,
  { requests },
) => {
  const tags = [DASHBOARD_TAG]
  const scope = (request: FastifyRequest): RequestScope => ({
    organizationId: ctx(request).member.organization_id,
    environment: (request.query as { environment?: 'test' | 'live' }).environment ?? 'test',
  })

  app.get(
    '/requests',
    {
      config: { ...viewer, errors: ['validation_failed'] },
      preValidation: restorePlusInOffsets('created_since', 'created_until'),
      schema: {
        operationId: 'dashboardListRequests',
        tags,
        summary: 'The request log, newest first (next_cursor pages on)',
        querystring: RequestsQuery,
        response: { 200: RequestsPage },
      },
    },
    async (request) => {
      const { environment: _, ...query } = request.query
      return requests.list(scope(request), query)
    },
  )

  app.get(
    '/requests/:request_line_id',
    {
      config: { ...viewer, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardGetRequest',
        tags,
        summary: 'One request with its body and answer (bodies only for owners and developers)',
        params: Type.Object({ request_line_id: Type.String() }),
        querystring: Type.Object(EnvironmentQuery, closed),
        response: { 200: Type.Object({ data: Type.Object({ request: RequestDetail }) }) },
      },
    },
    async (request) => ({
      data: {
        request: await requests.get(scope(request), request.params.request_line_id, ctx(request).member.role),
      },
    }),
  )
}
