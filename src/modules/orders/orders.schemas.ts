import Type, { type Static } from 'typebox'
import type { ProductionStatus } from '../../db/tables/common.ts'
import { KnownString, Nullable, SAFE_TEXT, Text, Timestamp, Uuid } from '../../http/schemas.ts'

// production.views.ts lists the same (it imports this file: no import back).
const ITEM_PRODUCTION_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
] as const satisfies readonly ProductionStatus[]

export const LIMITS = {
  items: 200,
  quantity: 10_000,
  personalizationFields: 50,
  personalizationKey: 100,
  personalizationValue: 5000,
  filesPerItem: 10,
  role: 40,
} as const

const closed = { additionalProperties: false } as const

export const FileRefRequest = Type.Object(
  {
    upload_id: Type.String({ format: 'uuid', description: 'Exactly as returned by POST /uploads.' }),
    role: Type.Optional(Text({ maxLength: LIMITS.role, description: 'Display information only.' })),
  },
  { ...closed, $id: 'FileReference', title: 'FileReference', description: 'A file an item refers to.' },
)

// Written as plain JSON Schema: TypeBox's Record cannot carry the key rules.
export const Personalization = Type.Unsafe<Record<string, string | number | boolean | null>>({
  type: 'object',
  maxProperties: LIMITS.personalizationFields,
  propertyNames: { minLength: 1, maxLength: LIMITS.personalizationKey, pattern: SAFE_TEXT },
  additionalProperties: {
    type: ['string', 'number', 'boolean', 'null'],
    maxLength: LIMITS.personalizationValue,
    pattern: SAFE_TEXT,
  },
  $id: 'Personalization',
  title: 'Personalization',
  description: `Free key/value fields, at most ${LIMITS.personalizationFields}. Keys 1..${LIMITS.personalizationKey} characters; values string (<= ${LIMITS.personalizationValue}), number, boolean or null.`,
})

export const ItemRequest = Type.Object(
  {
    sku: Type.Optional(Nullable(Text({ minLength: 1, maxLength: 255 }))),
    name: Text({ minLength: 1, maxLength: 255 }),
    quantity: Type.Integer({ minimum: 1, maximum: LIMITS.quantity }),
    price: Type.Optional(Nullable(Type.Number({ minimum: 0, description: 'Unit price, net.' }))),
    personalization: Type.Optional(Personalization),
    files: Type.Optional(Type.Array(FileRefRequest, { maxItems: LIMITS.filesPerItem })),
  },
  { ...closed, $id: 'OrderItemRequest', title: 'OrderItemRequest', description: 'One line of an order.' },
)

export const CustomerRequest = Type.Object(
  {
    name: Text({ minLength: 1, maxLength: 255 }),
    email: Type.Optional(Nullable(Text({ maxLength: 320 }))),
    phone: Type.Optional(Nullable(Text({ maxLength: 50 }))),
  },
  { ...closed, $id: 'CustomerRequest', title: 'CustomerRequest' },
)

export const OrderRequest = Type.Object(
  {
    external_order_id: Text({
      minLength: 1,
      maxLength: 255,
      description: 'Your order number; duplicate key.',
    }),
    customer: CustomerRequest,
    currency: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z]{3}$',
          description: 'an ISO 4217 currency code: three upper-case letters, such as EUR',
        }),
      ),
    ),
    total_amount: Type.Optional(
      Nullable(Type.Number({ minimum: 0, description: 'Gross amount the customer paid; display only.' })),
    ),
    ordered_at: Type.Optional(
      Nullable({ ...Timestamp, description: 'Order date; defaults to the creation time.' }),
    ),
    items: Type.Array(ItemRequest, { minItems: 1, maxItems: LIMITS.items }),
  },
  { ...closed, $id: 'OrderRequest', title: 'OrderRequest', description: 'The body of POST /v1/orders.' },
)
export type OrderRequest = Static<typeof OrderRequest>

export const FileRef = Type.Object(
  {
    name: Type.Union([Type.String(), Type.Null()], { description: 'Sanitized file name of the upload.' }),
    role: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'OrderItemFile', title: 'OrderItemFile', description: 'A file of an item, as stored.' },
)

export const Item = Type.Object(
  {
    id: Uuid,
    sku: Type.Union([Type.String(), Type.Null()]),
    name: Type.String(),
    quantity: Type.Integer(),
    price: Type.Union([Type.Number(), Type.Null()]),
    product_linked: Type.Boolean(),
    production_status: Type.Union([KnownString(ITEM_PRODUCTION_STATUSES), Type.Null()], {
      description: 'Status of the item\u2019s production job; null for test orders. Tolerate unknown values.',
    }),
    personalization: Type.Unsafe<Record<string, string | number | boolean | null>>({
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
    }),
    files: Type.Array(FileRef),
  },
  { $id: 'OrderItem', title: 'OrderItem', description: 'One line of an order, as stored.' },
)

export const ORDER_STATUSES = ['pending', 'in_production', 'completed', 'failed', 'cancelled'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

export const Customer = Type.Object(
  {
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'Customer', title: 'Customer' },
)

const orderProperties = {
  id: Uuid,
  external_order_id: Type.String(),
  order_number: Type.String({ description: 'Equals external_order_id.' }),
  status: KnownString(ORDER_STATUSES, {
    description: `One of ${ORDER_STATUSES.join(', ')}; tolerate unknown values.`,
  }),
  is_test: Type.Boolean(),
  currency: Type.Union([Type.String(), Type.Null()]),
  total_amount: Type.Union([Type.Number(), Type.Null()]),
  ordered_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  customer: Customer,
  items: Type.Array(Item),
}

export const Order = Type.Object(orderProperties, {
  $id: 'Order',
  title: 'Order',
  description: 'An order as the service keeps it.',
})
export type Order = Static<typeof Order>

export const Warning = Type.Object(
  {
    code: Type.String({ enum: ['item_product_unmatched', 'item_missing_sku'] }),
    field: Type.String(),
    value: Type.Optional(Type.String()),
    message: Type.String(),
  },
  {
    $id: 'Warning',
    title: 'Warning',
    description: 'Accepted, but worth a look: the order was still created.',
  },
)
export type Warning = Static<typeof Warning>

export const CreateOrderResponse = Type.Object({
  data: Type.Object({ order: Type.Unsafe({ $ref: 'Order#' }), warnings: Type.Array(Warning) }),
})

export const OrderResponse = Type.Object({ data: Type.Object({ order: Type.Unsafe({ $ref: 'Order#' }) }) })

export const ListOrdersQuery = Type.Object(
  {
    updated_since: Type.Optional({
      ...Timestamp,
      description: 'ISO 8601 timestamp with Z or an offset; inclusive (updated_at >= updated_since).',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(
      Type.String({ maxLength: 512, description: 'Opaque; next_cursor of the previous page.' }),
    ),
  },
  closed,
)
export type ListOrdersQuery = Static<typeof ListOrdersQuery>

export const ListOrdersResponse = Type.Object({
  data: Type.Array(Type.Unsafe({ $ref: 'Order#' })),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})

// Operator view: the public order plus what the dashboard needs.
const OperatorFile = Type.Object({
  upload_id: Uuid,
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.Union([Type.String(), Type.Null()]),
  content_type: Type.Union([Type.String(), Type.Null()]),
  size_bytes: Type.Union([Type.Integer(), Type.Null()]),
})

const OperatorItem = Type.Object({
  ...Item.properties,
  production_job: Type.Union([Type.Object({ id: Uuid, status: Type.String() }), Type.Null()]),
  files: Type.Array(OperatorFile),
})

export const ProductionOrderView = Type.Object({
  id: Uuid,
  status: Type.String(),
  produced_by_partner: Type.Boolean(),
})

const RuleHold = Type.Object({
  rule_id: Uuid,
  name: Type.String({ description: 'The rule\u2019s name when it held the order.' }),
  reason: Type.String({ description: 'The rule\u2019s conditions in words.' }),
})

const MatchedRule = Type.Object({
  rule_id: Uuid,
  name: Type.String(),
  actions: Type.Array(
    Type.Object({
      type: Type.String({ description: 'hold, partner, priority or tag.' }),
      value: Type.Optional(Type.String()),
      words: Type.String({ description: 'The action in words: "held this order for review".' }),
    }),
  ),
})

/** What the organization's automation rules did to the order (live orders only; test orders: none of it). */
const automationProperties = {
  tags: Type.Array(Type.String(), { description: 'Tags set by automation rules.' }),
  priority: Type.String({
    enum: ['rush', 'normal'],
    description: 'Production priority (normal for test orders).',
  }),
  held: Type.Boolean({ description: 'Held for review by a rule until an owner or developer releases it.' }),
  hold: Type.Union([RuleHold, Type.Null()], {
    description: 'The rule that held the order, kept after its release; null when none did.',
  }),
  awaiting_preflight: Type.Array(Type.String(), {
    description:
      'Names of the rules that read the print check and wait for its results on this order: while any does, production cannot start. Empty once they are applied.',
  }),
  due_on: Type.Union([Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), Type.Null()], {
    description:
      "When production is due (YYYY-MM-DD, the production calendar's time zone): the longest lead time of its items in working days after the order was placed. null for test orders and for moments after an order arrives, until it is dated.",
  }),
  automation: Type.Array(MatchedRule, {
    description:
      'The rules that matched when the order arrived, in rule order, then those that read the print check, when its results came.',
  }),
}

export const OperatorOrder = Type.Object(
  {
    ...orderProperties,
    organization_id: Uuid,
    source: Type.String({ enum: ['api', 'shop'] }),
    production_order: Type.Union([ProductionOrderView, Type.Null()]),
    ...automationProperties,
    personal_data: Type.Object(
      {
        erased_at: Type.Union([Timestamp, Type.Null()], {
          description:
            'When the customer’s name, e-mail and phone were erased (docs/personal-data.md); null: kept.',
        }),
        personalization_erased_at: Type.Union([Timestamp, Type.Null()], {
          description: 'When the items’ personalization and file names were erased too.',
        }),
      },
      { description: 'What of the customer’s personal data was erased, and when.' },
    ),
    items: Type.Array(OperatorItem),
  },
  { title: 'OperatorOrder' },
)
export type OperatorOrder = Static<typeof OperatorOrder>
