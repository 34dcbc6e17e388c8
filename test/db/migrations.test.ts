import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate, seedOrgWithEndpoint } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

test('upgrading with deliveries pending: their attempts move to the queue and their events get the body they send', async () => {
  const { db } = t
  await migrate(db, '2026-11-23-0005-delivery-pages-half-full')
  const org = '0193a000-0000-7000-8000-000000000001'
  const endpoint = '0193a000-0000-7000-8000-0000000000e1'
  const event = '0193a000-0000-7000-8000-0000000000a1'
  const [pending, claimed, done] = ['d1', 'd2', 'd3'].map((n) => `0193a000-0000-7000-8000-0000000000${n}`)
  await seedOrgWithEndpoint(db, org, endpoint)
  await sql`
    insert into events (id, organization_id, environment, type, order_id, data, created_at)
    values (${event}, ${org}, 'live', 'order.received', null,
            '{"order_id": "0193a000-0000-7000-8000-0000000000b1", "external_order_id": "A-1"}',
            timestamptz '2026-11-20T08:15:30.123Z')`.execute(db)
  await sql`
    insert into webhook_deliveries
      (id, event_id, endpoint_id, organization_id, environment, event_type, status, attempts, next_attempt_at,
       locked_until, locked_by, created_at)
    values
      (${pending}, ${event}, ${endpoint}, ${org}, 'live', 'order.received', 'pending', 2,
       timestamptz '2026-11-20T09:00:00Z', null, null, now()),
      (${claimed}, ${event}, ${endpoint}, ${org}, 'live', 'order.received', 'pending', 1,
       timestamptz '2026-11-20T08:15:30Z', timestamptz '2026-11-20T08:16:10Z', 'old-worker', now()),
      (${done}, ${event}, ${endpoint}, ${org}, 'live', 'order.received', 'succeeded', 1, null, null, null, now())`.execute(
    db,
  )

  await migrate(db, 'latest')
  const queue = await db.selectFrom('webhook_queue').selectAll().orderBy('delivery_id').execute()
  assert.deepEqual(
    queue.map((q) => [
      q.delivery_id,
      q.event_id,
      q.endpoint_id,
      q.attempts,
      q.next_attempt_at.toISOString(),
      q.locked_by,
    ]),
    [
      [pending, event, endpoint, 2, '2026-11-20T09:00:00.000Z', null],
      [claimed, event, endpoint, 1, '2026-11-20T08:15:30.000Z', 'old-worker'],
    ],
  )
  const { body } = await db
    .selectFrom('events')
    .select('body')
    .where('id', '=', event)
    .executeTakeFirstOrThrow()
  assert.deepEqual(JSON.parse(body), {
    id: event,
    type: 'order.received',
    created_at: '2026-11-20T08:15:30.123Z',
    api_version: 'v1',
    data: { order_id: '0193a000-0000-7000-8000-0000000000b1', external_order_id: 'A-1' },
  })
  const log = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'status', 'attempts'])
    .orderBy('id')
    .execute()
  assert.deepEqual(
    log.map((d) => [d.id, d.status, d.attempts]),
    [
      [pending, 'pending', 2],
      [claimed, 'pending', 1],
      [done, 'succeeded', 1],
    ],
  )

  // And back: the lease and the attempt count return to the log rows.
  await migrate(db, '2026-11-23-0005-delivery-pages-half-full')
  const { rows } = await sql<{ id: string; attempts: number; locked_by: string | null }>`
    select id, attempts, locked_by from webhook_deliveries order by id`.execute(db)
  assert.deepEqual(
    rows.map((r) => [r.id, r.attempts, r.locked_by]),
    [
      [pending, 2, null],
      [claimed, 1, 'old-worker'],
      [done, 1, null],
    ],
  )
  await migrate(db, 'latest')
})
