import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
} from '../../dashboard/route-config.ts'
import type { ErrorCode } from '../../http/errors.ts'
import { ORDER_BODY_LIMIT } from '../../http/json-body.ts'
import {
  AuditQuery,
  InvitationCreated,
  MemberList,
  OperatorAuditPage,
} from '../accounts/accounts.dashboard.schemas.ts'
import type { AccountService } from '../accounts/accounts.service.ts'
import type { AuditService } from '../audit/audit.service.ts'
import { ApiKeyAnswer, ApiKeyList } from '../auth/api-keys.dashboard.schemas.ts'
import type { ApiKeyService } from '../auth/api-keys.service.ts'
import { OrderRequest } from '../orders/orders.schemas.ts'
import type { OrderService } from '../orders/orders.service.ts'
import type { OrganizationService } from '../organizations/organizations.service.ts'
import type { ProductionService } from '../production/production.service.ts'
import type { RecordedEvent } from '../webhooks/outbox/outbox.service.ts'
import { EndpointList } from '../webhooks/webhooks.dashboard.schemas.ts'
import type { WebhookService } from '../webhooks/webhooks.service.ts'
import {
  BoardPage,
  BoardQuery,
  CreateOrganizationBody,
  JobCompleted,
  JobParams,
  OperatorDeliveryAnswer,
  OperatorDeliveryPage,
  OperatorDeliveryParams,
  OperatorDeliveryQuery,
  OperatorOrderParams,
  OrderCancelled,
  OrganizationAnswer,
  OrganizationCreated,
  OrganizationList,
  OrgEnvironmentQuery,
  OrgKeyParams,
  OrgParams,
  OwnerInviteBody,
  PlatformStats,
  PreconditionBody,
  ProductionChanged,
  ProductionOrderParams,
  SetPartnerBody,
  SetStatusBody,
  ShopOrderCreated,
} from './operator.schemas.ts'

/** The events an action recorded, as its answer shows them. */
const eventsView = (events: RecordedEvent[]) =>
  events.map((e) => ({ id: e.id, type: e.type, created_at: e.created_at.toISOString(), data: e.data }))

/**
 * /dashboard/api/operator/*: the operator console's API, for operator
 * accounts only (a member's session gets 403 role_required). It calls the
 * same services as /admin/v1, with the operator account as the audit actor,
 * so every change is in the platform-wide audit log, written in the change's
 * transaction.
 */
export const operatorConsoleRoutes: DashboardArea<{
  audit: AuditService
  accounts: AccountService
  organizations: OrganizationService
  orders: OrderService
  webhooks: WebhookService
  apiKeys: ApiKeyService
  production: ProductionService
}> = (app, { audit, accounts, organizations, orders, webhooks, apiKeys, production }) => {
  const tags = [DASHBOARD_TAG]
  const notFound: ErrorCode[] = ['not_found']
  const conflict: ErrorCode[] = ['not_found', 'production_conflict', 'validation_failed']

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

  // Organizations.

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

  app.post(
    '/operator/organizations/:org_id/invitations',
    {
      config: { ...operatorChange(), errors: ['not_found', 'member_exists'] },
      schema: {
        operationId: 'dashboardOperatorInviteOwner',
        tags,
        summary: "Invite an organization's owner: the link is shown once",
        params: OrgParams,
        body: OwnerInviteBody,
        response: { 201: InvitationCreated },
      },
    },
    async (request, reply) => {
      const created = await accounts.inviteByOperator(
        request.params.org_id,
        { email: request.body.email, role: 'owner' },
        opActor(request),
      )
      reply.code(201)
      return { data: created }
    },
  )

  app.get(
    '/operator/organizations/:org_id/api-keys',
    {
      config: { ...operatorOnly, errors: notFound },
      schema: {
        operationId: 'dashboardOperatorListApiKeys',
        tags,
        summary: "An organization's API keys, revoked ones too",
        params: OrgParams,
        response: { 200: ApiKeyList },
      },
    },
    async (request) => ({ data: await apiKeys.list(request.params.org_id) }),
  )

  app.delete(
    '/operator/organizations/:org_id/api-keys/:key_id',
    {
      config: { ...operatorChange(false), errors: notFound },
      schema: {
        operationId: 'dashboardOperatorRevokeApiKey',
        tags,
        summary: "Revoke one of the organization's keys",
        params: OrgKeyParams,
        response: { 200: ApiKeyAnswer },
      },
    },
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      const api_key = await apiKeys.revoke(request.params.key_id, {
        organizationId: organization.id,
        actor: opActor(request),
      })
      return { data: { api_key } }
    },
  )

  app.get(
    '/operator/organizations/:org_id/members',
    {
      config: { ...operatorOnly, errors: notFound },
      schema: {
        operationId: 'dashboardOperatorListMembers',
        tags,
        summary: "An organization's members",
        params: OrgParams,
        response: { 200: MemberList },
      },
    },
    async (request) => ({ data: await accounts.listMembersOf(request.params.org_id) }),
  )

  app.get(
    '/operator/organizations/:org_id/webhook-endpoints',
    {
      config: { ...operatorOnly, errors: notFound },
      schema: {
        operationId: 'dashboardOperatorListWebhookEndpoints',
        tags,
        summary: "An organization's webhook endpoints of one environment (live by default)",
        params: OrgParams,
        querystring: OrgEnvironmentQuery,
        response: { 200: EndpointList },
      },
    },
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      const environment = request.query.environment ?? 'live'
      return { data: await webhooks.list({ organizationId: organization.id, environment }) }
    },
  )

  app.get(
    '/operator/organizations/:org_id/webhook-deliveries',
    {
      config: { ...operatorOnly, errors: notFound },
      schema: {
        operationId: 'dashboardOperatorListWebhookDeliveries',
        tags,
        summary: "An organization's delivery log, newest first (next_cursor pages on)",
        params: OrgParams,
        querystring: OperatorDeliveryQuery,
        response: { 200: OperatorDeliveryPage },
      },
    },
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      return webhooks.operatorDeliveries({
        organization_id: organization.id,
        environment: request.query.environment,
        limit: request.query.limit,
        cursor: request.query.cursor,
      })
    },
  )

  app.post(
    '/operator/webhook-deliveries/:delivery_id/redeliver',
    {
      config: { ...operatorChange(false), errors: ['not_found', 'validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorRedeliver',
        tags,
        summary: "Send a delivery's event again, as a new log entry",
        params: OperatorDeliveryParams,
        response: { 202: OperatorDeliveryAnswer },
      },
    },
    async (request, reply) => {
      reply.code(202)
      const delivery = await webhooks.redeliver(undefined, request.params.delivery_id, opActor(request))
      return { data: { delivery } }
    },
  )

  // Production.

  app.get(
    '/operator/production',
    {
      config: { ...operatorOnly, errors: ['validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorProductionBoard',
        tags,
        summary: 'Live production orders of one status, oldest first, with filters (next_cursor pages on)',
        querystring: BoardQuery,
        response: { 200: BoardPage },
      },
    },
    async (request) => {
      const q = request.query
      return production.board({
        status: q.status ?? 'pending',
        organizationId: q.organization_id || undefined,
        producedByPartner: q.partner,
        olderThanMinutes: q.older_than_minutes,
        cursor: q.cursor,
        limit: q.limit ?? 25,
      })
    },
  )

  app.post(
    '/operator/production-orders/:production_order_id/status',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorSetProductionStatus',
        tags,
        summary: 'Move a production order to a status; answers the events it recorded',
        params: ProductionOrderParams,
        body: SetStatusBody,
        response: { 200: ProductionChanged },
      },
    },
    async (request) => {
      const { status, expected_status } = request.body
      const { view, events } = await production.changeStatus(
        request.params.production_order_id,
        status,
        opActor(request),
        { expectedStatus: expected_status },
      )
      return { data: { production_order: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/production-orders/:production_order_id/partner',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorSetPartner',
        tags,
        summary: 'Set whether a partner produces the order (records no event)',
        params: ProductionOrderParams,
        body: SetPartnerBody,
        response: { 200: ProductionChanged },
      },
    },
    async (request) => {
      const { produced_by_partner, expected_status } = request.body
      const { view, events } = await production.changePartner(
        request.params.production_order_id,
        produced_by_partner,
        opActor(request),
        { expectedStatus: expected_status },
      )
      return { data: { production_order: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/production-jobs/:job_id/complete',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorCompleteJob',
        tags,
        summary: "Complete an item's job (409 if it already is); answers the events it recorded",
        params: JobParams,
        body: PreconditionBody,
        response: { 200: JobCompleted },
      },
    },
    async (request) => {
      const { view, events } = await production.changeJob(request.params.job_id, opActor(request), {
        expectedStatus: request.body.expected_status,
        requirePending: true,
      })
      return { data: { production_job: view, events: eventsView(events) } }
    },
  )

  app.post(
    '/operator/orders/:order_id/cancel',
    {
      config: { ...operatorChange(), errors: conflict },
      schema: {
        operationId: 'dashboardOperatorCancelOrder',
        tags,
        summary: 'Cancel a live order as a whole; answers the events it recorded',
        params: OperatorOrderParams,
        body: PreconditionBody,
        response: { 200: OrderCancelled },
      },
    },
    async (request) => {
      const { view, events } = await production.cancel(request.params.order_id, opActor(request), {
        expectedStatus: request.body.expected_status,
      })
      return { data: { order: view, events: eventsView(events) } }
    },
  )

  // Shop orders and statistics.

  app.post(
    '/operator/organizations/:org_id/shop-orders',
    {
      config: {
        ...operatorChange(),
        errors: ['not_found', 'validation_failed', 'order_already_exists_with_different_content'],
      },
      bodyLimit: ORDER_BODY_LIMIT,
      schema: {
        operationId: 'dashboardOperatorCreateShopOrder',
        tags,
        summary: 'Create a shop order (always live; it produces no events)',
        params: OrgParams,
        body: OrderRequest,
        response: { 200: ShopOrderCreated, 201: ShopOrderCreated },
      },
    },
    async (request, reply) => {
      const result = await orders.createShopOrder(request.params.org_id, request.body, opActor(request))
      reply.code(result.created ? 201 : 200)
      return { data: { order: result.order, created: result.created, events: [] } }
    },
  )

  app.get(
    '/operator/statistics',
    {
      config: operatorOnly,
      schema: {
        operationId: 'dashboardOperatorStatistics',
        tags,
        summary: 'Live orders across organizations and per organization (today, 7 and 30 days, all time)',
        response: { 200: PlatformStats },
      },
    },
    async () => {
      const [all, stats] = await Promise.all([organizations.list(), orders.platformStats()])
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
