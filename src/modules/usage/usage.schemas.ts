import Type from 'typebox'
import { Nullable, Uuid } from '../../http/schemas.ts'
import { MONTH_PATTERN } from './usage.service.ts'

/** Usage counted for billing: the console's Billing page, the dashboard's Usage page and /admin/v1/usage. */
const Count = Type.Integer({ minimum: 0 })
const closed = { additionalProperties: false } as const

export const UsageQuery = Type.Object(
  {
    month: Type.Optional(
      Type.String({
        pattern: MONTH_PATTERN,
        description:
          'a calendar month (UTC) written YYYY-MM, such as 2026-11; the current month when left out',
        examples: ['2026-11'],
      }),
    ),
  },
  closed,
)

const Totals = {
  orders: Type.Integer({
    minimum: 0,
    description: 'Live orders created in the month (cancelled ones included).',
  }),
  items: Type.Integer({ minimum: 0, description: 'Their item lines.' }),
  quantity: Type.Integer({ minimum: 0, description: 'The sum of their items’ quantities.' }),
}

export const ProductUsage = Type.Object({
  product_id: Uuid,
  sku: Nullable(Type.String()),
  name: Nullable(Type.String()),
  orders: Type.Integer({ minimum: 0, description: 'Orders with an item of this product.' }),
  items: Count,
  quantity: Count,
})

export const OrganizationUsage = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    ...Totals,
    products: Type.Array(ProductUsage, { description: 'Items linked to a product, per product.' }),
    unlinked: Type.Object(
      { items: Count, quantity: Count },
      { description: 'Items linked to no product (no sku, or a sku without a product).' },
    ),
  },
  { $id: 'OrganizationUsage', title: 'OrganizationUsage' },
)

const Month = Type.String({ pattern: MONTH_PATTERN, description: 'The month counted, YYYY-MM (UTC).' })

export const PlatformUsageAnswer = Type.Object({
  data: Type.Object({
    month: Month,
    organizations: Type.Array(OrganizationUsage, {
      description: 'Every organization, by name; those without orders in the month with zeros.',
    }),
    totals: Type.Object(Totals),
  }),
})

export const OrganizationUsageAnswer = Type.Object({
  data: Type.Object({ month: Month, organization: OrganizationUsage }),
})

export const UsageCsv = {
  description:
    'A line per organization (line = organization), then one per product it sold (product) and one for its items linked to no product (unlinked); as an attachment.',
  content: { 'text/csv': { schema: Type.String() } },
}
