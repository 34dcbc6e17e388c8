import type { TSchema } from 'typebox'
import { USER_AGENT } from './http-attempt.ts'
import { EVENT_DATA, EVENT_SCHEMAS, eventSchemaName } from './outbox/events.schemas.ts'
import { EVENT_TYPES, type EventType } from './outbox/events.ts'
import { signatureHeader } from './signing.ts'

const SIGNING = [
  'Check `X-Service-Signature` before anything else: `v1` is the lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the endpoint secret (the whole `whsec_...` string as UTF-8).',
  'Compute it over the body bytes as received, compare in constant time, and refuse a `t` more than 300 seconds from your clock. On failure answer 401 and process nothing.',
  'Deliveries are at least once and in no set order: deduplicate on the event id. Unknown event types and unknown fields may appear; ignore them.',
].join(' ')

/** The secret the examples are signed with (the createWebhookEndpoint example's). */
export const EXAMPLE_SECRET = 'whsec_q3ZL0v8mXc1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR1tY'

const pascal = (type: EventType) => eventSchemaName(type).replace(/Event$/, '')

/**
 * The document's `webhooks` section: one POST per event type, the request a
 * registered endpoint receives, with the body's schema and the signed headers.
 * `examples` holds one body per type, stored exactly as the service sends it.
 */
export function webhooksSection(examples: Record<EventType, unknown>) {
  const ref = (type: EventType) => ({ $ref: `#/components/schemas/${eventSchemaName(type)}` })
  const webhooks = Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const example = examples[type] as { id: string; created_at: string }
      const body = JSON.stringify(example)
      const t = Math.floor(Date.parse(example.created_at) / 1000) + 1
      const header = (name: string, schema: object, value: string, description: string) => ({
        in: 'header',
        name,
        required: true,
        schema,
        example: value,
        description,
      })
      const operation = {
        operationId: `on${pascal(type)}`,
        tags: ['webhooks'],
        summary: `\`${type}\`: ${(EVENT_DATA[type] as { description?: string }).description}`,
        description: SIGNING,
        parameters: [
          header(
            'X-Service-Signature',
            { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
            signatureHeader(EXAMPLE_SECRET, body, t),
            '`t=<unix seconds>,v1=<hex>`; `t` is new for every attempt.',
          ),
          header(
            'X-Service-Event-Id',
            { type: 'string', format: 'uuid' },
            example.id,
            'The event\u2019s id.',
          ),
          header('X-Service-Event-Type', { type: 'string', enum: [type] }, type, 'The event\u2019s type.'),
          header('User-Agent', { type: 'string' }, USER_AGENT, 'The service\u2019s delivery agent.'),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref(type), example } },
        },
        responses: {
          '2XX': {
            description: 'Received. Any 2xx within the delivery timeout counts; the body is ignored.',
          },
          '401': {
            description: 'The signature did not check out: nothing was processed. The attempt fails.',
          },
          default: {
            description: 'Any other answer, a redirect included, fails the attempt; it is retried later.',
          },
        },
      }
      return [type, { post: operation }]
    }),
  )
  const union = {
    title: 'WebhookEvent',
    description: 'Any event body, told apart by `type`.',
    oneOf: EVENT_TYPES.map(ref),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, ref(type).$ref])),
    },
  }
  const schemas: TSchema[] = Object.values(EVENT_SCHEMAS)
  return { webhooks, schemas, union }
}
