import type { OperationExamples } from './openapi-example-story.ts'
import { orderExamples, uploadExamples } from './openapi-examples-orders.ts'
import {
  webhookDeliveryExamples,
  webhookEndpointExamples,
  webhookListenExamples,
  webhookReplayExamples,
} from './openapi-examples-webhooks.ts'

export {
  EXAMPLE_CREATED_AT,
  EXAMPLE_IDS,
  EXAMPLE_SECRET,
  type OperationExamples,
  ORDER_REQUEST,
} from './openapi-example-story.ts'

/** The service itself: its document and the key check. */
function serviceExamples(publicBaseUrl: string): Record<string, OperationExamples> {
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
  }
}

/** Every operation's examples by operationId, one group of operations after another. */
export function operationExamples(publicBaseUrl: string): Record<string, OperationExamples> {
  return {
    ...serviceExamples(publicBaseUrl),
    ...orderExamples(),
    ...uploadExamples(publicBaseUrl),
    ...webhookEndpointExamples(),
    ...webhookDeliveryExamples(),
    ...webhookReplayExamples(),
    ...webhookListenExamples(),
  }
}
