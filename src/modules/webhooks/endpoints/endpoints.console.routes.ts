import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  organizationRead,
} from '../../../dashboard/route-config.ts'
import type { OrganizationService } from '../../organizations/organizations.service.ts'
import type { WebhookService } from '../webhooks.service.ts'
import { OperatorEndpointParams, OrgEnvironmentQuery } from './endpoints.console.schemas.ts'
import { EndpointList, RetryNowAnswer } from './endpoints.dashboard.schemas.ts'

/**
 * An organization's webhook endpoints in the operator console, and Retry now
 * (in the platform-wide audit log).
 */
export const webhookEndpointsConsoleRoutes: DashboardArea<{
  webhooks: WebhookService
  organizations: OrganizationService
}> = (app, { webhooks, organizations }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/organizations/:org_id/webhook-endpoints',
    organizationRead({
      operationId: 'dashboardOperatorListWebhookEndpoints',
      summary: "An organization's webhook endpoints of one environment (live by default)",
      querystring: OrgEnvironmentQuery,
      response: { 200: EndpointList },
    }),
    async (request) => {
      const organization = await organizations.require(request.params.org_id)
      const environment = request.query.environment ?? 'live'
      return { data: await webhooks.list({ organizationId: organization.id, environment }) }
    },
  )

  app.post(
    '/operator/webhook-endpoints/:endpoint_id/retry-now',
    {
      config: { ...operatorChange(false), errors: ['not_found', 'validation_failed'] },
      schema: {
        operationId: 'dashboardOperatorRetryWebhookEndpointNow',
        tags,
        summary:
          "Retry now: a failing endpoint's next probe goes at once (as the organization's own Retry now)",
        params: OperatorEndpointParams,
        response: { 202: RetryNowAnswer },
      },
    },
    async (request, reply) => {
      reply.code(202)
      return { data: await webhooks.retryNow(undefined, request.params.endpoint_id, opActor(request)) }
    },
  )
}
