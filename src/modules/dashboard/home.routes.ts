import { HomeAnswer } from './home.schemas.ts'
import { ctx, DASHBOARD_TAG, type DashboardArea, viewer } from './route-config.ts'

/** Home: the organization's live statistics and webhook health. */
export const homeRoutes: DashboardArea = (app, deps) => {
  const { orders, webhooks } = deps.services
  app.get(
    '/home',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardHome',
        tags: [DASHBOARD_TAG],
        summary: 'Live orders today, in 7 and 30 days and in all, orders in production, webhook health',
        response: { 200: HomeAnswer },
      },
    },
    async (request) => {
      const organizationId = ctx(request).member.organization_id
      const [stats, health] = await Promise.all([
        orders.dashboardStats(organizationId),
        webhooks.health({ organizationId, environment: 'live' }),
      ])
      return {
        data: {
          today: stats.today,
          live_orders: stats.windows,
          in_production: stats.in_production,
          webhooks: health,
        },
      }
    },
  )
}
