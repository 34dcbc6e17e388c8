import {
  EXAMPLE_CREATED_AT,
  EXAMPLE_IDS,
  type OperationExamples,
  ORDER_REQUEST,
  ORDERED_AT,
} from './openapi-example-story.ts'

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

const upload = (publicBaseUrl: string) => ({
  upload_id: EXAMPLE_IDS.upload,
  filename: 'mia-birthday.png',
  upload_url: `${publicBaseUrl}/v1/uploads/${EXAMPLE_IDS.upload}/content?expires=1795606200&signature=9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d`,
  method: 'PUT',
  expires_in_seconds: 7200,
  max_bytes: 52428800,
})

/** The orders: creating one, listing them, reading one. */
export function orderExamples(): Record<string, OperationExamples> {
  return {
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
  }
}

/** The uploads: a file's slot, then its bytes. */
export function uploadExamples(publicBaseUrl: string): Record<string, OperationExamples> {
  return {
    createUpload: {
      request: { filename: 'mia-birthday.png' },
      responses: { 201: { data: upload(publicBaseUrl) } },
      validation: [
        { code: 'too_short', field: 'filename', message: 'filename must be at least 1 character' },
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
  }
}
