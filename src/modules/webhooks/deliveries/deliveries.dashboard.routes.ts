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
import { EndpointParams } from '../webhooks.dashboard.schemas.ts'
import { webhookScope as scope, scoped } from '../webhooks.route-config.ts'
import type { WebhookService } from '../webhooks.service.ts'
import {
  DeliveryAnswer,
  DeliveryDetail,
  DeliveryPage,
  DeliveryParams,
  DeliveryPayload,
  DeliveryQuery,
  LatestReplay,
  ReplayAnswer,
  ReplayBody,
  ReplayPreview,
} from './deliveries.dashboard.schemas.ts'

/** Signatures are for owners and developers: a viewer could replay an attempt with them. */
const reader = (request: FastifyRequest) => ({ signatures: ctx(request).member.role !== 'viewer' })

/**
 * The replays of an endpoint's events, and the delivery log of the member's
 * organization, in the environment of the page's switch: entries with their
 * attempts, what each attempt sent, and redelivery. Another organization's or
 * environment's endpoint or entry is 404.
 */
export const webhookDeliveriesDashboardRoutes: DashboardArea<{ webhooks: WebhookService }> = (
  app,
  { webhooks },
) => {
  const invalid: ErrorCode[] = ['validation_failed']

  app.post(
    '/webhook-endpoints/:endpoint_id/replay',
    {
      config: { ...change('developer'), errors: [...invalid, 'replay_in_progress'] },
      schema: scoped({
        operationId: 'dashboardReplayWebhookEndpoint',
        summary: 'Send the endpoint the events of a time window again, in the background; answers the count',
        params: EndpointParams,
        body: ReplayBody,
        response: { 202: ReplayAnswer },
      }),
    },
    async (request, reply) => {
      reply.code(202)
      const replay = await webhooks.replay(
        scope(request),
        request.params.endpoint_id,
        request.body,
        actor(request),
      )
      return { data: { replay } }
    },
  )

  app.post(
    '/webhook-endpoints/:endpoint_id/replay/preview',
    {
      config: { ...change('developer'), errors: invalid },
      schema: scoped({
        operationId: 'dashboardPreviewWebhookReplay',
        summary: 'How many events a replay with this body would send; starts nothing and stores nothing',
        params: EndpointParams,
        body: ReplayBody,
        response: { 200: ReplayPreview },
      }),
    },
    async (request) => ({
      data: await webhooks.previewReplay(scope(request), request.params.endpoint_id, request.body),
    }),
  )

  app.get(
    '/webhook-endpoints/:endpoint_id/replay',
    {
      config: { ...viewer, errors: ['not_found'] },
      schema: scoped({
        operationId: 'dashboardLatestWebhookReplay',
        summary: "The endpoint's latest replay and how far it got; null when it has never been replayed",
        params: EndpointParams,
        response: { 200: LatestReplay },
      }),
    },
    async (request) => ({
      data: { replay: await webhooks.lastReplay(scope(request), request.params.endpoint_id) },
    }),
  )

  app.get(
    '/webhook-deliveries',
    {
      config: { ...viewer, errors: ['not_found'] },
      preValidation: restorePlusInOffsets('created_since', 'created_until'),
      schema: {
        operationId: 'dashboardListWebhookDeliveries',
        tags: [DASHBOARD_TAG],
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
      schema: scoped({
        operationId: 'dashboardGetWebhookDelivery',
        summary: 'One log entry and its attempts, oldest first',
        params: DeliveryParams,
        response: { 200: DeliveryDetail },
      }),
    },
    async (request) => ({
      data: await webhooks.dashboardDelivery(scope(request), request.params.delivery_id, reader(request)),
    }),
  )

  app.get(
    '/webhook-deliveries/:delivery_id/payload',
    {
      config: viewer,
      schema: scoped({
        operationId: 'dashboardGetWebhookDeliveryPayload',
        summary: 'What a log entry sent: its event body and, per attempt, the headers with the signing time',
        params: DeliveryParams,
        response: { 200: DeliveryPayload },
      }),
    },
    async (request) => ({
      data: await webhooks.deliveryPayload(scope(request), request.params.delivery_id, reader(request)),
    }),
  )

  app.post(
    '/webhook-deliveries/:delivery_id/redeliver',
    {
      config: { ...change('developer', false), errors: invalid },
      schema: scoped({
        operationId: 'dashboardRedeliverWebhookDelivery',
        summary: "Send a delivery's event again, as a new log entry",
        params: DeliveryParams,
        response: { 202: DeliveryAnswer },
      }),
    },
    async (request, reply) => {
      reply.code(202)
      const delivery = await webhooks.redeliver(scope(request), request.params.delivery_id, actor(request))
      return { data: { delivery } }
    },
  )
}
