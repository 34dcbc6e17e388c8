import type { ValidationEntry } from './errors.ts'

/**
 * The examples of the OpenAPI document: one story (a poster order with a
 * photo, produced and delivered to a webhook) told through every operation,
 * with UUID v7 ids and millisecond UTC timestamps as the service writes them.
 * The tests validate each against its schema.
 */
export interface OperationExamples {
  /** Path and query parameters by name. */
  parameters?: Record<string, unknown>
  request?: unknown
  /** Success bodies by status. */
  responses: Record<number, unknown>
  /** The entries of this operation's validation_failed example. */
  validation?: ValidationEntry[]
}

/** The ids of the examples' story, shared with the webhook examples. */
export const EXAMPLE_IDS = {
  order: '01a2120a-623b-77c5-8742-3081da90993b',
  item: '01a2120a-623b-77c5-8742-30a2c41f0e51',
  giftItem: '01a2120a-623b-77c5-8742-30b9e07d2c18',
  upload: '01a2120a-4e1f-7b85-bbd0-02cf0eeea642',
  endpoint: '01a2120a-1c94-7d47-84fd-2bf6f790e9f6',
  productionOrder: '01a2120a-623b-77c5-8742-31c0f2a8d6e3',
  job: '01a2120a-623b-77c5-8742-32d85b1f07aa',
  pingEvent: '01a2120a-98eb-758e-bd09-71775af569bb',
  receivedEvent: '01a2120a-623b-77c5-8742-33e1a9c05d42',
  startedEvent: '01a2120b-4a01-7e4a-b224-a35d80661eeb',
  completedEvent: '01a2120c-1f77-75b8-8c8b-48464c2b8205',
  failedEvent: '01a2120c-1f77-75ff-93f1-9222fbfb250a',
  itemEvent: '01a2120b-f3c2-765e-b068-a6835ca46897',
  cancelledEvent: '01a2120c-2b5e-7d35-a6bc-2775f0791998',
  updatedEvent: '01a2120b-9d41-7a2c-8e55-41c2d7e0a3b6',
  delivery: '01a2120a-623b-77c5-8742-34f3b6d1e870',
  redelivery: '01a2120d-0b3e-7c41-9f2a-5e8d3c1b7a64',
  replay: '01a2120d-3f10-7a2b-8c4d-6e9f0a1b2c3d',
}

export const EXAMPLE_CREATED_AT = '2026-11-25T09:30:00.123Z'

/** The secret of the example endpoint; the webhook examples are signed with it. */
export const EXAMPLE_SECRET = 'whsec_q3ZL0v8mXc1rT5bN7yK2hW4sD6fG9jA0pE3uI8oR1tY'
/** The example endpoint's secret after a rotation. */
const EXAMPLE_ROTATED_SECRET = 'whsec_Vb7nK2pQ9xR4tW1yZ6cF3hJ8mL0sD5gA2eU7iO4rT9u'
/** A rotation at 2026-11-25T11:00:00.000Z with the default grace period of 24 hours. */
const ROTATION_ENDS_AT = '2026-11-26T11:00:00.000Z'
const ORDERED_AT = '2026-11-25T09:28:41.000Z'

/** A replay of the example endpoint, just requested. */
const REPLAY = {
  id: EXAMPLE_IDS.replay,
  endpoint_id: EXAMPLE_IDS.endpoint,
  status: 'running',
  since: '2026-11-24T00:00:00.000Z',
  until: '2026-11-25T06:00:00.000Z',
  event_types: ['order.received', 'order.production_completed'],
  only_failed: true,
  total: 312,
  queued: 0,
  created_at: '2026-11-25T11:04:12.530Z',
  finished_at: null,
}

export const ORDER_REQUEST = {
  external_order_id: 'WEB-1042',
  customer: { name: 'Jana Novak', email: 'jana.novak@example.com', phone: '+49 30 1234567' },
  currency: 'EUR',
  total_amount: 59.8,
  ordered_at: ORDERED_AT,
  items: [
    {
      sku: 'POSTER-A2',
      name: 'Poster A2, matte',
      quantity: 2,
      price: 24.9,
      personalization: { caption: 'Happy birthday, Mia!', frame: false },
      files: [{ upload_id: EXAMPLE_IDS.upload, role: 'front' }],
    },
    { sku: 'GIFT-WRAP', name: 'Gift wrapping', quantity: 1, price: 10 },
  ],
}

const ORDER = {
  id: EXAMPLE_IDS.order,
  external_order_id: 'WEB-1042',
  order_number: 'WEB-1042',
  status: 'pending',
  is_test: false,
  currency: 'EUR',
  total_amount: 59.8,
  ordered_at: ORDERED_AT,
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
  customer: ORDER_REQUEST.customer,
  items: [
    {
      id: EXAMPLE_IDS.item,
      sku: 'POSTER-A2',
      name: 'Poster A2, matte',
      quantity: 2,
      price: 24.9,
      product_linked: true,
      production_status: 'pending',
      personalization: { caption: 'Happy birthday, Mia!', frame: false },
      files: [{ name: 'mia-birthday.png', role: 'front' }],
    },
    {
      id: EXAMPLE_IDS.giftItem,
      sku: 'GIFT-WRAP',
      name: 'Gift wrapping',
      quantity: 1,
      price: 10,
      product_linked: false,
      production_status: 'pending',
      personalization: {},
      files: [],
    },
  ],
}

const WARNING = {
  code: 'item_product_unmatched',
  field: 'items[1].sku',
  value: 'GIFT-WRAP',
  message:
    'No product with sku "GIFT-WRAP"; the item is accepted unlinked and links once the product exists.',
}

const ENDPOINT = {
  id: EXAMPLE_IDS.endpoint,
  url: 'https://shop.example.com/hooks/production',
  description: 'Shop backend',
  enabled_events: ['*'],
  is_active: true,
  disabled_reason: null,
  consecutive_failures: 0,
  last_success_at: '2026-11-25T09:30:01.482Z',
  last_failure_at: null,
  created_at: '2026-11-25T09:10:00.000Z',
  secret_rotation_ends_at: null,
}

/** An order.received delivery that succeeded on its third attempt (see getWebhookDelivery). */
const DELIVERY = {
  id: EXAMPLE_IDS.delivery,
  endpoint_id: EXAMPLE_IDS.endpoint,
  event_id: EXAMPLE_IDS.receivedEvent,
  event_type: 'order.received',
  status: 'succeeded',
  attempts: 3,
  next_attempt_at: null,
  last_attempt_at: '2026-11-25T09:36:21.482Z',
  response_status: 200,
  response_snippet: '{"ok":true}',
  error_code: null,
  error_message: null,
  created_at: EXAMPLE_CREATED_AT,
  redelivery_of: null,
  superseded_by: null,
  replay_id: null,
}

/** A next_cursor of the delivery log: opaque (it points after the entry EXAMPLE_IDS.delivery). */
const DELIVERY_CURSOR = Buffer.from(`d1.${EXAMPLE_CREATED_AT}|${EXAMPLE_IDS.delivery}`).toString('base64url')

const upload = (publicBaseUrl: string) => ({
  upload_id: EXAMPLE_IDS.upload,
  filename: 'mia-birthday.png',
  upload_url: `${publicBaseUrl}/v1/uploads/${EXAMPLE_IDS.upload}/content?expires=1795606200&signature=9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d`,
  method: 'PUT',
  expires_in_seconds: 7200,
  max_bytes: 52428800,
})

export function operationExamples(publicBaseUrl: string): Record<string, OperationExamples> {
  return {
    getOpenApiDocument: {
      responses: {
        200: {
          openapi: '3.1.0',
          info: { title: 'Order Intake and Production Status API', version: 'v1' },
          servers: [{ url: publicBaseUrl }],
          paths: {},
        },
      },
    },
    ping: {
      responses: {
        200: {
          data: {
            organization: { name: 'Mia Prints GmbH' },
            environment: 'live',
            scopes: ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'],
            key_prefix: 'svc_live_7Kq2',
            api_version: 'v1',
          },
        },
      },
    },
    createOrder: {
      request: ORDER_REQUEST,
      responses: {
        201: { data: { order: ORDER, warnings: [WARNING] } },
        200: { data: { order: ORDER, warnings: [] } },
      },
      validation: [
        { code: 'unknown_field', field: 'external_id', message: 'external_id is not a known field' },
        { code: 'required', field: 'external_order_id', message: 'external_order_id is required' },
      ],
    },
    listOrders: {
      parameters: {
        updated_since: '2026-11-25T09:00:00.000Z',
        limit: 50,
        cursor: 'MjAyNi0xMS0yNVQwOTozMDowMC4xMjNafDAxYTIxMjBhLTYyM2ItNzdjNS04NzQyLTMwODFkYTkwOTkzYg',
      },
      responses: {
        200: {
          data: [ORDER],
          next_cursor: 'MjAyNi0xMS0yNVQwOTozMDowMC4xMjNafDAxYTIxMjBhLTYyM2ItNzdjNS04NzQyLTMwODFkYTkwOTkzYg',
        },
      },
      validation: [{ code: 'too_large', field: 'limit', message: 'limit must be at most 100' }],
    },
    getOrder: { parameters: { id: EXAMPLE_IDS.order }, responses: { 200: { data: { order: ORDER } } } },
    createUpload: {
      request: { filename: 'mia-birthday.png' },
      responses: { 201: { data: upload(publicBaseUrl) } },
      validation: [
        { code: 'too_short', field: 'filename', message: 'filename must be at least 1 characters' },
      ],
    },
    putUploadContent: {
      parameters: {
        id: EXAMPLE_IDS.upload,
        expires: '1795606200',
        signature: '9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d',
      },
      responses: { 200: { data: { upload_id: EXAMPLE_IDS.upload, size_bytes: 2483311 } } },
      validation: [
        {
          code: 'invalid_format',
          field: 'Content-Type',
          message:
            'Content-Type application/json: the upload PUT takes the file\u2019s raw bytes, not JSON. Send the file as it is, with its own type or application/octet-stream (a JSON file as text/plain); this upload_url still takes it.',
        },
      ],
    },
    createWebhookEndpoint: {
      request: { url: ENDPOINT.url, description: ENDPOINT.description },
      responses: {
        201: {
          data: {
            endpoint: { ...ENDPOINT, last_success_at: null },
            secret: EXAMPLE_SECRET,
          },
        },
      },
      validation: [{ code: 'required', field: 'url', message: 'url is required' }],
    },
    listWebhookEndpoints: { responses: { 200: { data: [ENDPOINT] } } },
    updateWebhookEndpoint: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      request: {
        description: 'Shop backend: production updates',
        enabled_events: ['order.production_completed', 'order.production_failed', 'order.cancelled'],
      },
      responses: {
        200: {
          data: {
            endpoint: {
              ...ENDPOINT,
              description: 'Shop backend: production updates',
              enabled_events: ['order.production_completed', 'order.production_failed', 'order.cancelled'],
            },
          },
        },
      },
      validation: [
        {
          code: 'invalid_format',
          field: 'enabled_events[1]',
          message:
            'enabled_events[1] must be one of "*", "order.received", "order.production_started", "order.production_completed", "order.production_failed", "order.cancelled", "order_item.completed", "order.updated"',
        },
      ],
    },
    deleteWebhookEndpoint: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      responses: { 200: { data: { id: EXAMPLE_IDS.endpoint, is_active: false } } },
    },
    testWebhookEndpoint: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      responses: { 202: { data: { queued: true } } },
      validation: [
        { code: 'invalid_format', field: 'id', message: 'The endpoint is disabled; register a new one.' },
      ],
    },
    rotateWebhookEndpointSecret: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      request: { grace_period_seconds: 86400 },
      responses: {
        200: {
          data: {
            endpoint: { ...ENDPOINT, secret_rotation_ends_at: ROTATION_ENDS_AT },
            secret: EXAMPLE_ROTATED_SECRET,
            previous_secret_expires_at: ROTATION_ENDS_AT,
          },
        },
      },
      validation: [
        {
          code: 'too_large',
          field: 'grace_period_seconds',
          message: 'grace_period_seconds must be at most 604800',
        },
      ],
    },
    listWebhookDeliveries: {
      parameters: {
        endpoint_id: EXAMPLE_IDS.endpoint,
        limit: 25,
        status: 'succeeded',
        event_type: 'order.received',
        event_id: EXAMPLE_IDS.receivedEvent,
        order_id: EXAMPLE_IDS.order,
        created_since: '2026-11-25T00:00:00.000Z',
        created_until: '2026-11-26T00:00:00.000Z',
        cursor: DELIVERY_CURSOR,
      },
      responses: { 200: { data: [DELIVERY], next_cursor: null } },
      validation: [
        {
          code: 'invalid_format',
          field: 'status',
          message: 'status must be one of "pending", "succeeded", "failed"',
        },
      ],
    },
    getWebhookDelivery: {
      parameters: { id: EXAMPLE_IDS.delivery },
      responses: {
        200: {
          data: {
            delivery: DELIVERY,
            attempts: [
              {
                attempt: 1,
                started_at: '2026-11-25T09:30:00.214Z',
                duration_ms: 10000,
                response_status: null,
                response_snippet: null,
                error_code: 'timeout',
                error_message: 'timed out after 10 s',
              },
              {
                attempt: 2,
                started_at: '2026-11-25T09:31:04.877Z',
                duration_ms: 38,
                response_status: 503,
                response_snippet: '{"error":"maintenance"}',
                error_code: 'http_error',
                error_message: 'HTTP 503',
              },
              {
                attempt: 3,
                started_at: '2026-11-25T09:36:21.482Z',
                duration_ms: 41,
                response_status: 200,
                response_snippet: '{"ok":true}',
                error_code: null,
                error_message: null,
              },
            ],
          },
        },
      },
    },
    redeliverWebhookDelivery: {
      parameters: { id: EXAMPLE_IDS.delivery },
      responses: {
        202: {
          data: {
            delivery: {
              id: EXAMPLE_IDS.redelivery,
              endpoint_id: EXAMPLE_IDS.endpoint,
              event_id: EXAMPLE_IDS.receivedEvent,
              event_type: 'order.received',
              status: 'pending',
              attempts: 0,
              next_attempt_at: '2026-11-25T11:04:12.530Z',
              last_attempt_at: null,
              response_status: null,
              response_snippet: null,
              error_code: null,
              error_message: null,
              created_at: '2026-11-25T11:04:12.530Z',
              redelivery_of: EXAMPLE_IDS.delivery,
              superseded_by: null,
              replay_id: null,
            },
          },
        },
      },
      validation: [{ code: 'invalid_format', field: 'id', message: 'The endpoint is disabled.' }],
    },
    replayWebhookEndpoint: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      request: {
        since: '2026-11-24T00:00:00.000Z',
        until: '2026-11-25T06:00:00.000Z',
        event_types: ['order.received', 'order.production_completed'],
        only_failed: true,
      },
      responses: { 202: { data: { replay: REPLAY } } },
      validation: [
        {
          code: 'too_many',
          field: 'since',
          message:
            '12840 events match; a replay sends at most 10000: narrow the window (since, until, event_types).',
        },
      ],
    },
    getWebhookEndpointReplay: {
      parameters: { id: EXAMPLE_IDS.endpoint },
      responses: {
        200: {
          data: {
            replay: { ...REPLAY, status: 'completed', queued: 312, finished_at: '2026-11-25T11:05:02.871Z' },
          },
        },
      },
    },
    streamWebhookEvents: {
      parameters: {
        events: 'order.received,order.production_completed',
        'last-event-id': `48213.${EXAMPLE_IDS.receivedEvent}`,
      },
      // The stream's messages: listen.routes.ts (one per kind of message).
      responses: {},
      validation: [
        {
          code: 'invalid_format',
          field: 'events',
          message:
            'Unknown event type "order.shipped"; known: order.received, order.production_started, order.production_completed, order.production_failed, order.cancelled, order_item.completed, order.updated, ping.',
        },
      ],
    },
    triggerWebhookEvent: {
      request: { type: 'order.received' },
      responses: { 202: { data: { type: 'order.received', sessions: 1 } } },
      validation: [{ code: 'required', field: 'type', message: 'type is required' }],
    },
  }
}
