import { DASHBOARD_TAG, type DashboardArea, operatorOnly } from '../../dashboard/route-config.ts'
import { sendCsv } from '../../http/csv-download.ts'
import { PlatformUsageAnswer, UsageCsv, UsageQuery } from './usage.schemas.ts'
import { type UsageService, usageCsv } from './usage.service.ts'

/** The operator console's Billing page: every organization's usage in a month, and its CSV. */
export const usageConsoleRoutes: DashboardArea<{ usage: UsageService }> = (app, { usage }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/usage',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorUsage',
        tags,
        summary: 'Usage for billing: every organization’s live orders, items and quantity in a UTC month',
        querystring: UsageQuery,
        response: { 200: PlatformUsageAnswer },
      },
    },
    async (request) => ({ data: await usage.platformUsage(request.query.month) }),
  )

  app.get(
    '/operator/usage.csv',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorUsageCsv',
        tags,
        summary: 'The same usage as a CSV download',
        querystring: UsageQuery,
        response: { 200: UsageCsv },
      },
    },
    async (request, reply) => {
      const data = await usage.platformUsage(request.query.month)
      return sendCsv(reply, `usage-${data.month}.csv`, usageCsv(data))
    },
  )
}
