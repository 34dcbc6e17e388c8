import Type from 'typebox'
import { EXAMPLE_IDS } from '../../../http/openapi-examples.ts'
import { StringEnum } from '../../../http/schemas.ts'
import { EVENT_EXAMPLES } from '../webhooks.openapi.ts'
import { KEEPALIVE_MS, MAX_LISTEN_STREAMS } from './listen.service.ts'

export const STREAM_DESCRIPTION = `Server-sent events (\`text/event-stream\`) of the key's organization and environment as they are written: first \`event: ready\` with \`data: {"environment": ..., "events": [...] | null}\`, then per event \`id: <resume cursor>\`, \`event: <type>\` and \`data: <the exact JSON body a registered endpoint receives>\`; samples from the trigger operation come without an \`id\`. A \`: keepalive\` comment every ${KEEPALIVE_MS / 1000} s. Send \`Last-Event-ID\` to resume after an event: what was written meanwhile comes first, in order. Counts against the rate limit once, at connect. At most ${MAX_LISTEN_STREAMS} open streams per organization (422 \`listen_limit_reached\`). The service connects nowhere: the client forwards. Test orders write no events, so a test key's stream carries only triggered samples (and test pings).`

export const STREAM_200 =
  'The event stream; it ends when the service shuts down (reconnect with Last-Event-ID). Its schema is one message, as an SSE parser hands it over: `event`, `id`, and `data`, parsed from JSON.'

/** One message of the stream, for the document (generated SSE clients read `data` with it). */
export const ListenMessage = Type.Object(
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

export const STREAM_MEDIA = {
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
