import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { Text, Timestamp, Uuid } from '../../http/schemas.ts'
import {
  DEFAULT_ROTATION_GRACE_S,
  MAX_LISTED_ENDPOINTS,
  MAX_ROTATION_GRACE_S,
  type WebhookService,
} from './webhooks.service.ts'

const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

export const WebhookEndpoint = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    description: Type.String(),
    is_active: Type.Boolean(),
    disabled_reason: Type.Union([
      Type.String({ description: '`too_many_failures` when disabled automatically' }),
      Type.Null(),
    ]),
    consecutive_failures: Type.Integer(),
    last_success_at: NullableTimestamp,
    last_failure_at: NullableTimestamp,
    created_at: Timestamp,
    secret_rotation_ends_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'While a secret rotation is under way: when the previous secret stops signing (until then every attempt carries a v1 for each secret). Null otherwise.',
    }),
  },
  {
    $id: 'WebhookEndpoint',
    title: 'WebhookEndpoint',
    description: 'An address that receives events; never its secret.',
  },
)

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Uuid,
    event_type: Type.String(),
    status: Type.String({
      description: 'pending, succeeded or failed (permanent); tolerate unknown values.',
    }),
    attempts: Type.Integer(),
    next_attempt_at: NullableTimestamp,
    last_attempt_at: NullableTimestamp,
    response_status: Type.Union([Type.Integer(), Type.Null()]),
    response_snippet: Type.Union([
      Type.String({ description: 'First 1024 characters of the response.' }),
      Type.Null(),
    ]),
    error_code: Type.Union([
      Type.String({ description: 'timeout, connection_error, tls_error, http_error or endpoint_disabled' }),
      Type.Null(),
    ]),
    created_at: Timestamp,
  },
  {
    $id: 'WebhookDelivery',
    title: 'WebhookDelivery',
    description: 'The log entry of one event sent to one endpoint.',
  },
)

const WebhookEndpointRequest = Type.Object(
  {
    url: Type.String({ maxLength: 2048, description: 'An https URL without credentials, on a public host.' }),
    description: Type.Optional(Text({ maxLength: 500 })),
  },
  { additionalProperties: false, $id: 'WebhookEndpointRequest', title: 'WebhookEndpointRequest' },
)

const RotateSecretRequest = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_S,
        default: DEFAULT_ROTATION_GRACE_S,
        description: `How long the current secret keeps signing beside the new one, in seconds (default ${DEFAULT_ROTATION_GRACE_S}: 24 hours; at most ${MAX_ROTATION_GRACE_S}: 7 days). 0 switches to the new secret at once.`,
      }),
    ),
  },
  { additionalProperties: false, $id: 'RotateSecretRequest', title: 'RotateSecretRequest' },
)

const IdParams = Type.Object({ id: Type.String({ description: 'The endpoint\u2019s id.' }) })
const manage = { auth: 'key' as const, scopes: ['webhooks:manage' as const] }

export function webhooksRoutes(deps: { webhooks: WebhookService }) {
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
            201: Type.Object({
              data: Type.Object({
                endpoint: WebhookEndpoint,
                secret: Type.String({ description: 'whsec_...; shown only here.' }),
              }),
            }),
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
            200: Type.Object({ data: Type.Array(WebhookEndpoint) }),
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.list(request.principal!) }),
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
            200: Type.Object({ data: Type.Object({ id: Uuid, is_active: Type.Boolean() }) }),
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
            202: Type.Object({ data: Type.Object({ queued: Type.Boolean() }) }),
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
            200: Type.Object({
              data: Type.Object({
                endpoint: WebhookEndpoint,
                secret: Type.String({ description: 'The new whsec_... secret; shown only here.' }),
                previous_secret_expires_at: Type.String({
                  format: 'date-time',
                  description:
                    'When the previous secret stops signing: now plus the grace period (now for 0).',
                }),
              }),
            }),
          },
        },
      },
      async (request) => ({
        data: await deps.webhooks.rotateSecret(request.principal!, request.params.id, request.body ?? {}),
      }),
    )

    app.get(
      '/webhook-deliveries',
      {
        // An endpoint_id that is not one of the key's endpoints: 404.
        config: { ...manage, errors: ['not_found'] },
        schema: {
          operationId: 'listWebhookDeliveries',
          tags,
          summary: 'Recent deliveries to your endpoints, newest first',
          querystring: Type.Object(
            {
              endpoint_id: Type.Optional(Type.String()),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Object({ data: Type.Array(WebhookDelivery) }),
          },
        },
      },
      async (request) => ({ data: await deps.webhooks.deliveries(request.principal!, request.query) }),
    )
  }
}

/** The operator's side: the delivery log across organizations and manual redelivery. */
export function webhooksOperatorRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/webhook-deliveries',
      {
        config: { auth: 'operator' },
        schema: {
          querystring: Type.Object(
            {
              organization_id: Type.Optional(Type.String()),
              endpoint_id: Type.Optional(Type.String()),
              limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => ({ data: await deps.webhooks.operatorDeliveries(request.query) }),
    )

    app.post(
      '/webhook-deliveries/:id/redeliver',
      { config: { auth: 'operator' }, schema: { params: IdParams } },
      async (request, reply) => {
        reply.code(202)
        return { data: { delivery: await deps.webhooks.redeliver(request.params.id) } }
      },
    )
  }
}
