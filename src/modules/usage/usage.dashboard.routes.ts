import { ctx, DASHBOARD_TAG, type DashboardArea } from '../../dashboard/route-config.ts'
import { OrganizationUsageAnswer, UsageQuery } from './usage.schemas.ts'
import type { UsageService } from './usage.service.ts'

/** The dashboard's Usage page: the organization's own usage, for its owners only. */
export const usageDashboardRoutes: DashboardArea<{ usage: UsageService }> = (app, { usage }) => {
  app.get(
    '/usage',
    {
      config: { auth: 'session', role: 'owner', errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardUsage',
        tags: [DASHBOARD_TAG],
        summary: 'The organization’s usage for billing in a UTC month (owners only)',
        querystring: UsageQuery,
        response: { 200: OrganizationUsageAnswer },
      },
    },
    async (request) => ({
      data: await usage.organizationUsage(ctx(request).member.organization_id, request.query.month),
    }),
  )
}
