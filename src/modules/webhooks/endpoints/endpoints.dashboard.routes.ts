import { actor, change, type DashboardArea, viewer } from '../../../dashboard/route-config.ts'
import type { ErrorCode } from '../../../http/errors.ts'
import { EndpointParams } from '../webhooks.dashboard.schemas.ts'
import { webhookScope as scope, scoped } from '../webhooks.route-config.ts'
import type { WebhookService } from '../webhooks.service.ts'
import {
  CreateEndpointBody,
  EndpointAnswer,
  EndpointCreated,
  EndpointDeleted,
  EndpointList,
  PingQueued,
  RetryNowAnswer,
  RotateSecretBody,
  SampleBody,
  SampleQueued,
  SecretRotated,
  UpdateEndpointBody,
} from './endpoints.dashboard.schemas.ts'

type Area = DashboardArea<{ webhooks: WebhookService }>

/**
 * Webhook endpoints: the same service as /v1's webhook routes, scoped to the
 * member's organization and the environment of the page's test/live switch
 * (the `environment` query parameter, test by default). An endpoint of
 * another organization or environment is 404. Changes are recorded in the
 * audit log in their own transaction (never a secret).
 */
export const webhookEndpointsDashboardRoutes: Area = (app, services) => {
  endpointRoutes(app, services)
  endpointActionRoutes(app, services)
}

/** The environment's endpoints: listed, registered, read, changed and deleted. */
const endpointRoutes: Area = (app, { webhooks }) => {
  const invalid: ErrorCode[] = ['validation_failed']

  app.get(
    '/webhook-endpoints',
    {
      config: viewer,
      schema: scoped({
        operationId: 'dashboardListWebhookEndpoints',
        summary: "The environment's endpoints, newest first, with their health (never a secret)",
        response: { 200: EndpointList },
      }),
    },
    async (request) => ({ data: await webhooks.list(scope(request)) }),
  )

  app.post(
    '/webhook-endpoints',
    {
      config: {
        ...change('developer'),
        errors: ['webhook_url_invalid', 'webhook_target_blocked', 'webhook_limit_reached'],
      },
      schema: scoped({
        operationId: 'dashboardCreateWebhookEndpoint',
        summary: 'Register an endpoint: its secret is in this answer only',
        body: CreateEndpointBody,
        response: { 201: EndpointCreated },
      }),
    },
    async (request, reply) => {
      reply.code(201)
      return { data: await webhooks.create(scope(request), request.body, actor(request)) }
    },
  )

  app.get(
    '/webhook-endpoints/:endpoint_id',
    {
      config: viewer,
      schema: scoped({
        operationId: 'dashboardGetWebhookEndpoint',
        summary: 'One endpoint and its health',
        params: EndpointParams,
        response: { 200: EndpointAnswer },
      }),
    },
    async (request) => ({
      data: { endpoint: await webhooks.get(scope(request), request.params.endpoint_id) },
    }),
  )

  app.patch(
    '/webhook-endpoints/:endpoint_id',
    {
      config: { ...change('developer'), errors: invalid },
      schema: scoped({
        operationId: 'dashboardUpdateWebhookEndpoint',
        summary: 'Change the description or event filter of an active endpoint',
        params: EndpointParams,
        body: UpdateEndpointBody,
        response: { 200: EndpointAnswer },
      }),
    },
    async (request) => ({
      data: await webhooks.update(scope(request), request.params.endpoint_id, request.body, actor(request)),
    }),
  )

  app.delete(
    '/webhook-endpoints/:endpoint_id',
    {
      config: change('developer', false),
      schema: scoped({
        operationId: 'dashboardDeleteWebhookEndpoint',
        summary: 'Disable an endpoint permanently; its pending deliveries fail',
        params: EndpointParams,
        response: { 200: EndpointDeleted },
      }),
    },
    async (request) => ({
      data: await webhooks.remove(scope(request), request.params.endpoint_id, actor(request)),
    }),
  )
}

/** What a member does to one endpoint: a test ping, a sample event, Retry now, a new secret. */
const endpointActionRoutes: Area = (app, { webhooks }) => {
  const invalid: ErrorCode[] = ['validation_failed']

  app.post(
    '/webhook-endpoints/:endpoint_id/test',
    {
      config: { ...change('developer', false), errors: invalid },
      schema: scoped({
        operationId: 'dashboardTestWebhookEndpoint',
        summary: 'Queue a ping event to the endpoint',
        params: EndpointParams,
        response: { 202: PingQueued },
      }),
    },
    async (request, reply) => {
      reply.code(202)
      return { data: await webhooks.test(scope(request), request.params.endpoint_id) }
    },
  )

  app.post(
    '/webhook-endpoints/:endpoint_id/sample',
    {
      config: { ...change('developer'), errors: invalid },
      schema: scoped({
        operationId: 'dashboardSendWebhookSample',
        summary: 'Queue a sample event of a type the endpoint receives, to that endpoint only',
        description:
          'A well-formed event of the type, with `"sample": true` in `data` and an order that exists nowhere; it is delivered, signed and retried like any event, appears in the delivery log, and is never replayed.',
        params: EndpointParams,
        body: SampleBody,
        response: { 202: SampleQueued },
      }),
    },
    async (request, reply) => {
      reply.code(202)
      return {
        data: await webhooks.sendSample(
          scope(request),
          request.params.endpoint_id,
          request.body.type,
          actor(request),
        ),
      }
    },
  )

  app.post(
    '/webhook-endpoints/:endpoint_id/retry-now',
    {
      config: { ...change('developer', false), errors: invalid },
      schema: scoped({
        operationId: 'dashboardRetryWebhookEndpointNow',
        summary:
          "Retry now: a failing endpoint's next probe goes at once (one delivery), at any instance's worker",
        description:
          'While the endpoint is failing its deliveries wait for its next probe (`next_probe_at`). This lets one delivery go now as that probe; when it succeeds the waiting deliveries follow, when it fails the retry schedule sets the next probe. Nothing changes while an attempt to the endpoint is on its way (`probe: under_way`). Recorded in the audit log. An endpoint that is not failing, or is disabled: 422, nothing changed.',
        params: EndpointParams,
        response: { 202: RetryNowAnswer },
      }),
    },
    async (request, reply) => {
      reply.code(202)
      return { data: await webhooks.retryNow(scope(request), request.params.endpoint_id, actor(request)) }
    },
  )

  app.post(
    '/webhook-endpoints/:endpoint_id/rotate-secret',
    {
      config: { ...change('developer'), errors: invalid },
      schema: scoped({
        operationId: 'dashboardRotateWebhookSecret',
        summary: 'A new secret (in this answer only); the old one signs beside it for the grace period',
        params: EndpointParams,
        body: RotateSecretBody,
        response: { 200: SecretRotated },
      }),
    },
    async (request) => ({
      data: await webhooks.rotateSecret(
        scope(request),
        request.params.endpoint_id,
        request.body,
        actor(request),
      ),
    }),
  )
}
