import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BOARD_COUNT_CAP } from '../../src/modules/production/board/board.service.ts'
import { CalendarBody } from '../../src/modules/production/calendar/calendar.console.schemas.ts'
import { MAX_CLOSED_DAYS } from '../../src/modules/production/calendar/calendar.service.ts'
import { LeadTimeBody } from '../../src/modules/products/products.dashboard.schemas.ts'
import {
  dueWords,
  formatDay,
  isLate,
  localDay,
  BOARD_COUNT_CAP as WEB_COUNT_CAP,
} from '../../web/src/features/production/lib/due-words.ts'
import { CALENDAR_LIMITS } from '../../web/src/lib/limits.ts'

/** What the board, the production order page and the order page say of a due date (production/lib/due-words.ts). */
test('the console says late with the working days past, due today, or the working days left', () => {
  assert.equal(dueWords(null), 'Not dated yet')
  assert.equal(dueWords({ on: '2026-12-02', state: 'late', working_days_left: -2 }), 'Late (2 working days)')
  assert.equal(dueWords({ on: '2026-12-03', state: 'late', working_days_left: -1 }), 'Late (1 working day)')
  // Past due on a day production does not work (a Saturday after a Friday due date): late, no days counted.
  assert.equal(dueWords({ on: '2026-12-04', state: 'late', working_days_left: 0 }), 'Late')
  assert.equal(dueWords({ on: '2026-12-04', state: 'today', working_days_left: 0 }), 'Due today')
  assert.equal(dueWords({ on: '2026-12-07', state: 'upcoming', working_days_left: 1 }), '1 working day left')
  assert.equal(dueWords({ on: '2026-12-10', state: 'upcoming', working_days_left: 4 }), '4 working days left')
})

test("a member's order is late once its due day has passed while production is pending or in production", () => {
  const today = '2026-12-08'
  assert.equal(isLate('2026-12-07', 'pending', today), true)
  assert.equal(isLate('2026-12-07', 'in_progress', today), true)
  assert.equal(isLate('2026-12-08', 'pending', today), false, 'due today is not late')
  assert.equal(isLate('2026-12-09', 'in_progress', today), false)
  for (const done of ['completed', 'failed', 'cancelled'])
    assert.equal(isLate('2026-12-01', done, today), false)
  assert.equal(isLate(null, 'pending', today), false, 'not dated yet')
  assert.equal(isLate('2026-12-01', undefined, today), false, 'a test order has no production order')
})

test("dates read as the reader's calendar day, whatever the time zone", () => {
  assert.equal(localDay(new Date(2026, 11, 4, 23, 59)), '2026-12-04')
  assert.equal(localDay(new Date(2027, 0, 1, 0, 0)), '2027-01-01')
  // The day written is the due date itself, not shifted by the reader's offset from UTC.
  assert.match(formatDay('2026-12-04'), /4/)
  assert.match(formatDay('2026-12-04'), /2026/)
  assert.doesNotMatch(formatDay('2026-12-04'), /\b3\b/)
})

test("the calendar and lead time forms' limits are the service's", () => {
  const lead = CalendarBody.properties.default_lead_time_days as unknown as {
    minimum: number
    maximum: number
  }
  assert.deepEqual(CALENDAR_LIMITS.leadTimeDays, { min: lead.minimum, max: lead.maximum })
  const product = LeadTimeBody.properties.lead_time_days.anyOf[0] as unknown as {
    minimum: number
    maximum: number
  }
  assert.deepEqual(CALENDAR_LIMITS.leadTimeDays, { min: product.minimum, max: product.maximum })
  assert.equal(CALENDAR_LIMITS.closedDays, MAX_CLOSED_DAYS)
  const note = CalendarBody.properties.closed_days.items.properties.note as unknown as { maxLength: number }
  assert.equal(CALENDAR_LIMITS.note.max, note.maxLength)
  const zone = CalendarBody.properties.time_zone as unknown as { minLength: number; maxLength: number }
  assert.deepEqual(CALENDAR_LIMITS.timeZone, { min: zone.minLength, max: zone.maxLength })
  assert.equal(WEB_COUNT_CAP, BOARD_COUNT_CAP)
})
