/**
 * Working days of the production calendar, in plain dates (YYYY-MM-DD):
 * the same rule as the database's production_due_on() (migration 0038), for
 * what the pages show beside a due date.
 */
export interface WorkingCalendar {
  /** ISO weekdays: 1 Monday … 7 Sunday. */
  workingWeekdays: readonly number[]
  closedDays: ReadonlySet<string>
}

const DAY = 86_400_000

const toDate = (day: string) => new Date(`${day}T00:00:00Z`)
const toDay = (date: Date) => date.toISOString().slice(0, 10)
const isoWeekday = (date: Date) => date.getUTCDay() || 7

export function isWorkingDay(calendar: WorkingCalendar, day: string): boolean {
  return calendar.workingWeekdays.includes(isoWeekday(toDate(day))) && !calendar.closedDays.has(day)
}

/** The day `days` calendar days after `day`. */
export function addDays(day: string, days: number): string {
  return toDay(new Date(toDate(day).getTime() + days * DAY))
}

/** The date of `at` in a time zone (an IANA name the caller has checked). */
export function dayIn(timeZone: string, at: Date): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at)
}

/**
 * Working days from `from` to `to`: those after `from` up to and including
 * `to`, negative when `to` comes first (a late order's working days past due).
 */
export function workingDaysBetween(calendar: WorkingCalendar, from: string, to: string): number {
  if (from === to) return 0
  const [start, end, sign] = from < to ? [from, to, 1] : [to, from, -1]
  let count = 0
  for (let day = addDays(start, 1); day <= end; day = addDays(day, 1)) {
    if (isWorkingDay(calendar, day)) count++
  }
  return sign * count
}

/** The working day `lead` working days after `ordered` (from the next working day when it is closed). */
export function dueDay(calendar: WorkingCalendar, ordered: string, lead: number): string {
  let day = ordered
  while (!isWorkingDay(calendar, day)) day = addDays(day, 1)
  for (let left = lead; left > 0; left--) {
    day = addDays(day, 1)
    while (!isWorkingDay(calendar, day)) day = addDays(day, 1)
  }
  return day
}

/** Whether a time zone is one the platform can keep its calendar in. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}
