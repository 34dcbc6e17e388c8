import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { foldWebhookOutcomes, webhookDailyOutcomes } from '../../src/modules/webhooks/daily-outcomes.repo.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate, seedOrgWithEndpoint } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

test('upgrading: deliveries settled before are counted on the day of their last attempt; pending ones are not', async () => {
  const { db } = t
  await migrate(db, '2026-11-29-0030-audit-log-filters')
  const org = '0193a000-0000-7000-8000-000000000001'
  const endpoint = '0193a000-0000-7000-8000-0000000000e1'
  await seedOrgWithEndpoint(db, org, endpoint)
  const deliveries = [
    // status, created (UTC), last attempt (UTC)
    ['succeeded', '2026-11-20T23:59:00Z', '2026-11-21T00:01:00Z'],
    ['succeeded', '2026-11-21T10:00:00Z', '2026-11-21T10:00:01Z'],
    ['failed', '2026-11-18T10:00:00Z', '2026-11-21T09:00:00Z'],
    // Failed without an attempt (its endpoint was disabled): the day it was created.
    ['failed', '2026-11-19T10:00:00Z', null],
    ['pending', '2026-11-21T11:00:00Z', '2026-11-21T11:00:00Z'],
  ] as const
  for (const [status, created, attempted] of deliveries) {
    const event = (
      await sql<{ id: string }>`
        insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
        values (gen_random_uuid(), ${org}, 'live', 'order.received', null, '{}', '{}', ${created})
        returning id`.execute(db)
    ).rows[0]!.id
    await sql`
      insert into webhook_deliveries
        (id, event_id, endpoint_id, organization_id, environment, event_type, status, attempts, last_attempt_at,
         next_attempt_at, created_at)
      values (gen_random_uuid(), ${event}, ${endpoint}, ${org}, 'live', 'order.received', ${status},
        ${attempted ? 1 : 0}, ${attempted}, null, ${created})`.execute(db)
  }
  await migrate(db, 'latest')

  const expected = [
    { day: '2026-11-19', succeeded: 0, failed: 1 },
    { day: '2026-11-21', succeeded: 2, failed: 1 },
  ]
  assert.deepEqual(await webhookDailyOutcomes(db, 'live', '2026-11-01', org), expected)
  assert.deepEqual(await webhookDailyOutcomes(db, 'live', '2026-11-01'), expected)
  assert.deepEqual(await webhookDailyOutcomes(db, 'live', '2026-11-20', org), expected.slice(1))
  assert.deepEqual(await webhookDailyOutcomes(db, 'test', '2026-11-01', org), [])
  // Nothing waits to be folded: a fold changes nothing.
  assert.equal(await db.transaction().execute((trx) => foldWebhookOutcomes(trx, 100)), 0)
  assert.deepEqual(await webhookDailyOutcomes(db, 'live', '2026-11-01', org), expected)
})
