import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { Email } from '../accounts/accounts.dashboard.schemas.ts'
import { Environment } from '../auth/api-keys.dashboard.schemas.ts'
import { OrderTotals } from '../orders/home.dashboard.schemas.ts'
import { OperatorOrder } from '../orders/orders.schemas.ts'
import { PRODUCTION_STATUSES } from '../production/production.service.ts'
import { WebhookDelivery } from '../webhooks/webhooks.schemas.ts'

/** The operator console's schemas (/dashboard/api/operator/...). */
const closed = { additionalProperties: false } as const
const Count = Type.Integer({ minimum: 0 })

export const OrgParams = Type.Object({ org_id: Type.String({ maxLength: 64 }) })
export const OrgKeyParams = Type.Object({ org_id: Type.String({ maxLength: 64 }), key_id: Type.String() })
export const ProductionOrderParams = Type.Object({ production_order_id: Type.String({ maxLength: 64 }) })
export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) })
export const OperatorOrderParams = Type.Object({ order_id: Type.String({ maxLength: 64 }) })
export const OperatorDeliveryParams = Type.Object({ delivery_id: Type.String({ maxLength: 64 }) })

export const ProductionStatus = StringEnum(PRODUCTION_STATUSES)

export const WebhookHealth = Type.Object({
  active_endpoints: Count,
  disabled_endpoints: Type.Integer({ minimum: 0, description: 'Disabled after too many failures.' }),
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
export const OwnerInviteBody = Type.Object({ email: Email }, closed)

export const OrgEnvironmentQuery = Type.Object(
  { environment: Type.Optional({ ...Environment, default: 'live', description: 'live (default) or test' }) },
  closed,
)

export const OperatorDeliveryQuery = Type.Object(
  {
    environment: Type.Optional(Environment),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  closed,
)
export const OperatorDelivery = Type.Object({
  ...WebhookDelivery.properties,
  organization_id: Uuid,
  environment: Environment,
})
export const OperatorDeliveryPage = Type.Object({
  data: Type.Array(OperatorDelivery),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
})
export const OperatorDeliveryAnswer = Type.Object({ data: Type.Object({ delivery: WebhookDelivery }) })

export const BoardQuery = Type.Object(
  {
    status: Type.Optional({
      ...ProductionStatus,
      default: 'pending',
      description: 'Production status (default pending).',
    }),
    organization_id: Type.Optional(Type.String({ maxLength: 64 })),
    partner: Type.Optional(
      Type.Boolean({ description: 'Only partner-produced (true) or own (false) orders.' }),
    ),
    older_than_minutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 525_600, description: 'Only orders at least this old.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  closed,
)

const ProductionOrder = Type.Object({
  id: Uuid,
  order_id: Uuid,
  status: Type.String(),
  produced_by_partner: Type.Boolean(),
})

export const BoardEntry = Type.Object({
  production_order: ProductionOrder,
  order: Type.Object({
    id: Uuid,
    external_order_id: Type.String(),
    status: Type.String(),
    source: Type.String(),
    customer_name: Type.String(),
  }),
  organization: Type.Object({ id: Uuid, name: Type.String() }),
  created_at: Timestamp,
  updated_at: Timestamp,
  items: Type.Array(
    Type.Object({
      id: Uuid,
      sku: Type.Union([Type.String(), Type.Null()]),
      name: Type.String(),
      quantity: Type.Integer(),
      job: Type.Union([Type.Object({ id: Uuid, status: Type.String() }), Type.Null()]),
    }),
  ),
})
export const BoardPage = Type.Object({
  data: Type.Array(BoardEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})
export type BoardEntry = Static<typeof BoardEntry>

/** The events an action recorded, in the order of recording (empty: none, e.g. a shop order). */
export const ProducedEvents = Type.Array(
  Type.Object({
    id: Uuid,
    type: Type.String(),
    created_at: Timestamp,
    data: Type.Record(Type.String(), Type.Unknown()),
  }),
)

const Precondition = {
  expected_status: Type.Optional({
    ...ProductionStatus,
    description: 'The production status the operator saw; another one now is 409 production_conflict.',
  }),
}
export const SetStatusBody = Type.Object({ status: ProductionStatus, ...Precondition }, closed)
export const SetPartnerBody = Type.Object({ produced_by_partner: Type.Boolean(), ...Precondition }, closed)
export const PreconditionBody = Type.Object(Precondition, closed)

export const ProductionChanged = Type.Object({
  data: Type.Object({ production_order: ProductionOrder, events: ProducedEvents }),
})
export const JobCompleted = Type.Object({
  data: Type.Object({
    production_job: Type.Object({
      id: Uuid,
      production_order_id: Uuid,
      order_item_id: Uuid,
      status: Type.String(),
    }),
    events: ProducedEvents,
  }),
})
export const OrderCancelled = Type.Object({
  data: Type.Object({ order: OperatorOrder, events: ProducedEvents }),
})

export const ShopOrderCreated = Type.Object({
  data: Type.Object({
    order: OperatorOrder,
    created: Type.Boolean({ description: 'false: the same order was sent before (nothing new).' }),
    events: Type.Array(Type.Object({}), {
      maxItems: 0,
      description: 'Always empty: shop orders produce no events.',
    }),
  }),
})

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
    organizations: Type.Array(Type.Object({ id: Uuid, name: Type.String(), live_orders: Windows })),
  }),
})

export type OrganizationSummary = Static<typeof OrganizationSummary>
export type OrganizationCreated = Static<typeof OrganizationCreated>
export type BoardPage = Static<typeof BoardPage>
export type ProducedEvents = Static<typeof ProducedEvents>
export type OperatorDeliveryPage = Static<typeof OperatorDeliveryPage>
export type PlatformStats = Static<typeof PlatformStats>
export type ShopOrderCreated = Static<typeof ShopOrderCreated>
