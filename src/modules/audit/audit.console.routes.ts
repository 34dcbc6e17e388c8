import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../dashboard/route-config.ts'
import { sendCsv } from '../../http/csv-download.ts'
import { AuditCsv, AuditCsvQuery, AuditQuery, OperatorAuditPage } from './audit.schemas.ts'
import { type AuditService, auditFilter } from './audit.service.ts'

/**
 * The platform-wide audit log in the operator console: what operators did, across organizations.
 */
export const auditConsoleRoutes: DashboardArea<{ audit: AuditService }> = (app, { audit }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/audit-log',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorAuditLog',
        tags,
        summary:
          'What operators did, across organizations, newest first; filtered by actor, action and period (operators only)',
        querystring: AuditQuery,
        response: { 200: OperatorAuditPage },
      },
    },
    async (request) =>
      audit.listOperatorActions(auditFilter(request.query), {
        cursor: request.query.cursor,
        limit: request.query.limit ?? 50,
      }),
  )

  app.get(
    '/operator/audit-log.csv',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorAuditLogCsv',
        tags,
        summary: 'The filtered platform log as a CSV download, streamed (operators only)',
        querystring: AuditCsvQuery,
        response: { 200: AuditCsv },
      },
    },
    async (request, reply) => {
      const filter = auditFilter(request.query)
      return sendCsv(reply, 'platform-audit-log.csv', audit.csv({ operators: true }, filter))
    },
  )
}
