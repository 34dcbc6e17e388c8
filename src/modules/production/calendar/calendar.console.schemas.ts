import Type, { type Static } from 'typebox'
import { StringEnum, Text, Timestamp } from '../../../http/schemas.ts'
import { MAX_CLOSED_DAYS } from './calendar.service.ts'

/** The console's production calendar and the due dates pages show. */
const closed = { additionalProperties: false } as const

export const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a date (YYYY-MM-DD)' })

export const Due = Type.Union(
  [
    Type.Object({
      on: Day,
      state: StringEnum(['late', 'today', 'upcoming'], {
        description: 'late: past its due date (as the board counts it while open); today; upcoming.',
      }),
      working_days_left: Type.Integer({
        description: 'Working days from today to the due date; negative: working days past it.',
      }),
    }),
    Type.Null(),
  ],
  {
    description:
      "When it is due, in the production calendar's time zone; null until the order is dated (moments after it arrives).",
  },
)
export type Due = Static<typeof Due>

const LeadTime = Type.Integer({ minimum: 0, maximum: 90, description: 'Working days.' })

const ClosedDay = Type.Object(
  { day: Day, note: Text({ maxLength: 200, description: 'Why it is closed (shown on the calendar).' }) },
  closed,
)

export const CalendarBody = Type.Object(
  {
    time_zone: Text({
      minLength: 1,
      maxLength: 64,
      description: 'An IANA time zone: when days begin and end.',
    }),
    working_weekdays: Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), {
      minItems: 1,
      maxItems: 7,
      description: 'ISO weekdays production works: 1 Monday … 7 Sunday.',
    }),
    default_lead_time_days: {
      ...LeadTime,
      description: 'Lead time of products without their own, in working days.',
    },
    closed_days: Type.Array(ClosedDay, {
      maxItems: MAX_CLOSED_DAYS,
      description:
        'Closed days from today on (holidays, stocktaking); days before today are kept as they were.',
    }),
  },
  closed,
)

const Calendar = Type.Object({
  time_zone: Type.String(),
  working_weekdays: Type.Array(Type.Integer()),
  default_lead_time_days: Type.Integer(),
  closed_days: Type.Array(Type.Object({ day: Day, note: Type.String() })),
  today: { ...Day, description: "Today in the calendar's time zone." },
  due_today_with_default: {
    ...Day,
    description: 'When an order placed now is due with the default lead time.',
  },
  updated_at: Timestamp,
})

export const CalendarAnswer = Type.Object({ data: Calendar })

export const CalendarSaved = Type.Object({
  data: Type.Object({
    calendar: Calendar,
    redated_orders: Type.Integer({
      description: 'Open production orders whose due dates were computed again.',
    }),
  }),
})

export const DueCounts = Type.Object({
  late: Type.Integer({
    minimum: 0,
    description: 'Open production orders past their due date, at most 1000.',
  }),
  today: Type.Integer({ minimum: 0, description: 'Open production orders due today, at most 1000.' }),
  more: Type.Boolean({ description: 'true: either count stopped at 1000.' }),
})
