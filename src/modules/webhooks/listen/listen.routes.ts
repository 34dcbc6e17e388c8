import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { StringEnum } from '../../../http/schemas.ts'
import { EVENT_TYPES } from '../outbox/outbox.service.ts'
import { manage } from '../webhooks.route-config.ts'
import { STREAM_200, STREAM_DESCRIPTION, STREAM_MEDIA } from './listen.schemas.ts'
import type { ListenService } from './listen.service.ts'

export function listenRoutes(deps: { listen: ListenService }) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
    const tags = ['webhooks']

    app.get(
      '/webhook-events/stream',
      {
        config: {
          ...manage,
          errors: ['listen_limit_reached'],
          openapi: {
            response: {
              200: { description: STREAM_200, content: { 'text/event-stream': STREAM_MEDIA } },
            },
          },
        },
        schema: {
          operationId: 'streamWebhookEvents',
          tags,
          summary: 'Listen: stream your events as server-sent events (for local development)',
          description: STREAM_DESCRIPTION,
          querystring: Type.Object(
            {
              events: Type.Optional(
                Type.String({
                  maxLength: 500,
                  description: `Comma-separated event types to send (default: all): ${EVENT_TYPES.join(', ')}.`,
                }),
              ),
            },
            { additionalProperties: false },
          ),
          headers: Type.Object({
            'last-event-id': Type.Optional(
              Type.String({
                maxLength: 100,
                description: 'Resume after this event (an `id` the stream sent).',
              }),
            ),
          }),
          response: {
            200: { description: STREAM_200, content: { 'text/event-stream': { schema: Type.String() } } },
          },
        },
      },
      async (request, reply) => {
        const stream = await deps.listen.open(request.principal!, {
          events: request.query.events,
          lastEventId: request.headers['last-event-id'],
        })
        // Not reused after the stream: a stream ended at shutdown closes its connection with it.
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-store')
          .header('connection', 'close')
          .header('x-accel-buffering', 'no')
        // The 200 schema documents the stream's text; the payload is the stream itself.
        return reply.send(stream as unknown as string)
      },
    )

    app.post(
      '/webhook-events/trigger',
      {
        config: { ...manage, jsonBody: true, errors: ['test_key_required'] },
        schema: {
          operationId: 'triggerWebhookEvent',
          tags,
          summary: 'Send a sample event to your open test listen sessions (test keys only)',
          description:
            'Emits a well-formed sample event of the type to the organization’s open test-environment streams on every instance, and to nothing else: never to registered endpoints, never stored. `sessions` counts the open test sessions the database knows of (every instance’s).',
          body: Type.Object(
            { type: StringEnum(EVENT_TYPES, { description: 'The event type of the sample.' }) },
            { additionalProperties: false },
          ),
          response: {
            202: Type.Object({
              data: Type.Object({
                type: Type.String(),
                sessions: Type.Integer({ description: 'Open test listen sessions of the organization.' }),
              }),
            }),
          },
        },
      },
      async (request, reply) => {
        reply.code(202)
        return { data: await deps.listen.trigger(request.principal!, request.body.type) }
      },
    )
  }
}
