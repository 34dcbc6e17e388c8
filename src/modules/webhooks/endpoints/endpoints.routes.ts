import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { manage } from '../webhooks.route-config.ts'
import { IdParams } from '../webhooks.schemas.ts'
import { MAX_LISTED_ENDPOINTS, type WebhookService } from '../webhooks.service.ts'
import {
  RotateSecretRequest,
  WebhookEndpointAnswer,
  WebhookEndpointCreated,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointRequest,
  WebhookEndpointUpdate,
  WebhookEndpointUpdateBody,
  WebhookPingQueued,
  WebhookSecretRotated,
} from './endpoints.schemas.ts'

/** /v1's webhook endpoints: registered, listed, changed, deleted, tested, and their secrets rotated. */
export function webhookEndpointsRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const tags = ['webhooks']

    app.post(
      '/webhook-endpoints',
      {
        config: {
          ...manage,
          jsonBody: true,
          creates: true,
          errors: ['webhook_url_invalid', 'webhook_target_blocked', 'webhook_limit_reached'],
        },
        schema: {
          operationId: 'createWebhookEndpoint',
          tags,
          summary: 'Register a webhook endpoint (the secret is returned once)',
          description:
            'https only, no credentials in the URL; the host is resolved now, every address must be public, and deliveries connect only to those addresses. At most 5 active endpoints per environment.',
          body: WebhookEndpointRequest,
          response: {
            201: WebhookEndpointCreated,
          },
        },
      },
      async (request, reply) => {
        reply.code(201)
        return { data: await deps.webhooks.create(request.principal!, request.body) }
      },
    )

    app.get(
      '/webhook-endpoints',
      {
        config: manage,
        schema: {
          operationId: 'listWebhookEndpoints',
          tags,
          summary: `List your endpoints, newest first (at most ${MAX_LISTED_ENDPOINTS}, never a secret)`,
          response: {
            200: WebhookEndpointList,
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.list(request.principal!) }),
    )

    app.patch(
      '/webhook-endpoints/:id',
      {
        // A disabled or deleted endpoint cannot be changed: 422 validation_failed.
        config: {
          ...manage,
          jsonBody: true,
          errors: ['validation_failed'],
          // `url` is validated only to be refused: the document does not offer it.
          openapi: { body: WebhookEndpointUpdate },
        },
        schema: {
          operationId: 'updateWebhookEndpoint',
          tags,
          summary: 'Change the description or event filter of an active endpoint',
          description:
            'Only the fields sent change. The URL cannot be changed: register a new endpoint for a new URL, then delete this one. A disabled or deleted endpoint cannot be changed (422).',
          params: IdParams,
          body: WebhookEndpointUpdateBody,
          response: {
            200: WebhookEndpointAnswer,
          },
        },
      },
      async (request) => ({
        data: await deps.webhooks.update(request.principal!, request.params.id, request.body),
      }),
    )

    app.delete(
      '/webhook-endpoints/:id',
      {
        config: manage,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          tags,
          summary: 'Disable an endpoint permanently',
          params: IdParams,
          response: {
            200: WebhookEndpointDeleted,
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.remove(request.principal!, request.params.id) }),
    )

    app.post(
      '/webhook-endpoints/:id/test',
      {
        // A disabled endpoint cannot be tested: 422 validation_failed.
        config: { ...manage, errors: ['validation_failed'] },
        schema: {
          operationId: 'testWebhookEndpoint',
          tags,
          summary: 'Queue a ping event to one endpoint',
          params: IdParams,
          response: {
            202: WebhookPingQueued,
          },
        },
      },
      async (request, reply) => {
        reply.code(202)
        return { data: await deps.webhooks.test(request.principal!, request.params.id) }
      },
    )

    app.post(
      '/webhook-endpoints/:id/rotate-secret',
      {
        // A disabled endpoint cannot be rotated: 422 validation_failed.
        config: { ...manage, jsonBody: 'optional', errors: ['validation_failed'] },
        schema: {
          operationId: 'rotateWebhookEndpointSecret',
          tags,
          summary: 'Replace an endpoint\u2019s secret without downtime (the new secret is returned once)',
          description:
            'Makes a new `whsec_` secret, shown only in this answer. For the grace period the previous secret signs too: every attempt carries `t=<t>,v1=<new>,v1=<old>`, so a receiver that knows either secret verifies; afterwards only the new secret signs. The body is optional. An endpoint keeps one previous secret: rotating again during a grace period makes the current secret the previous one, and the older one stops signing at once.',
          params: IdParams,
          body: RotateSecretRequest,
          response: {
            200: WebhookSecretRotated,
          },
        },
      },
      async (request) => ({
        data: await deps.webhooks.rotateSecret(request.principal!, request.params.id, request.body ?? {}),
      }),
    )
  }
}
