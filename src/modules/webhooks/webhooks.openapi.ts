import type { TSchema } from 'typebox'
import { EXAMPLE_CREATED_AT, EXAMPLE_IDS, EXAMPLE_SECRET } from '../../http/openapi-examples.ts'
import { EVENT_DATA, EVENT_SCHEMAS, eventSchemaName } from './outbox/events.schemas.ts'
import { EVENT_TYPES, type EventType } from './outbox/events.ts'
import { USER_AGENT } from './worker/http-attempt.ts'
import { signatureHeader, standardSignatureHeader } from './worker/signing.ts'

const SIGNING = [
  'Check the signature before anything else. In `X-Service-Signature`, `v1` is the lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the endpoint secret (the whole `whsec_...` string as UTF-8).',
  'Compute it over the body bytes as received, compare in constant time, and refuse a `t` more than 300 seconds from your clock. On failure answer 401 and process nothing.',
  'The same request carries the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and `webhook-signature`, signed with the same secret: `new Webhook(secret)` of the standardwebhooks or svix libraries verifies them; check either set.',
  'Deliveries are at least once and in no set order: deduplicate on the event id. Unknown event types and unknown fields may appear; ignore them.',
].join(' ')

const pascal = (type: EventType) => eventSchemaName(type).replace(/Event$/, '')

/**
 * The document's `webhooks` section: one POST per event type, the request a
 * registered endpoint receives, with the body's schema and the signed headers.
 * Each example is signed with the example endpoint's secret.
 */
export function webhooksSection() {
  const examples = EVENT_EXAMPLES
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
        // The service calls you: no API key; the signature header authenticates it.
        security: [],
        parameters: [
          header(
            'X-Service-Signature',
            { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
            signatureHeader(EXAMPLE_SECRET, body, t),
            '`t=<unix seconds>,v1=<hex>`; `t` is new for every attempt. While the endpoint\u2019s secret is rotated, a second `v1` (the previous secret\u2019s) follows the first: accept the request when any `v1` matches.',
          ),
          header(
            'X-Service-Event-Id',
            { type: 'string', format: 'uuid' },
            example.id,
            'The event\u2019s id.',
          ),
          header('X-Service-Event-Type', { type: 'string', enum: [type] }, type, 'The event\u2019s type.'),
          header(
            'webhook-id',
            { type: 'string', format: 'uuid' },
            example.id,
            'Standard Webhooks: the event\u2019s id, the same on every attempt.',
          ),
          header(
            'webhook-timestamp',
            { type: 'string', pattern: '^\\d+$' },
            String(t),
            'Standard Webhooks: Unix seconds at signing, the `t` of `X-Service-Signature`.',
          ),
          header(
            'webhook-signature',
            { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$' },
            standardSignatureHeader(EXAMPLE_SECRET, example.id, body, t),
            'Standard Webhooks: `v1,<base64>`, HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` keyed with the base64-decoded part of the secret after `whsec_`. While the secret is rotated, the previous secret\u2019s signature follows, space-separated.',
          ),
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

const orderFields = { order_id: EXAMPLE_IDS.order, external_order_id: 'WEB-1042' }

/** One delivered body per event type. */
export const EVENT_EXAMPLES: Record<EventType, unknown> = {
  'order.received': envelope(EXAMPLE_IDS.receivedEvent, 'order.received', EXAMPLE_CREATED_AT, {
    ...orderFields,
    sequence: 1,
  }),
  'order.production_started': envelope(
    EXAMPLE_IDS.startedEvent,
    'order.production_started',
    '2026-11-25T09:45:12.305Z',
    {
      ...orderFields,
      production_order_id: EXAMPLE_IDS.productionOrder,
      production_status: 'in_progress',
      sequence: 2,
    },
  ),
  'order.production_completed': envelope(
    EXAMPLE_IDS.completedEvent,
    'order.production_completed',
    '2026-11-25T10:02:47.918Z',
    {
      ...orderFields,
      production_order_id: EXAMPLE_IDS.productionOrder,
      production_status: 'completed',
      sequence: 4,
    },
  ),
  'order.production_failed': envelope(
    EXAMPLE_IDS.failedEvent,
    'order.production_failed',
    '2026-11-25T10:02:47.918Z',
    {
      ...orderFields,
      production_order_id: EXAMPLE_IDS.productionOrder,
      production_status: 'failed',
      produced_by_partner: true,
      sequence: 3,
    },
  ),
  'order.cancelled': envelope(EXAMPLE_IDS.cancelledEvent, 'order.cancelled', '2026-11-25T10:05:30.551Z', {
    ...orderFields,
    production_order_id: EXAMPLE_IDS.productionOrder,
    sequence: 3,
  }),
  'order_item.completed': envelope(
    EXAMPLE_IDS.itemEvent,
    'order_item.completed',
    '2026-11-25T09:58:03.774Z',
    {
      ...orderFields,
      order_item_id: EXAMPLE_IDS.item,
      production_job_id: EXAMPLE_IDS.job,
      sku: 'POSTER-A2',
      name: 'Poster A2, matte',
      sequence: 3,
    },
  ),
  'order.updated': envelope(EXAMPLE_IDS.updatedEvent, 'order.updated', '2026-11-25T09:41:20.112Z', {
    ...orderFields,
    changed: ['customer.email', 'items[0].personalization'],
    sequence: 2,
  }),
  ping: envelope(EXAMPLE_IDS.pingEvent, 'ping', '2026-11-25T09:30:09.000Z', {
    message: 'Test event from the webhook test operation.',
  }),
}

function envelope(id: string, type: string, createdAt: string, data: Record<string, unknown>) {
  return { id, type, created_at: createdAt, api_version: 'v1', data }
}
