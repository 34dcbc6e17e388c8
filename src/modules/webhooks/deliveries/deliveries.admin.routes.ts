import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { restorePlusInOffsets } from '../../../http/query-timestamps.ts'
import { OPERATOR_TOKEN_ACTOR } from '../../audit/audit.service.ts'
import { IdParams } from '../webhooks.schemas.ts'
import type { WebhookService } from '../webhooks.service.ts'
import { DeliveryIdParams, DeliveryLogFilters, WebhookReplayRequest } from './deliveries.schemas.ts'

/** The operator's side: the delivery log across organizations, manual redelivery and replays. */
export function webhookDeliveriesAdminRoutes(deps: { webhooks: WebhookService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    app.get(
      '/webhook-deliveries',
      {
        config: { auth: 'operator' },
        preValidation: restorePlusInOffsets('created_since', 'created_until'),
        schema: {
          querystring: Type.Object(
            { organization_id: Type.Optional(Type.String()), ...DeliveryLogFilters },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => deps.webhooks.operatorDeliveries(request.query),
    )

    app.get(
      '/webhook-deliveries/:id',
      { config: { auth: 'operator' }, schema: { params: IdParams } },
      async (request) => ({ data: await deps.webhooks.operatorDelivery(request.params.id) }),
    )

    app.post(
      '/webhook-deliveries/:id/redeliver',
      { config: { auth: 'operator' }, schema: { params: DeliveryIdParams } },
      async (request, reply) => {
        reply.code(202)
        return {
          data: {
            delivery: await deps.webhooks.redeliver(undefined, request.params.id, OPERATOR_TOKEN_ACTOR),
          },
        }
      },
    )

    app.post(
      '/webhook-endpoints/:id/replay',
      {
        config: { auth: 'operator', jsonBody: true, errors: ['validation_failed', 'replay_in_progress'] },
        schema: { params: IdParams, body: WebhookReplayRequest },
      },
      async (request, reply) => {
        reply.code(202)
        const replay = await deps.webhooks.replay(
          undefined,
          request.params.id,
          request.body,
          OPERATOR_TOKEN_ACTOR,
        )
        return { data: { replay } }
      },
    )

    app.get(
      '/webhook-endpoints/:id/replay',
      { config: { auth: 'operator' }, schema: { params: IdParams } },
      async (request) => ({
        data: { replay: await deps.webhooks.replayStatus(undefined, request.params.id) },
      }),
    )
  }
}
