import {
  EXAMPLE_CREATED_AT,
  EXAMPLE_IDS,
  EXAMPLE_SECRET,
  type OperationExamples,
} from './openapi-example-story.ts'

/** The example endpoint's secret after a rotation. */
const EXAMPLE_ROTATED_SECRET = 'whsec_Vb7nK2pQ9xR4tW1yZ6cF3hJ8mL0sD5gA2eU7iO4rT9u'
/** A rotation at 2026-11-25T11:00:00.000Z with the default grace period of 24 hours. */
const ROTATION_ENDS_AT = '2026-11-26T11:00:00.000Z'

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

/** The webhook endpoints: registering, listing, changing, disabling, testing one and rotating its secret. */
export function webhookEndpointExamples(): Record<string, OperationExamples> {
  return {
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
  }
}

/** The delivery log: listing deliveries, one delivery's attempts, a redelivery. */
export function webhookDeliveryExamples(): Record<string, OperationExamples> {
  return {
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
  }
}

/** An endpoint's replay: requesting one, reading it. */
export function webhookReplayExamples(): Record<string, OperationExamples> {
  return {
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
  }
}

/** Listening: the stream of events and a sample event sent to it. */
export function webhookListenExamples(): Record<string, OperationExamples> {
  return {
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
