import type { FastifyRequest } from 'fastify'
import {
  actor,
  change,
  ctx,
  DASHBOARD_TAG,
  type DashboardArea,
  viewer,
} from '../../../dashboard/route-config.ts'
import type { ErrorCode } from '../../../http/errors.ts'
import { restorePlusInOffsets } from '../../../http/query-timestamps.ts'
import { webhookScope as scope } from '../endpoints/endpoints.dashboard.routes.ts'
import {
  DeliveryAnswer,
  DeliveryDetail,
  DeliveryPage,
  DeliveryParams,
  DeliveryPayload,
  DeliveryQuery,
  EnvironmentQuery,
} from '../webhooks.dashboard.schemas.ts'
import type { WebhookService } from '../webhooks.service.ts'

/** Signatures are for owners and developers: a viewer could replay an attempt with them. */
const reader = (request: FastifyRequest) => ({ signatures: ctx(request).member.role !== 'viewer' })

/**
 * The delivery log of the member's organization, in the environment of the
 * page's switch: entries with their attempts, what each attempt sent, and
 * redelivery. Another organization's or environment's entry is 404.
 */
export const webhookDeliveriesDashboardRoutes: DashboardArea<{ webhooks: WebhookService }> = (
  app,
  { webhooks },
) => {
  const tags = [DASHBOARD_TAG]
  const invalid: ErrorCode[] = ['validation_failed']

  app.get(
    '/webhook-deliveries',
    {
      config: { ...viewer, errors: ['not_found'] },
      preValidation: restorePlusInOffsets('created_since', 'created_until'),
      schema: {
        operationId: 'dashboardListWebhookDeliveries',
        tags,
        summary: 'The delivery log, newest first, with the filters of /v1 (next_cursor pages on)',
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage },
      },
    },
    async (request) => {
      const { environment: _, ...query } = request.query
      return webhooks.dashboardDeliveries(scope(request), query)
    },
  )

  app.get(
    '/webhook-deliveries/:delivery_id',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardGetWebhookDelivery',
        tags,
        summary: 'One log entry and its attempts, oldest first',
        params: DeliveryParams,
        querystring: EnvironmentQuery,
        response: { 200: DeliveryDetail },
      },
    },
    async (request) => ({
      data: await webhooks.dashboardDelivery(scope(request), request.params.delivery_id, reader(request)),
    }),
  )

  app.get(
    '/webhook-deliveries/:delivery_id/payload',
    {
      config: viewer,
      schema: {
        operationId: 'dashboardGetWebhookDeliveryPayload',
        tags,
        summary: 'What a log entry sent: its event body and, per attempt, the headers with the signing time',
        params: DeliveryParams,
        querystring: EnvironmentQuery,
        response: { 200: DeliveryPayload },
      },
    },
    async (request) => ({
      data: await webhooks.deliveryPayload(scope(request), request.params.delivery_id, reader(request)),
    }),
  )

  app.post(
    '/webhook-deliveries/:delivery_id/redeliver',
    {
      config: { ...change('developer', false), errors: invalid },
      schema: {
        operationId: 'dashboardRedeliverWebhookDelivery',
        tags,
        summary: "Send a delivery's event again, as a new log entry",
        params: DeliveryParams,
        querystring: EnvironmentQuery,
        response: { 202: DeliveryAnswer },
      },
    },
    async (request, reply) => {
      reply.code(202)
      const delivery = await webhooks.redeliver(scope(request), request.params.delivery_id, actor(request))
      return { data: { delivery } }
    },
  )
}
