import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../dashboard/route-config.ts'
import { AuditQuery, OperatorAuditPage } from '../accounts/accounts.dashboard.schemas.ts'
import type { AuditService } from './audit.service.ts'

/**
 * The platform-wide audit log in the operator console: what operators did, across organizations.
 */
export const auditConsoleRoutes: DashboardArea<{ audit: AuditService }> = (app, { audit }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/audit-log',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorAuditLog',
        tags,
        summary: 'What operators did, across organizations, newest first (operators only)',
        querystring: AuditQuery,
        response: { 200: OperatorAuditPage },
      },
    },
    async (request) =>
      audit.listOperatorActions({ cursor: request.query.cursor, limit: request.query.limit ?? 50 }),
  )
}
