import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { OperatorOrder } from '../orders/orders.schemas.ts'
import { TimelineEvent } from '../orders/pages/pages.schemas.ts'
import { Day, Due } from './calendar/calendar.console.schemas.ts'
import { PRODUCTION_STATUSES } from './production.service.ts'

/** The operator console's production board and the changes operators make on it. */
const closed = { additionalProperties: false } as const

export const ProductionOrderParams = Type.Object({ production_order_id: Type.String({ maxLength: 64 }) })

export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) })

export const OperatorOrderParams = Type.Object({ order_id: Type.String({ maxLength: 64 }) })

export const ProductionStatus = StringEnum(PRODUCTION_STATUSES)

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
    held: Type.Optional(
      Type.Boolean({
        description:
          'true: the orders held for review by an automation rule (pending, not startable until released in the dashboard). Otherwise they are left out.',
      }),
    ),
    tag: Type.Optional(Text({ minLength: 1, maxLength: 40, description: 'Only orders with this tag.' })),
    preflight: Type.Optional(
      StringEnum(['problem', 'warning'], {
        description:
          'Only orders whose files the print check found problems in (problem), or only warnings (warning).',
      }),
    ),
    due: Type.Optional(
      StringEnum(['late', 'today'], {
        description:
          "late: open orders past their due date; today: orders due today (the production calendar's time zone).",
      }),
    ),
    due_by: Type.Optional({ ...Day, description: 'Only orders due on or before this day.' }),
    batch: Type.Optional(
      Type.Union([StringEnum(['none', 'any']), Uuid], {
        description:
          'none: only orders in no open batch; any: only orders in one; a batch id: that batch’s orders.',
      }),
    ),
    older_than_minutes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 525_600, description: 'Only orders at least this old.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  closed,
)

export const ProductionOrder = Type.Object({
  id: Uuid,
  order_id: Uuid,
  status: ProductionStatus,
  produced_by_partner: Type.Boolean(),
})

const BoardBatch = Type.Union(
  [
    Type.Object({ id: Uuid, name: Type.String(), status: Type.String({ enum: ['open', 'in_progress'] }) }),
    Type.Null(),
  ],
  { description: 'The open (or started) batch the order is in; null: none.' },
)

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
  priority: Type.String({ enum: ['rush', 'normal'], description: 'Rush orders come first.' }),
  held: Type.Boolean({ description: 'Held for review: not startable until released in the dashboard.' }),
  awaiting_preflight: Type.Array(Type.String(), {
    description:
      'Names of the rules that wait for the order’s print check: not startable until its results are in and they are applied.',
  }),
  hold: Type.Union(
    [Type.Object({ rule_id: Uuid, name: Type.String(), reason: Type.String() }), Type.Null()],
    { description: 'The rule that held the order (kept after its release).' },
  ),
  tags: Type.Array(Type.String()),
  due: Due,
  batch: BoardBatch,
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

const StatusCount = Type.Object({
  count: Type.Integer({ minimum: 0, description: 'Orders of this status under the filters, at most 1000.' }),
  more: Type.Boolean({ description: 'true: more than `count` (counting stops at 1000).' }),
})

export const BoardCounts = Type.Object(
  Object.fromEntries([...PRODUCTION_STATUSES, 'held'].map((s) => [s, StatusCount])) as Record<
    (typeof PRODUCTION_STATUSES)[number] | 'held',
    typeof StatusCount
  >,
  {
    description:
      'Live production orders of each status under the same filters (organization, partner, age, tag); held ones are counted apart (held) and not in pending.',
  },
)

export const BoardPage = Type.Object({
  data: Type.Array(BoardEntry),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
  counts: Type.Union([BoardCounts, Type.Null()], {
    description: 'On the first page (no cursor); null on the pages after it.',
  }),
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

/** The station an operator acts at (the station page): its name goes into the audit entry. */
export const StationField = {
  station_id: Type.Optional({ ...Uuid, description: 'The station the operator acts at, for the audit log.' }),
}

const Precondition = {
  expected_status: Type.Optional({
    ...ProductionStatus,
    description: 'The production status the operator saw; another one now is 409 production_conflict.',
  }),
  ...StationField,
}

export const SetStatusBody = Type.Object(
  {
    status: ProductionStatus,
    reason: Type.Optional(
      Text({ minLength: 1, maxLength: 500, description: 'Why (a failure’s cause), for the audit log.' }),
    ),
    ...Precondition,
  },
  closed,
)

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

export type BoardPage = Static<typeof BoardPage>

export const ProductionFileParams = Type.Object({
  production_order_id: Type.String({ maxLength: 64 }),
  upload_id: Type.String({ maxLength: 64 }),
})

export const ProductionOrderAnswer = Type.Object({
  data: Type.Object({
    production_order: ProductionOrder,
    organization: Type.Object({ id: Uuid, name: Type.String() }),
    due: Due,
    created_at: Timestamp,
    updated_at: Timestamp,
    order: OperatorOrder,
    timeline: Type.Array(TimelineEvent, {
      description:
        "The order's events, oldest first, each with its webhook deliveries (shop orders have none).",
    }),
  }),
})

export type ProducedEvents = Static<typeof ProducedEvents>
