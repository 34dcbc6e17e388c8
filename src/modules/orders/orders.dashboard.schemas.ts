import type { Readable } from 'node:stream'
import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { ORDER_STATUSES } from './orders.schemas.ts'

const closed = { additionalProperties: false } as const
const Day = Type.String({ format: 'date', description: 'A UTC day, YYYY-MM-DD.' })

export const OrderListQuery = Type.Object(
  {
    environment: Type.Optional(
      StringEnum(['test', 'live'], { description: 'live unless test is asked for' }),
    ),
    status: Type.Optional(StringEnum(ORDER_STATUSES)),
    from: Type.Optional({ ...Day, description: 'Orders created on this UTC day or later.' }),
    to: Type.Optional({ ...Day, description: 'Orders created on this UTC day or earlier.' }),
    q: Type.Optional(
      Text({
        maxLength: 200,
        description: 'The beginning of the external order id, the customer’s email or name (any case).',
      }),
    ),
    held: Type.Optional(
      Type.Boolean({ description: 'Only orders held for review by a rule (true) or not held (false).' }),
    ),
    priority: Type.Optional(StringEnum(['rush', 'normal'], { description: 'Only rush (or normal) orders.' })),
    partner: Type.Optional(
      Type.Boolean({ description: 'Only partner-produced (true) or own (false) orders.' }),
    ),
    tag: Type.Optional(Text({ minLength: 1, maxLength: 40, description: 'Only orders with this tag.' })),
    preflight: Type.Optional(
      StringEnum(['problem', 'warning'], {
        description:
          'Only orders whose files the print check found problems in (problem), or only warnings (warning).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor of the previous page.' })),
  },
  closed,
)
export type OrderListQuery = Static<typeof OrderListQuery>
const { limit: _limit, cursor: _cursor, ...csvFilters } = OrderListQuery.properties
export const OrderCsvQuery = Type.Object(csvFilters, closed)
export type OrderCsvQuery = Static<typeof OrderCsvQuery>
export const OrderCsv = {
  description:
    'Every order the filters select (not one page), newest first, a line per order; streamed as an attachment.',
  content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string' }) } },
}

export const OrderSummary = Type.Object(
  {
    id: Uuid,
    external_order_id: Type.String(),
    status: Type.String(),
    is_test: Type.Boolean(),
    customer_name: Type.String(),
    customer_email: Type.Union([Type.String(), Type.Null()]),
    items: Type.Integer({ description: 'Item lines.' }),
    quantity: Type.Integer(),
    currency: Type.Union([Type.String(), Type.Null()]),
    total_amount: Type.Union([Type.Number(), Type.Null()]),
    ordered_at: Timestamp,
    created_at: Timestamp,
    held: Type.Boolean({ description: 'Held for review by an automation rule.' }),
    print_check: Type.Union([StringEnum(['ok', 'warning', 'problem', 'not_checked']), Type.Null()], {
      description:
        'The print check of the order’s files as last stored (docs/preflight.md); null: no files, or not checked yet.',
    }),
    priority: Type.String({ enum: ['rush', 'normal'] }),
    produced_by_partner: Type.Boolean(),
    tags: Type.Array(Type.String()),
  },
  { $id: 'DashboardOrderSummary', title: 'DashboardOrderSummary' },
)
export type OrderSummary = Static<typeof OrderSummary>

export const OrderListPage = Type.Object({
  data: Type.Array(OrderSummary),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})
export type OrderListPage = Static<typeof OrderListPage>
