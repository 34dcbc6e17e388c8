import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  dayIn,
  dueDay,
  isTimeZone,
  type WorkingCalendar,
  workingDaysBetween,
} from '../../../src/modules/production/calendar/working-days.ts'

const weekdays = (closed: string[] = []): WorkingCalendar => ({
  workingWeekdays: [1, 2, 3, 4, 5],
  closedDays: new Set(closed),
})

// 2026-12-04 is a Friday, 2026-12-05 a Saturday, 2026-12-07 a Monday.
describe('working days', () => {
  test('a due date counts working days after the day the order was placed', () => {
    assert.equal(dueDay(weekdays(), '2026-12-02', 1), '2026-12-03')
    assert.equal(dueDay(weekdays(), '2026-12-04', 1), '2026-12-07', 'over the weekend')
    assert.equal(dueDay(weekdays(), '2026-12-04', 3), '2026-12-09')
    assert.equal(dueDay(weekdays(), '2026-12-04', 0), '2026-12-04', 'lead time 0: the same day')
  })

  test('an order placed on a closed day counts from the next working day', () => {
    assert.equal(dueDay(weekdays(), '2026-12-05', 0), '2026-12-07')
    assert.equal(dueDay(weekdays(), '2026-12-05', 3), '2026-12-10')
    assert.equal(dueDay(weekdays(['2026-12-07']), '2026-12-05', 0), '2026-12-08', 'Monday closed too')
  })

  test('closed days and other working weeks move it on', () => {
    assert.equal(dueDay(weekdays(['2026-12-08', '2026-12-09']), '2026-12-04', 3), '2026-12-11')
    assert.equal(dueDay(weekdays(['2026-12-24', '2026-12-25']), '2026-12-23', 1), '2026-12-28')
    const sixDays = { workingWeekdays: [1, 2, 3, 4, 5, 6], closedDays: new Set<string>() }
    assert.equal(dueDay(sixDays, '2026-12-04', 1), '2026-12-05')
    const mondays = { workingWeekdays: [1], closedDays: new Set(['2026-12-14']) }
    assert.equal(
      dueDay(mondays, '2026-12-04', 2),
      '2026-12-28',
      'Mondays: the 7th, (14th closed), 21st, 28th',
    )
  })

  test('working days left: positive ahead, 0 today, negative past due', () => {
    assert.equal(workingDaysBetween(weekdays(), '2026-12-04', '2026-12-04'), 0)
    assert.equal(workingDaysBetween(weekdays(), '2026-12-04', '2026-12-09'), 3)
    assert.equal(workingDaysBetween(weekdays(), '2026-12-09', '2026-12-04'), -3)
    assert.equal(workingDaysBetween(weekdays(['2026-12-08']), '2026-12-04', '2026-12-09'), 2)
    assert.equal(workingDaysBetween(weekdays(), '2026-12-05', '2026-12-06'), 0, 'a weekend holds none')
  })

  test('days are read in the calendar time zone; unknown zones are refused', () => {
    const late = new Date('2026-12-04T23:30:00Z')
    assert.equal(dayIn('UTC', late), '2026-12-04')
    assert.equal(dayIn('Europe/Berlin', late), '2026-12-05')
    assert.equal(dayIn('America/New_York', new Date('2026-12-05T03:00:00Z')), '2026-12-04')
    assert.equal(isTimeZone('Europe/Berlin'), true)
    assert.equal(isTimeZone('Mars/Olympus'), false)
    assert.equal(isTimeZone('UTC\u0000'), false)
  })
})
