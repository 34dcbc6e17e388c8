import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from '../../../dashboard/route-config.ts'
import type { WebhookService } from '../../webhooks/webhooks.service.ts'
import type { OrderService } from '../orders.service.ts'
import { HomeAnswer } from './statistics.schemas.ts'

/** Home: the organization's live statistics and webhook health. */
export const homeDashboardRoutes: DashboardArea<{ orders: OrderService; webhooks: WebhookService }> = (
  app,
  { orders, webhooks },
) => {
  app.get(
    '/home',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardHome',
        tags: [DASHBOARD_TAG],
        summary:
          'Live orders today, in 7 and 30 days and in all, per day for 30 days, orders in production, webhook health and deliveries per day',
        response: { 200: HomeAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const [stats, perDay, health, deliveriesPerDay] = await Promise.all([
        orders.dashboardStats(organizationId),
        orders.last30Days(organizationId),
        webhooks.endpointHealth({ organizationId, environment: 'live' }),
        webhooks.dailyOutcomes('live', 30, organizationId),
      ])
      return {
        data: {
          today: stats.today,
          live_orders: stats.windows,
          in_production: stats.in_production,
          live_orders_per_day: perDay,
          webhooks: { ...health, deliveries_per_day: deliveriesPerDay },
        },
      }
    },
  )
}
