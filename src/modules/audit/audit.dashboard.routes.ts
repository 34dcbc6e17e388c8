import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { AuditPage, AuditQuery } from '../accounts/accounts.dashboard.schemas.ts'
import type { AuditService } from './audit.service.ts'

/** The organization's audit log, as its members see it. */
export const auditDashboardRoutes: DashboardArea<{ audit: AuditService }> = (app, { audit }) => {
  const tags = [DASHBOARD_TAG]
  app.get(
    '/audit-log',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardAuditLog',
        tags,
        summary: "The organization's audit log, newest first",
        querystring: AuditQuery,
        response: { 200: AuditPage },
      },
    },
    async (request) =>
      audit.list(ctx(request).member.organization_id, {
        cursor: request.query.cursor,
        limit: request.query.limit ?? 50,
      }),
  )
}
