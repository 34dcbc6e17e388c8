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

/*
 * The story's ids, times and values that several groups of examples
 * (openapi-examples*.ts) and the webhook examples share.
 */

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

export const ORDERED_AT = '2026-11-25T09:28:41.000Z'

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
