import Type, { type Static } from 'typebox'
import { Nullable, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { PrintSpecsInput, PrintSpecsSchema } from './print-spec.ts'

/** The Products page's schemas. */

const closed = { additionalProperties: false } as const

export const Product = Type.Object({
  id: Uuid,
  sku: Type.String(),
  name: Type.String(),
  created_at: Timestamp,
  print_spec: Type.Union([PrintSpecsSchema, Type.Null()], {
    description: 'What its production files must be to print well (docs/preflight.md); null: none set.',
  }),
  lead_time_days: Type.Union([Type.Integer({ minimum: 0, maximum: 90 }), Type.Null()], {
    description: "Working days to make it (docs/production.md); null: the production calendar's default.",
  }),
})
export type Product = Static<typeof Product>

export const ProductParams = Type.Object({ product_id: Type.String({ maxLength: 64 }) })
export const PrintSpecBody = Type.Object(
  {
    // One spec for every file (default), one per file role (roles), or both; null removes them.
    print_spec: Nullable(PrintSpecsInput),
  },
  closed,
)
export const ProductAnswer = Type.Object({ data: Type.Object({ product: Product }) })

export const ProductList = Type.Object({ data: Type.Array(Product) })

export const ProductBody = Type.Object(
  { sku: Text({ minLength: 1, maxLength: 255 }), name: Text({ minLength: 1, maxLength: 255 }) },
  closed,
)

export const ProductCreated = Type.Object({
  data: Type.Object({
    product: Product,
    linked_items: Type.Integer({
      description: 'Existing items with this sku that the product linked (later orders link as they arrive).',
    }),
  }),
})
export type ProductCreated = Static<typeof ProductCreated>

export const UnmatchedSku = Type.Object({
  sku: Type.String(),
  items: Type.Integer({ description: 'Items with this sku and no product, test and live orders.' }),
  orders: Type.Integer(),
  last_seen_at: Timestamp,
})
export type UnmatchedSku = Static<typeof UnmatchedSku>

export const UnmatchedSkuList = Type.Object({
  data: Type.Array(UnmatchedSku, { description: 'Most recently seen first; at most 200.' }),
})

export const LeadTimeSaved = Type.Object({
  data: Type.Object({
    product: Product,
    redated_orders: Type.Integer({
      description: 'Open production orders whose due dates were computed again.',
    }),
  }),
})

export const LeadTimeBody = Type.Object(
  {
    lead_time_days: Type.Union([Type.Integer({ minimum: 0, maximum: 90 }), Type.Null()], {
      description: "Working days to make the product; null: the production calendar's default.",
    }),
  },
  closed,
)
