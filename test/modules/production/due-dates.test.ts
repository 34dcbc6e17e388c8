import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { foldOrderChanges } from '../../../src/modules/orders/changes/changes.repo.ts'
import { dueDay } from '../../../src/modules/production/calendar/working-days.ts'
import { manualClock, orderBody, rowCounts, useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

/** Due dates (docs/production.md): from lead times and the platform calendar, on the board and the order pages. */
describe('due dates', () => {
  // Friday 4 December 2026, 10:00 UTC.
  const clock = manualClock(new Date('2026-12-04T10:00:00.000Z'))
  const t = useTestApp({ clock })
  let key: string
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let poster: string
  const fold = async () => {
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
  }

  /** A live order with these items, folded: its id and production order's id. */
  async function order(items: Record<string, unknown>[], orderedAt = '2026-12-04T09:00:00.000Z') {
    const { id } = await createOrder(t, key, orderBody({ items, ordered_at: orderedAt }))
    await fold()
    const po = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', id)
      .executeTakeFirstOrThrow()
    return { id, po: po.id }
  }
  const card = { name: 'Card', quantity: 1 }
  const posters = { sku: 'POSTER-A2', name: 'Poster A2', quantity: 3 }

  const board = async (query: string) => {
    const res = await operator.client.call(
      'GET',
      `/operator/production?${query.includes('limit=') ? '' : 'limit=100&'}${query}`,
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as {
      data: {
        production_order: { id: string }
        due: { on: string; state: string; working_days_left: number } | null
      }[]
      next_cursor: string | null
    }
  }
  const dueOf = async (po: string) => {
    const res = await operator.client.call('GET', `/operator/production-orders/${po}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.due
  }
  const calendar = async () =>
    (await operator.client.call('GET', '/operator/production-calendar')).json().data
  const saveCalendar = (body: Record<string, unknown>) =>
    operator.client.call('PUT', '/operator/production-calendar', {
      time_zone: 'UTC',
      working_weekdays: [1, 2, 3, 4, 5],
      default_lead_time_days: 3,
      closed_days: [],
      ...body,
    })

  before(async () => {
    const tenant = await t.tenant('Due Prints')
    key = tenant.liveKey
    developer = await memberOf(t, tenant.orgId, 'developer')
    viewer = await memberOf(t, tenant.orgId, 'viewer')
    operator = await operatorOf(t)
    const created = await developer.client.call('POST', '/products', { sku: 'POSTER-A2', name: 'Poster A2' })
    assert.equal(created.statusCode, 201, created.body)
    poster = created.json().data.product.id
  })

  test('the database and the pages count working days alike', async () => {
    const closed = new Set(['2026-12-24', '2026-12-25', '2026-12-31', '2027-01-01'])
    await t.db
      .insertInto('closed_days')
      .values([...closed].map((day) => ({ day, note: '' })))
      .execute()
    const cases: [string, number][] = []
    for (let d = 0; d < 40; d++) {
      for (const lead of [0, 1, 3, 7])
        cases.push([new Date(Date.UTC(2026, 11, 1 + d, 12)).toISOString(), lead])
    }
    const result = await sql<{ due: string }>`
      select to_char(production_due_on(c.at::timestamptz, c.lead), 'YYYY-MM-DD') as due
      from unnest(${cases.map((c) => c[0])}::text[], ${cases.map((c) => c[1])}::int[]) with ordinality as c (at, lead, n)
      order by c.n`.execute(t.db)
    const calendar = { workingWeekdays: [1, 2, 3, 4, 5], closedDays: closed }
    assert.deepEqual(
      result.rows.map((r) => r.due),
      cases.map(([at, lead]) => dueDay(calendar, at.slice(0, 10), lead)),
    )
    await t.db.deleteFrom('closed_days').execute()
  })

  test("an order is due its items' longest lead time after it was placed, over working days", async () => {
    const set = await developer.client.call('PUT', `/products/${poster}/lead-time`, { lead_time_days: 5 })
    assert.equal(set.statusCode, 200, set.body)
    assert.equal(set.json().data.product.lead_time_days, 5)
    const plain = await order([card])
    const mixed = await order([card, posters])
    const saturday = await order([card], '2026-12-05T08:00:00.000Z')
    // Friday + 3 working days (the default) is Wednesday; + 5 (the poster) the next Friday.
    assert.deepEqual(await dueOf(plain.po), { on: '2026-12-09', state: 'upcoming', working_days_left: 3 })
    assert.deepEqual(await dueOf(mixed.po), { on: '2026-12-11', state: 'upcoming', working_days_left: 5 })
    assert.equal((await dueOf(saturday.po)).on, '2026-12-10', 'placed on Saturday: counted from Monday')
    const page = await developer.client.call('GET', `/orders/${mixed.id}`)
    assert.equal(page.json().data.order.due_on, '2026-12-11', "the member's order page shows it")
  })

  test('the board sorts by due date and filters late, due today and due by a day', async () => {
    const soon = await order([card], '2026-12-01T09:00:00.000Z') // due Friday the 4th: today
    const past = await order([card], '2026-11-25T09:00:00.000Z') // due Monday the 30th: late
    const rows = (await board('status=pending')).data
    const dues = rows.map((r) => r.due!.on)
    assert.deepEqual(dues, [...dues].sort(), 'soonest due first')
    assert.equal(rows[0]!.production_order.id, past.po)
    assert.deepEqual(rows[0]!.due, { on: '2026-11-30', state: 'late', working_days_left: -4 })
    const ids = async (q: string) => (await board(q)).data.map((r) => r.production_order.id)
    assert.deepEqual(await ids('due=late'), [past.po])
    assert.deepEqual(await ids('due=today'), [soon.po])
    assert.deepEqual(await ids('due_by=2026-12-04'), [past.po, soon.po])
    assert.deepEqual(await ids('status=completed&due=late'), [])
    const counts = await operator.client.call('GET', '/operator/production/due')
    assert.deepEqual(counts.json().data, { late: 1, today: 1, more: false })
    // Paging follows the same order across due dates.
    const paged: string[] = []
    let cursor: string | null = null
    do {
      const page = await board(`status=pending&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      paged.push(...page.data.map((r) => r.production_order.id))
      cursor = page.next_cursor
    } while (cursor)
    assert.deepEqual(
      paged,
      rows.map((r) => r.production_order.id),
    )
    const bad = await operator.client.call('GET', '/operator/production?cursor=bm9ybWFsfHh8eQ')
    assertError(bad, 422, 'validation_failed')
    // A completed order is no longer late.
    const done = await operator.client.call('POST', `/operator/production-orders/${past.po}/status`, {
      status: 'completed',
    })
    assert.equal(done.statusCode, 200, done.body)
    assert.deepEqual(await ids('due=late'), [])
  })

  test('closed days and a new lead time date the open orders again, audited', async () => {
    const o = await order([posters])
    assert.equal((await dueOf(o.po)).on, '2026-12-11')
    const saved = await saveCalendar({ closed_days: [{ day: '2026-12-08', note: 'Stocktaking' }] })
    assert.equal(saved.statusCode, 200, saved.body)
    assert.ok(saved.json().data.redated_orders >= 1)
    assert.deepEqual(saved.json().data.calendar.closed_days, [{ day: '2026-12-08', note: 'Stocktaking' }])
    assert.equal((await dueOf(o.po)).on, '2026-12-14', 'a day later, over the weekend')
    const lead = await developer.client.call('PUT', `/products/${poster}/lead-time`, { lead_time_days: 1 })
    assert.equal(lead.statusCode, 200, lead.body)
    assert.equal((await dueOf(o.po)).on, '2026-12-07')
    const none = await developer.client.call('PUT', `/products/${poster}/lead-time`, { lead_time_days: null })
    assert.equal(none.statusCode, 200, none.body)
    assert.equal(
      (await dueOf(o.po)).on,
      '2026-12-10',
      "the calendar's default: 3 working days, the 8th closed",
    )
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'subject'])
      .where('action', 'in', ['production.calendar_set', 'product.lead_time_set'])
      .orderBy('created_at')
      .execute()
    assert.deepEqual(
      actions.map((a) => a.action),
      ['product.lead_time_set', 'production.calendar_set', 'product.lead_time_set', 'product.lead_time_set'],
    )
    assert.equal((await saveCalendar({})).statusCode, 200)
  })

  test('days begin in the calendar time zone', async () => {
    assert.equal((await saveCalendar({ time_zone: 'Europe/Berlin' })).statusCode, 200)
    // 23:30 UTC on Friday is Saturday in Berlin: counted from Monday.
    const o = await order([card], '2026-12-04T23:30:00.000Z')
    assert.equal((await dueOf(o.po)).on, '2026-12-10')
    assert.equal((await calendar()).today, '2026-12-04')
    assert.equal((await saveCalendar({})).statusCode, 200)
    assert.equal((await dueOf(o.po)).on, '2026-12-09', 'in UTC it was placed on Friday')
  })

  test('a bad calendar or lead time is refused and changes nothing; members cannot set the calendar', async () => {
    const before = await calendar()
    const counts = await rowCounts(t.db)
    for (const [body, field] of [
      [{ time_zone: 'Mars/Olympus' }, 'time_zone'],
      [{ time_zone: 'UTC\u0000' }, 'time_zone'],
      [{ working_weekdays: [1, 1] }, 'working_weekdays'],
      [{ working_weekdays: [] }, 'working_weekdays'],
      [{ working_weekdays: [0] }, 'working_weekdays.0'],
      [{ default_lead_time_days: 91 }, 'default_lead_time_days'],
      [{ closed_days: [{ day: '2026-02-30', note: '' }] }, 'closed_days.0.day'],
      [{ closed_days: [{ day: '2026-12-24', note: 'x\u0000' }] }, 'closed_days.0.note'],
      [{ weekdays: [1] }, 'weekdays'],
    ] as const) {
      const res = await saveCalendar(body)
      assertError(res, 422, 'validation_failed')
      assert.equal(res.json().error.errors[0].field, field, JSON.stringify(body))
    }
    assert.deepEqual(await calendar(), before)
    assert.deepEqual(await rowCounts(t.db), counts)
    const member = await developer.client.call('GET', '/operator/production-calendar')
    assert.equal(member.statusCode, 403, member.body)
    const lead = await viewer.client.call('PUT', `/products/${poster}/lead-time`, { lead_time_days: 2 })
    assertError(lead, 403, 'role_required')
    for (const value of [-1, 91, 1.5, '2']) {
      const res = await developer.client.call('PUT', `/products/${poster}/lead-time`, {
        lead_time_days: value,
      })
      assertError(res, 422, 'validation_failed')
    }
    const admin = await t.admin('PUT', `/admin/v1/products/${poster}/lead-time`, { lead_time_days: 4 })
    assert.equal(admin.statusCode, 200, admin.body)
    assert.equal(admin.json().data.product.lead_time_days, 4)
  })
})
