import Type from 'typebox'
import { StringEnum, Text, Timestamp, Uuid } from '../../../http/schemas.ts'
import { BatchDetail } from '../batches/batches.console.schemas.ts'
import { ProducedEvents, ProductionOrderAnswer } from '../production.console.schemas.ts'

/** The console's stations and what a scan at one answers. */
const closed = { additionalProperties: false } as const

export const StationParams = Type.Object({ station_id: Type.String({ maxLength: 64 }) })

export const StationNameBody = Type.Object(
  {
    name: Text({
      minLength: 1,
      maxLength: 60,
      description: 'e.g. "Press 2" or "Packing"; unique (any case).',
    }),
  },
  closed,
)

export const Station = Type.Object({
  id: Uuid,
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const StationAnswer = Type.Object({ data: Type.Object({ station: Station }) })

export const StationList = Type.Object({ data: Type.Array(Station, { description: 'By name.' }) })

export const ScanBody = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'What the scanner read: po:<production order id> (a job sheet, an order on a batch sheet), batch:<batch id>, job:<production job id> (an item’s line); a bare id is a production order’s.',
    }),
  },
  closed,
)

/** A production order's page without its history (the station page shows it to act on). */
const { timeline: _timeline, ...productionOrderPage } = ProductionOrderAnswer.properties.data.properties
const ProductionOrderPage = Type.Object(productionOrderPage)

export const ScanAnswer = Type.Object({
  data: Type.Object({
    kind: StringEnum(['production_order', 'batch', 'job'], {
      description:
        'What the code named: a production order or a batch (opened, nothing changed), or an item’s line (its job now completed).',
    }),
    production_order: Type.Union([ProductionOrderPage, Type.Null()], {
      description: 'The production order (po:…) or the completed item’s (job:…); null for a batch.',
    }),
    batch: Type.Union([Type.Object(BatchDetail), Type.Null()], {
      description: 'The batch (batch:…); null otherwise.',
    }),
    production_job: Type.Union(
      [
        Type.Object({ id: Uuid, production_order_id: Uuid, order_item_id: Uuid, status: Type.String() }),
        Type.Null(),
      ],
      { description: 'The completed job (job:…); null otherwise.' },
    ),
    events: { ...ProducedEvents, description: 'What completing the item recorded; empty otherwise.' },
  }),
})
