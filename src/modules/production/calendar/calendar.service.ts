import type { Database } from '../../../db/database.ts'
import { AppError, type ValidationEntry } from '../../../http/errors.ts'
import type { Clock } from '../../../lib/clock.ts'
import { type AuditActor, recordAudit } from '../../audit/audit.service.ts'
import {
  type ClosedDay,
  findCalendar,
  findClosedDays,
  redateOpenOrders,
  saveCalendar,
} from './calendar.repo.ts'
import { dayIn, dueDay, isTimeZone, type WorkingCalendar, workingDaysBetween } from './working-days.ts'

/** The closed days the calendar keeps ahead at most (a year and a half of holidays, with room). */
export const MAX_CLOSED_DAYS = 200

export interface CalendarInput {
  time_zone: string
  working_weekdays: number[]
  default_lead_time_days: number
  closed_days: ClosedDay[]
}

/** What a page says of a due date: the day, whether it is late or today, and the working days left. */
export interface DueView {
  on: string
  state: 'late' | 'today' | 'upcoming'
  /** Working days from today to the due date; negative: working days past it. */
  working_days_left: number
}

/**
 * The platform's production calendar (console): its time zone, working
 * weekdays, closed days ahead and the lead time of products without one.
 * Saving it dates every open production order again, in its transaction.
 */
export function createProductionCalendar(deps: { db: Database; clock: Clock }) {
  const { db, clock } = deps

  /** The calendar with today, for what the board and the pages show beside due dates. */
  async function today() {
    const calendar = await findCalendar(db)
    const day = dayIn(calendar.time_zone, clock.now())
    const closed = await findClosedDays(db, day, MAX_CLOSED_DAYS)
    const working: WorkingCalendar = {
      workingWeekdays: calendar.working_weekdays,
      closedDays: new Set(closed.map((c) => c.day)),
    }
    return { calendar, closed, working, day }
  }

  return {
    async calendar() {
      const { calendar, closed, working, day } = await today()
      return {
        time_zone: calendar.time_zone,
        working_weekdays: calendar.working_weekdays,
        default_lead_time_days: calendar.default_lead_time_days,
        closed_days: closed,
        today: day,
        // What the page states as an example: an order placed now, with the default lead time.
        due_today_with_default: dueDay(working, day, calendar.default_lead_time_days),
        updated_at: calendar.updated_at.toISOString(),
      }
    },

    /** Replaces the calendar (closed days from today on), audited; answers it and how many orders were dated again. */
    async setCalendar(input: CalendarInput, actor: AuditActor) {
      const errors = invalidCalendar(input)
      if (errors.length > 0) throw AppError.validation(errors)
      const before = await this.calendar()
      const from = dayIn(input.time_zone, clock.now())
      const closed = dedupe(input.closed_days.filter((c) => c.day >= from))
      const redated = await db.transaction().execute(async (trx) => {
        await saveCalendar(trx, input, closed, from, clock.now())
        const n = await redateOpenOrders(trx, 'all')
        await recordAudit(trx, clock, {
          organizationId: null,
          actor: { ...actor, operator: true },
          action: 'production.calendar_set',
          subject: 'production calendar',
          details: {
            before: calendarDetails(before),
            after: calendarDetails({ ...input, closed_days: closed }),
            redated_orders: n,
          },
        })
        return n
      })
      return { calendar: await this.calendar(), redated_orders: redated }
    },

    /** Dates again the open production orders with an item of this product (its lead time changed). */
    redateProduct: (trx: Database, productId: string) => redateOpenOrders(trx, { productId }),

    /** Today in the calendar's time zone, and a due date as a page shows it against today. */
    async dueViews(): Promise<{ today: string; view: (on: string | null) => DueView | null }> {
      const { working, day } = await today()
      return { today: day, view: (on) => (on === null ? null : dueView(working, day, on)) }
    },
  }
}

export type ProductionCalendar = ReturnType<typeof createProductionCalendar>

export function dueView(calendar: WorkingCalendar, today: string, on: string): DueView {
  return {
    on,
    state: on < today ? 'late' : on === today ? 'today' : 'upcoming',
    working_days_left: workingDaysBetween(calendar, today, on),
  }
}

const calendarDetails = (c: Omit<CalendarInput, 'closed_days'> & { closed_days: ClosedDay[] }) => ({
  time_zone: c.time_zone,
  working_weekdays: c.working_weekdays,
  default_lead_time_days: c.default_lead_time_days,
  closed_days: c.closed_days.map((d) => d.day),
})

/** One entry per day (the last note wins), in order. */
function dedupe(days: ClosedDay[]): ClosedDay[] {
  return [...new Map(days.map((d) => [d.day, d])).values()].sort((a, b) => a.day.localeCompare(b.day))
}

/** What the schema cannot say: a known time zone, real dates, no weekday twice. */
function invalidCalendar(input: CalendarInput): ValidationEntry[] {
  const errors: ValidationEntry[] = []
  if (!isTimeZone(input.time_zone)) {
    errors.push({
      code: 'invalid_format',
      field: 'time_zone',
      message: 'Not a time zone: use an IANA name such as Europe/Berlin or UTC.',
    })
  }
  if (new Set(input.working_weekdays).size !== input.working_weekdays.length) {
    errors.push({ code: 'invalid_format', field: 'working_weekdays', message: 'A weekday is listed twice.' })
  }
  input.closed_days.forEach((c, n) => {
    const date = new Date(`${c.day}T00:00:00Z`)
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== c.day) {
      errors.push({
        code: 'invalid_format',
        field: `closed_days.${n}.day`,
        message: 'Not a date (YYYY-MM-DD).',
      })
    }
  })
  return errors
}
