import { ctx, DASHBOARD_TAG, type DashboardArea, operatorOnly, viewer } from '../../dashboard/route-config.ts'
import type { RequestLogService } from '../requests/requests.service.ts'
import { ConsoleSearchAnswer, SearchAnswer, SearchQuery } from './search.schemas.ts'
import type { SearchService } from './search.service.ts'

/** The header's search box: orders, webhook endpoints, API keys and requests of the member's organization. */
export const searchDashboardRoutes: DashboardArea<{
  search: SearchService
  requests: Pick<RequestLogService, 'byRequestId'>
}> = (app, { search, requests }) => {
  app.get(
    '/search',
    {
      config: { ...viewer, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardSearch',
        tags: [DASHBOARD_TAG],
        summary:
          'Find an order, a webhook endpoint, an API key or a request by its X-Request-Id; at most five of each (orders: five per environment)',
        querystring: SearchQuery,
        response: { 200: SearchAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const [found, lines] = await Promise.all([
        search.search(organizationId, request.query.q),
        requests.byRequestId(organizationId, request.query.q.trim()),
      ])
      return {
        data: {
          ...found,
          requests: lines.map(({ id, request_id, environment, method, path, status, created_at }) => ({
            id,
            request_id,
            environment,
            method,
            path,
            status,
            created_at,
          })),
        },
      }
    },
  )

  app.get(
    '/operator/search',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorSearch',
        tags: [DASHBOARD_TAG],
        summary:
          'Find, across organizations, an organization, an order, a production order, a webhook endpoint or an API key; at most five of each',
        querystring: SearchQuery,
        response: { 200: ConsoleSearchAnswer },
      },
    },
    async (request) => ({ data: await search.searchEverywhere(request.query.q) }),
  )
}
