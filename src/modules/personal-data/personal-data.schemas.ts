import Type from 'typebox'
import { Nullable, StringEnum, Text, Timestamp, Uuid } from '../../http/schemas.ts'
import { PERSONALIZATION_CHOICES } from './erasure.ts'

const Environment = StringEnum(['test', 'live'] as const)

/** Whose data: the customer's e-mail, phone or name (each exact, any of them), or picked orders. */
const matchFields = {
  email: Type.Optional(
    Text({ maxLength: 320, description: 'The customer’s e-mail, compared without case.' }),
  ),
  phone: Type.Optional(
    Text({ maxLength: 64, description: 'The customer’s phone number, compared by its digits.' }),
  ),
  name: Type.Optional(Text({ maxLength: 300, description: 'The customer’s name, compared without case.' })),
  order_ids: Type.Optional(
    Type.Array(Uuid, { maxItems: 1000, uniqueItems: true, description: 'Orders picked by id.' }),
  ),
}

export const CustomerQuery = Type.Object(matchFields, {
  additionalProperties: false,
  description:
    'Whose data: orders matching any of the fields are taken. Sent in the body, never in the address, so that no access log keeps it.',
})

export const ErasureRequest = Type.Object(
  {
    ...matchFields,
    personalization: Type.Optional(
      StringEnum(PERSONALIZATION_CHOICES, {
        description:
          'Whose personalization values and file names are erased too: `finished` orders’ (production completed or cancelled, and test orders; the default), `all` orders’, or `none`.',
      }),
    ),
  },
  { additionalProperties: false },
)

const Counts = {
  orders: Type.Integer({ description: 'Orders whose customer was erased now.' }),
  personalization: Type.Integer({ description: 'Of those, orders whose personalization went too.' }),
  request_log_lines: Type.Integer({ description: 'Request-log lines whose bodies were dropped.' }),
  audit_entries: Type.Integer({ description: 'Audit entries whose before and after values were erased.' }),
  webhook_answers: Type.Integer({ description: 'Deliveries whose receiver’s answer was dropped.' }),
}

export const ErasureAnswer = Type.Object({
  data: Type.Object({ erasure_id: Uuid, ...Counts }),
})

export const PreviewAnswer = Type.Object({
  data: Type.Object({
    searched_by: Type.Array(Type.String()),
    orders: Type.Object({
      total: Type.Integer(),
      live: Type.Integer(),
      test: Type.Integer(),
      finished: Type.Integer({ description: 'Production completed or cancelled, and test orders.' }),
      already_erased: Type.Integer(),
      first: Type.Array(
        Type.Object({
          id: Uuid,
          external_order_id: Type.String(),
          environment: Environment,
          created_at: Timestamp,
          customer: Type.Object({
            name: Type.String(),
            email: Nullable(Type.String()),
            phone: Nullable(Type.String()),
          }),
          production_status: Nullable(Type.String()),
          finished: Type.Boolean(),
          erased_at: Nullable(Timestamp),
        }),
        { description: 'The first orders found, oldest first (at most 20).' },
      ),
    }),
    request_log_lines: Type.Integer({ description: 'Request-log lines with a body an erasure drops.' }),
    audit_entries: Type.Integer({ description: 'Audit entries holding the customer’s data.' }),
    webhook_answers: Type.Integer({ description: 'Deliveries with a receiver’s answer an erasure drops.' }),
    events_kept: Type.Integer({
      description: 'The orders’ events: kept as they are, they hold ids, numbers and statuses only.',
    }),
  }),
})

export const Retention = Type.Object(
  {
    request_body_retention_days: Type.Integer({
      minimum: 0,
      maximum: 30,
      description: 'Days the request log keeps request and error bodies (0: none); its lines stay 30 days.',
    }),
    webhook_answer_retention_days: Type.Integer({
      minimum: 0,
      maximum: 365,
      description: 'Days receivers’ answers to deliveries are kept, counted from the delivery.',
    }),
    personal_data_retention_days: Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 3650,
        description:
          'Days after an order finished (production completed or cancelled; test orders: after creation) before its customer and personalization are erased; null: kept.',
      }),
    ),
  },
  { additionalProperties: false },
)

export const RetentionAnswer = Type.Object({ data: Retention })

export const ExportAnswer = Type.Object(
  {
    exported_at: Timestamp,
    organization_id: Uuid,
    searched_by: Type.Array(Type.String()),
    orders: Type.Array(Type.Unknown(), { description: 'The orders as the operator API shows them.' }),
    request_log: Type.Array(Type.Unknown(), { description: 'Request-log lines with their bodies.' }),
    audit_entries: Type.Array(Type.Unknown(), { description: 'Audit entries about the orders.' }),
    events: Type.Array(Type.Unknown(), { description: 'The orders’ events as delivered.' }),
    webhook_deliveries: Type.Array(Type.Unknown(), {
      description: 'The deliveries of those events with the receivers’ answers.',
    }),
  },
  { description: 'Everything stored about the customer, as a JSON file to download.' },
)
