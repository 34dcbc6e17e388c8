import Type, { type Static } from 'typebox'
import { ORDER_STATUSES } from '../orders.schemas.ts'

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

export const OrdersPerDay = Type.Array(
  Type.Object({
    day: Type.String({ format: 'date' }),
    orders_total: Count,
    orders_by_status: Type.Record(Type.String(), Count, {
      description: 'Every order status a key (0 when none): where the orders created that day stand now.',
    }),
  }),
  {
    description: 'Live orders created on each of the last 30 UTC days (today last), by their current status.',
  },
)

export const DeliveriesPerDay = Type.Array(
  Type.Object({
    day: Type.String({ format: 'date' }),
    succeeded: Count,
    failed: Type.Integer({ minimum: 0, description: 'Given up (retries exhausted or endpoint disabled).' }),
  }),
  {
    description:
      'Live webhook deliveries settled on each of the last 30 UTC days (today last): delivered, or given up after the last retry. The success rate of a day is succeeded / (succeeded + failed); deliveries still retrying count on the day they settle.',
  },
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
    live_orders_per_day: OrdersPerDay,
    webhooks: Type.Object({
      active_endpoints: Count,
      failing_endpoints: Type.Integer({
        minimum: 0,
        description:
          'Active endpoints whose last attempt failed: their deliveries wait (pending, not failed) for the endpoint\u2019s next probe.',
      }),
      disabled_endpoints: Type.Integer({ minimum: 0, description: 'Disabled after too many failures.' }),
      deliveries_per_day: DeliveriesPerDay,
    }),
  }),
})
export type HomeAnswer = Static<typeof HomeAnswer>
export type OrderTotals = Static<typeof OrderTotals>
