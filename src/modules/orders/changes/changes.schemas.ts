import Type, { type Static } from 'typebox'
import { SanitizedName, Timestamp, Uuid } from '../../../http/schemas.ts'
import { LIMITS, type Personalization } from '../orders.schemas.ts'

/**
 * Changes to an accepted order (the dashboard's order page and the console).
 * The values are checked again as part of the whole order, with the rules and
 * messages of POST /v1/orders (changes.service.ts); these schemas only
 * bound the body.
 */

const closed = { additionalProperties: false } as const
/** Values are bounded here only as far as the body scanner needs; their rules are the whole order's. */
const loose = (maxLength: number) => Type.String({ maxLength })
const LooseCustomer = Type.Object(
  {
    name: loose(10_000),
    email: Type.Optional(Type.Union([loose(10_000), Type.Null()])),
    phone: Type.Optional(Type.Union([loose(10_000), Type.Null()])),
  },
  closed,
)
const LoosePersonalization = Type.Unsafe<Static<typeof Personalization>>({
  type: 'object',
  maxProperties: 1000,
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
  description: 'The item\u2019s whole personalization as it is to be (fields left out are removed).',
})
const LooseFileRef = Type.Object(
  { upload_id: Type.String({ maxLength: 100 }), role: Type.Optional(loose(10_000)) },
  closed,
)

export const ItemChange = Type.Object(
  {
    id: { ...Uuid, description: 'The item\u2019s id.' },
    quantity: Type.Optional(Type.Integer({ description: `1..${LIMITS.quantity}, as in POST /v1/orders.` })),
    personalization: Type.Optional(LoosePersonalization),
    remove_files: Type.Optional(
      Type.Array(Uuid, { maxItems: LIMITS.filesPerItem, description: 'upload_id of files to remove.' }),
    ),
    add_files: Type.Optional(
      Type.Array(LooseFileRef, {
        maxItems: LIMITS.filesPerItem,
        description:
          'Uploads to add (from POST /orders/{order_id}/uploads), checked as POST /v1/orders checks files.',
      }),
    ),
  },
  closed,
)

export const OrderChangeRequest = Type.Object(
  {
    expected_updated_at: {
      ...Timestamp,
      description:
        'The order\u2019s updated_at the page showed; a later change of the order makes this a 409.',
    },
    customer: Type.Optional(LooseCustomer),
    items: Type.Optional(
      Type.Array(ItemChange, {
        maxItems: LIMITS.items,
        description: 'The items that change, each named once with all its changes.',
      }),
    ),
  },
  closed,
)
export type OrderChangeRequest = Static<typeof OrderChangeRequest>

export const UploadSlotRequest = Type.Object(
  {
    filename: SanitizedName({
      minLength: 1,
      maxLength: 4096,
      description: 'The file\u2019s name; sanitized.',
    }),
  },
  closed,
)

export const HistoryEntry = Type.Object({
  id: Uuid,
  action: Type.String({
    description:
      'order.changed, order.cancelled, order.released, or production.status_set, production.job_completed, production.partner_set (what production did, with its batch and station)',
  }),
  actor: Type.String({ description: 'Who: a member\u2019s email, or an operator.' }),
  by_operator: Type.Boolean(),
  changed: Type.Array(Type.String(), { description: 'The fields that changed.' }),
  summary: Type.String({
    description:
      'The change as a sentence, the audit log\u2019s, e.g. "ada@shop.test changed order EXT-1: quantity of item 1 2 \u2192 5".',
  }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'before and after.' }),
  created_at: Timestamp,
})
export type HistoryEntry = Static<typeof HistoryEntry>

export const HistoryAnswer = Type.Object({
  data: Type.Array(HistoryEntry, { description: 'Changes and cancellations of the order, oldest first.' }),
})
