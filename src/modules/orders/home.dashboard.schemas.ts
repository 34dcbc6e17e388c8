import Type, { type Static } from 'typebox'
import { ORDER_STATUSES } from './orders.schemas.ts'

const Count = Type.Integer({ minimum: 0 })

export const OrderTotals = Type.Object(
  {
    orders_total: Count,
    orders_by_status: Type.Record(Type.String(), Count, {
      description: `Every order status (${ORDER_STATUSES.join(', ')}) a key, 0 when none.`,
    }),
    items_total: Type.Integer({ minimum: 0, description: 'Item lines.' }),
    quantity_total: Type.Integer({ minimum: 0, description: 'Sum of the items’ quantities.' }),
  },
  { $id: 'DashboardOrderTotals', title: 'DashboardOrderTotals' },
)

export const HomeAnswer = Type.Object({
  data: Type.Object({
    today: Type.String({ format: 'date', description: 'The current UTC day: the windows count UTC days.' }),
    live_orders: Type.Object(
      {
        today: OrderTotals,
        last_7_days: OrderTotals,
        last_30_days: OrderTotals,
        all_time: OrderTotals,
      },
      { description: 'Live orders only: test orders are never in statistics. Days are UTC, by creation.' },
    ),
    in_production: Type.Integer({ minimum: 0, description: 'Live orders in production now.' }),
    webhooks: Type.Object({
      active_endpoints: Count,
      disabled_endpoints: Type.Integer({ minimum: 0, description: 'Disabled after too many failures.' }),
      failed_deliveries_24h: Type.Integer({
        minimum: 0,
        description: 'Deliveries whose last attempt in the last 24 hours failed (retrying or given up).',
      }),
    }),
  }),
})
export type HomeAnswer = Static<typeof HomeAnswer>
export type OrderTotals = Static<typeof OrderTotals>
