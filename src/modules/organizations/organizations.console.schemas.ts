import Type, { type Static } from 'typebox'
import { Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { DeliveriesPerDay, OrdersPerDay, OrderTotals } from '../orders/statistics/statistics.schemas.ts'

/** The operator console's organization pages and platform statistics (/dashboard/api/operator/...). */
const closed = { additionalProperties: false } as const
const Count = Type.Integer({ minimum: 0 })

export const OrgParams = Type.Object({ org_id: Type.String({ maxLength: 64 }) })

export const OrgKeyParams = Type.Object({ org_id: Type.String({ maxLength: 64 }), key_id: Type.String() })

export const WebhookHealth = Type.Object({
  active_endpoints: Count,
  disabled_endpoints: Type.Integer({ minimum: 0, description: 'Disabled after too many failures.' }),
  failing_endpoints: Type.Integer({
    minimum: 0,
    description: 'Active endpoints whose last attempt failed: their deliveries wait for the next probe.',
  }),
  failed_deliveries_24h: Type.Integer({
    minimum: 0,
    description: 'Deliveries whose last attempt in the last 24 hours failed (retrying or given up).',
  }),
})

export const Organization = Type.Object({ id: Uuid, name: Type.String(), created_at: Timestamp })

export const OrganizationSummary = Type.Object({
  ...Organization.properties,
  live_orders: Type.Object(
    { today: OrderTotals, all_time: OrderTotals },
    { description: 'Live orders only, from the daily aggregates.' },
  ),
  webhooks: Type.Object({ live: WebhookHealth }, { description: 'The live environment’s webhook health.' }),
})

export const OrganizationList = Type.Object({ data: Type.Array(OrganizationSummary) })

export const OrganizationAnswer = Type.Object({ data: Type.Object({ organization: OrganizationSummary }) })

export const CreateOrganizationBody = Type.Object({ name: Text({ minLength: 1, maxLength: 255 }) }, closed)

export const OrganizationCreated = Type.Object({ data: Type.Object({ organization: Organization }) })

const Windows = Type.Object({
  today: OrderTotals,
  last_7_days: OrderTotals,
  last_30_days: OrderTotals,
  all_time: OrderTotals,
})

export const PlatformStats = Type.Object({
  data: Type.Object({
    today: Type.String({ format: 'date', description: 'The current UTC day.' }),
    live_orders: Windows,
    live_orders_per_day: OrdersPerDay,
    live_deliveries_per_day: DeliveriesPerDay,
    organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String(), live_orders: Windows })),
  }),
})

export type OrganizationSummary = Static<typeof OrganizationSummary>

export type OrganizationCreated = Static<typeof OrganizationCreated>

export type PlatformStats = Static<typeof PlatformStats>
