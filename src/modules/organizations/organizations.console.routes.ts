import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import type { OrderService } from '../orders/orders.service.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import {
  CreateOrganizationBody,
  OrganizationAnswer,
  OrganizationCreated,
  OrganizationList,
  OrgParams,
  PlatformStats,
} from './organizations.console.schemas.ts'
import type { OrganizationService } from './organizations.service.ts'

/**
 * The operator console's organizations, with their live order counts and webhook health, and the platform's statistics.
 */
export const organizationsConsoleRoutes: DashboardArea<{
  organizations: OrganizationService
  orders: OrderService
  webhooks: WebhookService
}> = (app, { organizations, orders, webhooks }) => {
  const tags = [DASHBOARD_TAG]
  const notFound: ErrorCode[] = ['not_found']
  /** Organizations with their live order counts (aggregates) and live webhook health. */
  async function summaries(only?: string) {
    const [all, stats, health] = await Promise.all([
      only === undefined ? organizations.list() : organizations.require(only).then((o) => [o]),
      orders.platformStats(),
      webhooks.healthByOrganization('live', only === undefined ? undefined : [only]),
    ])
    const byId = new Map(stats.organizations.map((s) => [s.organization_id, s.windows]))
    const none = zero(stats.windows.today)
    return all.map((organization) => {
      const windows = byId.get(organization.id)
      return {
        ...organization,
        live_orders: { today: windows?.today ?? none, all_time: windows?.all_time ?? none },
        webhooks: { live: health(organization.id) },
      }
    })
  }

  app.get(
    '/operator/organizations',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorListOrganizations',
        tags,
        summary: 'Every organization with its live order counts and live webhook health',
        response: { 200: OrganizationList },
      },
    },
    async () => ({ data: await summaries() }),
  )

  app.post(
    '/operator/organizations',
    {
      config: operatorChange(),
      schema: {
        operationId: 'dashboardOperatorCreateOrganization',
        tags,
        summary: 'Create an organization (then invite its first owner)',
        body: CreateOrganizationBody,
        response: { 201: OrganizationCreated },
      },
    },
    async (request, reply) => {
      reply.code(201)
      return { data: { organization: await organizations.create(request.body.name, opActor(request)) } }
    },
  )

  app.get(
    '/operator/organizations/:org_id',
    {
      config: { ...operatorOnly, errors: notFound },
      schema: {
        operationId: 'dashboardOperatorGetOrganization',
        tags,
        summary: 'One organization with its live order counts and webhook health',
        params: OrgParams,
        response: { 200: OrganizationAnswer },
      },
    },
    async (request) => ({ data: { organization: (await summaries(request.params.org_id))[0]! } }),
  )

  app.get(
    '/operator/statistics',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorStatistics',
        tags,
        summary:
          'Live orders across organizations and per organization (today, 7 and 30 days, all time), per day for 30 days, and live webhook deliveries per day',
        response: { 200: PlatformStats },
      },
    },
    async () => {
      const [all, stats, perDay, deliveriesPerDay] = await Promise.all([
        organizations.list(),
        orders.platformStats(),
        orders.last30Days(),
        webhooks.dailyOutcomes('live', 30),
      ])
      const byId = new Map(stats.organizations.map((s) => [s.organization_id, s.windows]))
      const zeroes = {
        today: zero(stats.windows.today),
        last_7_days: zero(stats.windows.today),
        last_30_days: zero(stats.windows.today),
        all_time: zero(stats.windows.today),
      }
      return {
        data: {
          today: stats.today,
          live_orders: stats.windows,
          live_orders_per_day: perDay,
          live_deliveries_per_day: deliveriesPerDay,
          organizations: all.map((o) => ({ id: o.id, name: o.name, live_orders: byId.get(o.id) ?? zeroes })),
        },
      }
    },
  )
}

/** Totals of the same shape with every count 0 (an organization without live orders). */
function zero(like: { orders_by_status: Record<string, number> }) {
  return {
    orders_total: 0,
    orders_by_status: Object.fromEntries(Object.keys(like.orders_by_status).map((s) => [s, 0])),
    items_total: 0,
    quantity_total: 0,
  }
}
