import type { BoardEntry } from '../console/api/production.ts'

/**
 * Due dates in words: the console's (the service says late, today or
 * upcoming, and the working days left, in the production calendar) and the
 * member's (the date, and "late" once it has passed while production is open).
 */

/** A due date as the console's answers carry it (null: not dated yet). */
export type Due = NonNullable<BoardEntry['due']>

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "Late (2 working days)", "Due today", "3 working days left"; "Not dated yet" for null. */
export function dueWords(due: Due | null): string {
  if (!due) return 'Not dated yet'
  if (due.state === 'late') {
    const past = -due.working_days_left
    return past > 0 ? `Late (${plural(past, 'working day', 'working days')})` : 'Late'
  }
  if (due.state === 'today') return 'Due today'
  return `${plural(due.working_days_left, 'working day', 'working days')} left`
}

/** The badge's colour beside the words. */
export const DUE_COLOR: Record<Due['state'], string> = { late: 'red', today: 'orange', upcoming: 'gray' }

/** A plain date (YYYY-MM-DD) as the reader's locale writes it: "Tue, Dec 8, 2026". */
const dayFormat = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
})
export const formatDay = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`))

/** Today on the reader's own calendar (YYYY-MM-DD). */
export function localDay(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}

/** Production statuses still to be made: only they can be late. */
const OPEN = new Set(['pending', 'in_progress'])
export const isOpen = (productionStatus: string | null | undefined) => OPEN.has(productionStatus ?? '')

/**
 * Whether a member's order is late: dated, its production still open, and
 * its due day before `today` (the reader's day; the calendar's may differ
 * by a day around midnight).
 */
export function isLate(dueOn: string | null, productionStatus: string | null | undefined, today: string) {
  return dueOn !== null && isOpen(productionStatus) && dueOn < today
}

/** The late and due-today counts stop here ("1,000+"), as the board's do. */
export const BOARD_COUNT_CAP = 1000
