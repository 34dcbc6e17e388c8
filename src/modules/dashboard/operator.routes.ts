import { AuditQuery, OperatorAuditPage, OperatorList } from './dashboard.schemas.ts'
import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from './route-config.ts'

/**
 * /dashboard/api/operator/*: the operator console's API, for operator
 * accounts only (a member's session gets 403 role_required). It calls the
 * same services as /admin/v1.
 */
export const operatorArea: DashboardArea = (app, deps) => {
  const tags = [DASHBOARD_TAG]
  const { audit, accounts } = deps.services

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

  app.get(
    '/operator/operators',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardListOperators',
        tags,
        summary: "The platform's operator accounts (operators only)",
        response: { 200: OperatorList },
      },
    },
    async () => ({ data: await accounts.listOperators() }),
  )
}
