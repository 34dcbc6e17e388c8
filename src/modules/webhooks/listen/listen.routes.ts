import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { EXAMPLE_IDS } from '../../../http/openapi-examples.ts'
import { StringEnum } from '../../../http/schemas.ts'
import { EVENT_TYPES } from '../outbox/outbox.service.ts'
import { EVENT_EXAMPLES } from '../webhooks.openapi.ts'
import { KEEPALIVE_MS, type ListenService, MAX_LISTEN_STREAMS } from './listen.service.ts'

const manage = { auth: 'key' as const, scopes: ['webhooks:manage' as const] }

const STREAM_DESCRIPTION = `Server-sent events (\`text/event-stream\`) of the key's organization and environment as they are written: first \`event: ready\` with \`data: {"environment": ..., "events": [...] | null}\`, then per event \`id: <resume cursor>\`, \`event: <type>\` and \`data: <the exact JSON body a registered endpoint receives>\`; samples from the trigger operation come without an \`id\`. A \`: keepalive\` comment every ${KEEPALIVE_MS / 1000} s. Send \`Last-Event-ID\` to resume after an event: what was written meanwhile comes first, in order. Counts against the rate limit once, at connect. At most ${MAX_LISTEN_STREAMS} open streams per organization (422 \`listen_limit_reached\`). The service connects nowhere: the client forwards. Test orders write no events, so a test key's stream carries only triggered samples (and test pings).`

const STREAM_200 =
  'The event stream; it ends when the service shuts down (reconnect with Last-Event-ID). Its schema is one message, as an SSE parser hands it over: `event`, `id`, and `data`, parsed from JSON.'

/** One message of the stream, for the document (generated SSE clients read `data` with it). */
const ListenMessage = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        description:
          'The resume cursor (send it in Last-Event-ID); absent on `ready` and on triggered samples.',
      }),
    ),
    event: Type.String({ description: '`ready`, then each event\u2019s type.' }),
    data: Type.Union([
      Type.Object(
        {
          environment: StringEnum(['test', 'live']),
          events: Type.Union([Type.Array(Type.String()), Type.Null()], {
            description: 'The event types asked for; null for all.',
          }),
        },
        { title: 'ListenReady', description: 'The first message (`event: ready`).' },
      ),
      Type.Unsafe({ $ref: '#/components/schemas/WebhookEvent' }),
    ]),
  },
  { title: 'ListenMessage', description: 'One server-sent event of the listen stream.' },
)

const STREAM_MEDIA = {
  schema: ListenMessage,
  examples: {
    ready: {
      summary: 'The first message',
      value: { event: 'ready', data: { environment: 'live', events: ['order.received'] } },
    },
    event: {
      summary: 'An event, as a registered endpoint receives it',
      value: {
        id: `48213.${EXAMPLE_IDS.receivedEvent}`,
        event: 'order.received',
        data: EVENT_EXAMPLES['order.received'],
      },
    },
  },
}

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
