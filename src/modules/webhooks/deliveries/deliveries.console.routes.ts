import Type from 'typebox'
import {
  DASHBOARD_TAG,
  type DashboardArea,
  opActor,
  operatorChange,
  operatorOnly,
  organizationRead,
} from '../../../dashboard/route-config.ts'
import type { OrganizationService } from '../../organizations/organizations.service.ts'
import type { WebhookService } from '../webhooks.service.ts'
import {
  OperatorDeliveryAnswer,
  OperatorDeliveryPage,
  OperatorDeliveryParams,
  OperatorDeliveryQuery,
} from './deliveries.console.schemas.ts'
import { DeliveryDetail, DeliveryPayload } from './deliveries.dashboard.schemas.ts'

/**
 * An organization's webhook delivery log in the operator console, and
 * redelivery (in the platform-wide audit log).
 */
export const webhookDeliveriesConsoleRoutes: DashboardArea<{
  webhooks: WebhookService
  organizations: OrganizationService
}> = (app, { webhooks, organizations }) => {
  const tags = [DASHBOARD_TAG]

  app.get(
    '/operator/organizations/:org_id/webhook-deliveries',
    organizationRead({
      operationId: 'dashboardOperatorListWebhookDeliveries',
      summary: "An organization's delivery log, newest first (next_cursor pages on)",
      querystring: OperatorDeliveryQuery,
      response: { 200: OperatorDeliveryPage },
    }),
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

  app.get(
    '/operator/webhook-deliveries/:delivery_id',
    {
      config: { ...operatorOnly, errors: ['not_found'] },
      schema: {
        operationId: 'dashboardOperatorGetWebhookDelivery',
        tags,
        summary:
          'One log entry of any organization: its attempts, its event body and the headers each attempt sent (signatures left out)',
        params: OperatorDeliveryParams,
        response: {
          200: Type.Object({
            data: Type.Object({
              ...DeliveryDetail.properties.data.properties,
              payload: DeliveryPayload.properties.data,
            }),
          }),
        },
      },
    },
    async (request) => ({ data: await webhooks.consoleDelivery(request.params.delivery_id) }),
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
}
