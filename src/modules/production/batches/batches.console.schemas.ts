import Type from 'typebox'
import { StringEnum, Text, Timestamp, Uuid } from '../../../http/schemas.ts'
import { Day, Due } from '../calendar/calendar.console.schemas.ts'
import {
  ProducedEvents,
  ProductionOrder,
  ProductionStatus,
  StationField,
} from '../production.console.schemas.ts'
import { BATCH_MAX_ORDERS } from './batches.service.ts'

/** The console's batches: production orders made together, and what one action on a batch did. */
const closed = { additionalProperties: false } as const

export const BatchStatus = StringEnum(['open', 'in_progress', 'completed', 'failed'], {
  description: 'open: orders join and leave; in_progress: started; completed and failed: finished.',
})

export const BatchParams = Type.Object({ batch_id: Type.String({ maxLength: 64 }) })

export const BatchOrderParams = Type.Object({
  batch_id: Type.String({ maxLength: 64 }),
  production_order_id: Type.String({ maxLength: 64 }),
})

const Selection = Type.Object(
  {
    sku: Type.Optional(
      Text({ minLength: 1, maxLength: 100, description: 'Orders with an item of this SKU.' }),
    ),
    due_by: Type.Optional({ ...Day, description: 'Orders due on or before this day.' }),
    organization_id: Type.Optional(Uuid),
  },
  {
    ...closed,
    description:
      'Instead of ids: every pending production order outside a batch (not held, not waiting for its print check) that matches, soonest due first, up to the batch’s room.',
  },
)

const Orders = {
  production_order_ids: Type.Optional(
    Type.Array(Uuid, {
      minItems: 1,
      maxItems: BATCH_MAX_ORDERS,
      description: 'The production orders to add.',
    }),
  ),
  select: Type.Optional(Selection),
}

export const CreateBatchBody = Type.Object(
  { name: Text({ minLength: 1, maxLength: 100, description: 'e.g. "A2 posters, Tuesday".' }), ...Orders },
  closed,
)

export const AddOrdersBody = Type.Object(Orders, closed)

export const FailBatchBody = Type.Object(
  {
    reason: Type.Optional(Text({ minLength: 1, maxLength: 500, description: 'Why, for the audit log.' })),
    ...StationField,
  },
  closed,
)

export const StationBody = Type.Object(StationField, closed)

export const BatchListQuery = Type.Object(
  {
    status: Type.Optional(BatchStatus),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  closed,
)

export const Batch = Type.Object({
  id: Uuid,
  name: Type.String(),
  status: BatchStatus,
  created_by: Type.String({ description: 'The operator who made it.' }),
  orders: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
})

export const BatchPage = Type.Object({
  data: Type.Array(Batch),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page.' }),
})

const Job = Type.Union([Type.Object({ id: Uuid, status: Type.String() }), Type.Null()])

export const BatchDetail = {
  batch: Batch,
  orders: Type.Array(
    Type.Object({
      production_order: ProductionOrder,
      order: Type.Object({
        id: Uuid,
        external_order_id: Type.String(),
        status: Type.String(),
        customer_name: Type.String(),
      }),
      organization: Type.Object({ id: Uuid, name: Type.String() }),
      priority: Type.String({ enum: ['rush', 'normal'] }),
      held: Type.Boolean(),
      due: Due,
      added_at: Timestamp,
      items: Type.Integer({ minimum: 0, description: 'How many items the order has.' }),
    }),
    { description: 'Soonest due first.' },
  ),
  products: Type.Array(
    Type.Object({
      sku: Type.Union([Type.String(), Type.Null()]),
      name: Type.String(),
      quantity: Type.Integer({ description: 'Summed over the lines.' }),
      lines: Type.Array(
        Type.Object({
          production_order_id: Uuid,
          order_id: Uuid,
          external_order_id: Type.String(),
          item_id: Uuid,
          position: Type.Integer(),
          quantity: Type.Integer(),
          personalization: Type.Record(Type.String(), Type.Unknown()),
          files: Type.Array(Type.Object({ upload_id: Uuid, role: Type.Union([Type.String(), Type.Null()]) })),
          job: Job,
        }),
      ),
    }),
    { description: 'The items grouped by product (SKU and name), one line per item.' },
  ),
}

export const BatchAnswer = Type.Object({ data: Type.Object(BatchDetail) })

export const BatchDeleted = Type.Object({
  data: Type.Object(
    { batch: Batch },
    { description: 'The batch as it was; its orders are free to join another.' },
  ),
})

export const BatchActed = Type.Object({
  data: Type.Object({
    ...BatchDetail,
    results: Type.Array(
      Type.Object({
        production_order_id: Uuid,
        external_order_id: Type.String(),
        status: ProductionStatus,
        outcome: StringEnum(['changed', 'unchanged', 'skipped'], {
          description:
            'changed: moved now (its event recorded); unchanged: it already had the status; skipped: it may not make this move (reason says why).',
        }),
        reason: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    events: ProducedEvents,
  }),
})
