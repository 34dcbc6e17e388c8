import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../dashboard/route-config.ts'
import { sendCsv } from '../../http/csv-download.ts'
import { AuditCsv, AuditCsvQuery, AuditPage, AuditQuery } from './audit.schemas.ts'
import { type AuditService, auditFilter } from './audit.service.ts'

/** The organization's audit log, as its members see it. */
export const auditDashboardRoutes: DashboardArea<{ audit: AuditService }> = (app, { audit }) => {
  const tags = [DASHBOARD_TAG]
  app.get(
    '/audit-log',
    {
      config: { ...viewer, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardAuditLog',
        tags,
        summary: "The organization's audit log, newest first; filtered by actor, action and period",
        querystring: AuditQuery,
        response: { 200: AuditPage },
      },
    },
    async (request) =>
      audit.list(ctx(request).member.organization_id, auditFilter(request.query), {
        cursor: request.query.cursor,
        limit: request.query.limit ?? 50,
      }),
  )

  app.get(
    '/audit-log.csv',
    {
      config: { ...viewer, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardAuditLogCsv',
        tags,
        summary: 'The filtered audit log as a CSV download, streamed',
        querystring: AuditCsvQuery,
        response: { 200: AuditCsv },
      },
    },
    async (request, reply) => {
      const filter = auditFilter(request.query)
      return sendCsv(
        reply,
        'audit-log.csv',
        audit.csv({ organizationId: ctx(request).member.organization_id }, filter),
      )
    },
  )
}
