import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { sql } from 'kysely'
import { eventData, recordEvent } from '../../src/modules/webhooks/outbox/outbox.service.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts'
import { migrate, seedOrgWithEndpoint } from '../helpers/migrate.ts'

let t: TestDatabase
before(async () => {
  t = await createTestDatabase()
})
after(() => t.close())

test('upgrading: endpoints receive every type, order events get their sequence, counters continue', async () => {
  const { db } = t
  await migrate(db, '2026-11-25-0011-listen-sessions')
  const org = '0193a000-0000-7000-8000-000000000001'
  const endpoint = '0193a000-0000-7000-8000-0000000000e1'
  const order = '0193a000-0000-7000-8000-0000000000b1'
  // Ids out of time order: the numbering follows created_at.
  const [first, second, ping] = ['a3', 'a2', 'a1'].map((n) => `0193a000-0000-7000-8000-0000000000${n}`)
  await seedOrgWithEndpoint(db, org, endpoint)
  await sql`
    insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
      ordered_at, created_at, updated_at, content_hash, content_bytes)
    values (${order}, ${org}, 'live', 'api', 'A-1', 'pending', 'Jo', now(), now(), now(), 'h', 0)`.execute(db)
  const received = `{"order_id":"${order}","external_order_id":"A-1"}`
  // The second event's body as migration 0006 built bodies (PostgreSQL's JSON spacing).
  await sql`
    insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
    values
      (${first}, ${org}, 'live', 'order.received', ${order}, ${received}::json,
       ${`{"id":"${first}","type":"order.received","created_at":"2026-11-20T08:15:30.123Z","api_version":"v1","data":${received}}`},
       timestamptz '2026-11-20T08:15:30.123Z'),
      (${second}, ${org}, 'live', 'order.cancelled', ${order}, ${received}::json,
       ${`{"id" : "${second}", "type" : "order.cancelled", "created_at" : "2026-11-20T09:00:00.000Z", "api_version" : "v1", "data" : ${received}}`},
       timestamptz '2026-11-20T09:00:00.000Z'),
      (${ping}, ${org}, 'live', 'ping', null, '{"message":"hi"}'::json,
       ${`{"id":"${ping}","type":"ping","created_at":"2026-11-20T07:00:00.000Z","api_version":"v1","data":{"message":"hi"}}`},
       timestamptz '2026-11-20T07:00:00.000Z')`.execute(db)

  await migrate(db, 'latest')
  const [row] = await db.selectFrom('webhook_endpoints').select('enabled_events').execute()
  assert.deepEqual(row?.enabled_events, ['*'])
  const events = await sql<{ id: string; data: string; body: string }>`
    select id, data::text as data, body from events order by created_at`.execute(db)
  const one = `{"order_id":"${order}","external_order_id":"A-1","sequence":1}`
  const two = `{"order_id":"${order}","external_order_id":"A-1","sequence":2}`
  assert.deepEqual(events.rows, [
    {
      id: ping,
      data: '{"message":"hi"}',
      body: `{"id":"${ping}","type":"ping","created_at":"2026-11-20T07:00:00.000Z","api_version":"v1","data":{"message":"hi"}}`,
    },
    {
      id: first,
      data: one,
      body: `{"id":"${first}","type":"order.received","created_at":"2026-11-20T08:15:30.123Z","api_version":"v1","data":${one}}`,
    },
    {
      id: second,
      data: two,
      body: `{"id" : "${second}", "type" : "order.cancelled", "created_at" : "2026-11-20T09:00:00.000Z", "api_version" : "v1", "data" : ${two}}`,
    },
  ])
  for (const e of events.rows) JSON.parse(e.body)

  // The order's next event continues its count.
  const next = await db.transaction().execute((trx) =>
    recordEvent(trx, {
      organizationId: org,
      environment: 'live',
      type: 'order.production_started',
      orderId: order,
      data: eventData.production(
        { order_id: order, external_order_id: 'A-1' },
        { production_order_id: order, production_status: 'in_progress', produced_by_partner: false },
      ),
      at: new Date('2026-11-20T10:00:00.000Z'),
    }),
  )
  assert.equal(next.data.sequence, 3)
  // The endpoint listed every type, so it gets the new event.
  const deliveries = await db.selectFrom('webhook_deliveries').select(['event_id', 'endpoint_id']).execute()
  assert.deepEqual(deliveries, [{ event_id: next.id, endpoint_id: endpoint }])
})
