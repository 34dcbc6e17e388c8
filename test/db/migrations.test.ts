import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { foldOrderChanges } from '../../src/modules/orders/changes/changes.repo.ts'
import {
  foldWebhookOutcomes,
  webhookDailyOutcomes,
} from '../../src/modules/webhooks/deliveries/daily-outcomes.repo.ts'
import { eventData, recordEvent } from '../../src/modules/webhooks/outbox/outbox.service.ts'
import { type TestDatabase, useTestDatabase } from '../helpers/app.ts'
import { migrate, seedOrgWithEndpoint } from '../helpers/migrate.ts'

type Db = TestDatabase['db']

/** The organization Acme, as every schema writes it. */
function insertOrganization(db: Db, org: string) {
  return sql`insert into organizations (id, name, created_at) values (${org}, 'Acme', now())`.execute(db)
}

/**
 * An API order of customer Jo as the schemas since order content bytes write
 * it: ordered, created and updated at `at` (now by default), its external id
 * its id unless given.
 */
function insertOrder(
  db: Db,
  order: { id: string; org: string; environment: string; status: string; at?: string; external?: string },
) {
  const at = order.at ?? sql`now()`
  return sql`
    insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
      ordered_at, created_at, updated_at, content_hash, content_bytes)
    values (${order.id}, ${order.org}, ${order.environment}, 'api', ${order.external ?? order.id}, ${order.status},
      'Jo', ${at}, ${at}, ${at}, 'h', 0)`.execute(db)
}

/** An order's item without personalization or files, linked to `product` when given. */
function insertItem(
  db: Db,
  item: {
    order: string
    org: string
    position: number
    sku: string | null
    name: string
    quantity: number
    product?: string | null
  },
) {
  return sql`
    insert into order_items (id, order_id, organization_id, position, sku, name, quantity, product_id,
      personalization, files)
    values (gen_random_uuid(), ${item.order}, ${item.org}, ${item.position}, ${item.sku}, ${item.name},
      ${item.quantity}, ${item.product ?? null}, '{}', '[]')`.execute(db)
}

/** How many of these tables the schema has. */
async function tableCount(db: Db, names: string[]): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables
    where table_name = any(${names}) and table_schema = current_schema()`.execute(db)
  return rows[0]!.n
}

describe('delivery queue', () => {
  const t = useTestDatabase()

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
})

describe('API key usage', () => {
  const t = useTestDatabase()

  test('upgrading: existing keys were made by the operator and were never seen used; new keys name their maker', async () => {
    const { db } = t
    await migrate(db, '2026-11-26-0016-dashboard-accounts')
    const org = '0193a000-0000-7000-8000-000000000002'
    const key = '0193a000-0000-7000-8000-0000000000c1'
    await insertOrganization(db, org)
    await sql`
    insert into api_keys (id, organization_id, environment, scopes, key_prefix, key_hash, created_at)
    values (${key}, ${org}, 'live', '{orders:read}', 'svc_live_AbCd1234', 'hash', now())`.execute(db)

    await migrate(db, 'latest')
    const row = await db.selectFrom('api_keys').selectAll().where('id', '=', key).executeTakeFirstOrThrow()
    assert.equal(row.created_by, 'operator token')
    assert.equal(row.last_used_at, null)
    // No default remains: every new key says who made it.
    await assert.rejects(
      sql`insert into api_keys (id, organization_id, environment, scopes, key_prefix, key_hash, created_at)
      values ('0193a000-0000-7000-8000-0000000000c2', ${org}, 'test', '{}', 'svc_test_x', 'h2', now())`.execute(
        db,
      ),
    )

    await migrate(db, '2026-11-26-0016-dashboard-accounts')
    const columns = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_name = 'api_keys' and table_schema = current_schema()`.execute(db)
    assert.ok(!columns.rows.some((c) => ['created_by', 'last_used_at'].includes(c.column_name)))
    await migrate(db, 'latest')
  })
})

describe('event sequences', () => {
  const t = useTestDatabase()

  test('upgrading: endpoints receive every type, order events get their sequence, counters continue', async () => {
    const { db } = t
    await migrate(db, '2026-11-25-0011-listen-sessions')
    const org = '0193a000-0000-7000-8000-000000000001'
    const endpoint = '0193a000-0000-7000-8000-0000000000e1'
    const order = '0193a000-0000-7000-8000-0000000000b1'
    // Ids out of time order: the numbering follows created_at.
    const [first, second, ping] = ['a3', 'a2', 'a1'].map((n) => `0193a000-0000-7000-8000-0000000000${n}`)
    await seedOrgWithEndpoint(db, org, endpoint)
    await insertOrder(db, { id: order, org, environment: 'live', status: 'pending', external: 'A-1' })
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
})

describe('monthly usage', () => {
  const t = useTestDatabase()

  test('upgrading: the live orders stored before are counted per month and product, once; test orders are not', async () => {
    const { db } = t
    await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
    const org = '0193a000-0000-7000-8000-000000000001'
    const product = '0193a000-0000-7000-8000-0000000000f1'
    await insertOrganization(db, org)
    await sql`insert into products (id, organization_id, sku, name, created_at)
    values (${product}, ${org}, 'MUG', 'Mug', now())`.execute(db)
    const orders = [
      // id, environment, status, created (UTC), items (sku, quantity), still waiting in order_changes
      [
        '0193a000-0000-7000-8000-0000000000b1',
        'live',
        'pending',
        '2026-10-31T23:30:00Z',
        [['MUG', 2]],
        false,
      ],
      [
        '0193a000-0000-7000-8000-0000000000b2',
        'live',
        'cancelled',
        '2026-11-01T00:10:00Z',
        [
          ['MUG', 1],
          [null, 4],
        ],
        false,
      ],
      [
        '0193a000-0000-7000-8000-0000000000b3',
        'test',
        'pending',
        '2026-11-02T10:00:00Z',
        [['MUG', 9]],
        false,
      ],
      [
        '0193a000-0000-7000-8000-0000000000b4',
        'live',
        'pending',
        '2026-11-03T10:00:00Z',
        [['CARD', 3]],
        true,
      ],
    ] as const
    for (const [id, environment, status, created, items, waiting] of orders) {
      await insertOrder(db, { id, org, environment, status, at: created })
      for (const [position, [sku, quantity]] of items.entries()) {
        const linked = sku === 'MUG' ? product : null
        await insertItem(db, { order: id, org, position, sku, name: 'Thing', quantity, product: linked })
      }
      if (waiting) {
        await sql`insert into order_changes (order_id, organization_id, live, created, day, status, orders, items, quantity, at)
        values (${id}, ${org}, true, true, ${created.slice(0, 10)}, 'pending', 1, 1, 3, ${created})`.execute(
          db,
        )
      }
    }

    await migrate(db, 'latest')
    const usage = async () =>
      (
        await sql<{ month: string; orders: number; items: number; quantity: number }>`
        select to_char(month, 'YYYY-MM') as month, orders, items, quantity::int as quantity
        from monthly_usage where organization_id = ${org} order by month`.execute(db)
      ).rows
    const products = async () =>
      (
        await sql<{ month: string; orders: number; items: number; quantity: number }>`
        select to_char(month, 'YYYY-MM') as month, orders, items, quantity::int as quantity
        from monthly_product_usage where product_id = ${product} order by month`.execute(db)
      ).rows
    assert.deepEqual(await usage(), [
      { month: '2026-10', orders: 1, items: 1, quantity: 2 },
      { month: '2026-11', orders: 1, items: 2, quantity: 5 },
    ])
    assert.deepEqual(await products(), [
      { month: '2026-10', orders: 1, items: 1, quantity: 2 },
      { month: '2026-11', orders: 1, items: 1, quantity: 1 },
    ])
    // The order still waiting is counted by the fold, once.
    assert.equal(await db.transaction().execute((trx) => foldOrderChanges(trx, 100)), 1)
    assert.deepEqual(await usage(), [
      { month: '2026-10', orders: 1, items: 1, quantity: 2 },
      { month: '2026-11', orders: 2, items: 3, quantity: 8 },
    ])

    await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
    assert.equal(await tableCount(db, ['monthly_usage', 'monthly_product_usage']), 0)
    await migrate(db, 'latest')
  })
})

describe('operator accounts', () => {
  const t = useTestDatabase()

  test('upgrading: the operator token’s earlier entries join the platform-wide log, members’ do not', async () => {
    const { db } = t
    await migrate(db, '2026-11-26-0016-dashboard-accounts')
    const org = '0193a000-0000-7000-8000-000000000001'
    const account = '0193a000-0000-7000-8000-0000000000a1'
    await insertOrganization(db, org)
    const entry = (id: string, actorAccount: string | null, actor: string, action: string) => sql`
    insert into audit_log (id, organization_id, actor_account_id, actor, action, subject, details, address, created_at)
    values (${id}, ${org}, ${actorAccount}, ${actor}, ${action}, 'x@example.com', '{}', null, now())`
    await entry('0193a000-0000-7000-8000-0000000000e1', null, 'operator', 'member.invited').execute(db)
    await entry('0193a000-0000-7000-8000-0000000000e2', account, 'x@example.com', 'member.joined').execute(db)

    await migrate(db, 'latest')
    const rows = await sql<{ id: string; actor: string; by_operator: boolean }>`
    select id, actor, by_operator from audit_log order by id`.execute(db)
    assert.deepEqual(
      rows.rows.map((r) => [r.actor, r.by_operator]),
      [
        ['operator token', true],
        ['x@example.com', false],
      ],
    )
    // Platform entries have no organization; new tables exist.
    await sql`
    insert into audit_log (id, organization_id, actor_account_id, actor, action, subject, details, address, created_at, by_operator)
    values (gen_random_uuid(), null, null, 'operator token', 'operator.invited', 'o@example.com', '{}', null, now(), true)`.execute(
      db,
    )
    const counts = await sql<{ operators: number; invitations: number }>`
    select (select count(*)::int from operators) as operators,
           (select count(*)::int from operator_invitations) as invitations`.execute(db)
    assert.deepEqual(counts.rows[0], { operators: 0, invitations: 0 })
  })
})

describe('order content bytes', () => {
  const t = useTestDatabase()

  test('upgrading: existing orders get the size of their items, so large ones page by the byte budget', async () => {
    const { db } = t
    await migrate(db, '2026-11-25-0007-delivery-queue')
    const org = '0193a000-0000-7000-8000-000000000001'
    const [large, empty] = ['0193a000-0000-7000-8000-0000000000b1', '0193a000-0000-7000-8000-0000000000b2']
    await insertOrganization(db, org)
    for (const id of [large, empty]) {
      await sql`
      insert into orders (id, organization_id, environment, source, external_order_id, status, customer_name,
        ordered_at, created_at, updated_at, content_hash)
      values (${id}, ${org}, 'live', 'api', ${id}, 'pending', 'Jo', now(), now(), now(), 'h')`.execute(db)
    }
    const text = 'x'.repeat(5000)
    const personalization = JSON.stringify(
      Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`f${k}`, text])),
    )
    for (let position = 0; position < 3; position++) {
      await sql`
      insert into order_items (id, order_id, organization_id, position, sku, name, quantity, personalization, files)
      values (gen_random_uuid(), ${large}, ${org}, ${position}, 'SKU', 'Mug', 1, ${personalization}::json, '[]')`.execute(
        db,
      )
    }

    await migrate(db, 'latest')
    const rows = await sql<{ id: string; content_bytes: number }>`
    select id, content_bytes from orders order by id`.execute(db)
    const bytes = Object.fromEntries(rows.rows.map((r) => [r.id, r.content_bytes]))
    assert.ok(bytes[large]! > 3 * personalization.length, `content_bytes ${bytes[large]}`)
    assert.ok(bytes[large]! < 3 * personalization.length + 3 * 400, `content_bytes ${bytes[large]}`)
    assert.equal(bytes[empty], 0)
  })
})

describe('order daily stats', () => {
  const t = useTestDatabase()

  test('upgrading: existing live orders are counted per UTC day and status, test orders are not', async () => {
    const { db } = t
    await migrate(db, '2026-11-26-0016-dashboard-accounts')
    const org = '0193a000-0000-7000-8000-000000000001'
    await insertOrganization(db, org)
    const orders = [
      ['0193a000-0000-7000-8000-0000000000b1', 'live', 'pending', '2026-11-20T23:59:59Z', [2, 1]],
      ['0193a000-0000-7000-8000-0000000000b2', 'live', 'pending', '2026-11-20T00:00:00Z', [5]],
      ['0193a000-0000-7000-8000-0000000000b3', 'live', 'completed', '2026-11-21T00:00:00Z', []],
      ['0193a000-0000-7000-8000-0000000000b4', 'test', 'pending', '2026-11-20T10:00:00Z', [7]],
    ] as const
    for (const [id, environment, status, created, quantities] of orders) {
      await insertOrder(db, { id, org, environment, status, at: created })
      for (const [position, quantity] of quantities.entries()) {
        await insertItem(db, { order: id, org, position, sku: 'SKU', name: 'Mug', quantity })
      }
    }

    await migrate(db, 'latest')
    const rows = await sql<{ day: string; status: string; orders: number; items: number; quantity: number }>`
    select day::text as day, status, sum(orders)::int as orders, sum(items)::int as items,
      sum(quantity)::int as quantity
    from order_daily_stats where organization_id = ${org} group by day, status order by day, status`.execute(
      db,
    )
    assert.deepEqual(rows.rows, [
      { day: '2026-11-20', status: 'pending', orders: 2, items: 3, quantity: 8 },
      { day: '2026-11-21', status: 'completed', orders: 1, items: 0, quantity: 0 },
    ])
  })
})

describe('order graph keys', () => {
  const t = useTestDatabase()

  const ORDER_GRAPH = [
    'orders',
    'events',
    'order_items',
    'production_orders',
    'production_jobs',
    'order_event_counters',
  ]

  /** The foreign keys of the tables an order writes, as `table.column -> parent`. */
  const orderGraphKeys = async () =>
    (
      await sql<{ key: string }>`
      select c.conrelid::regclass::text || '.' || a.attname || ' -> ' || c.confrelid::regclass::text as key
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and c.conrelid::regclass::text = any(${ORDER_GRAPH})
      order by 1`.execute(t.db)
    ).rows.map((r) => r.key)

  test('the order graph keeps only the foreign key to products; the migration back restores the others', async () => {
    await migrate(t.db, 'latest')
    assert.deepEqual(await orderGraphKeys(), ['order_items.product_id -> products'])
    await migrate(t.db, '2026-11-28-0023-order-changes')
    assert.deepEqual(await orderGraphKeys(), [
      'events.organization_id -> organizations',
      'order_event_counters.order_id -> orders',
      'order_items.order_id -> orders',
      'order_items.product_id -> products',
      'orders.organization_id -> organizations',
      'production_jobs.order_item_id -> order_items',
      'production_jobs.production_order_id -> production_orders',
      'production_orders.order_id -> orders',
    ])
    await migrate(t.db, 'latest')
  })
})

describe('order history index', () => {
  const t = useTestDatabase()

  test('0026 indexes the audit log by subject for order changes and cancels, 0040 adds releases and production, both come down again', async () => {
    const { db } = t
    const index = async () =>
      (
        await sql<{ indexdef: string }>`select indexdef from pg_indexes
        where indexname = 'audit_log_order_history_idx' and schemaname = current_schema()`.execute(db)
      ).rows.map((r) => r.indexdef)
    await migrate(db, 'latest')
    assert.match(
      (await index())[0]!,
      /\(subject, id\) WHERE \(?action = ANY \(ARRAY\['order\.changed'::text, 'order\.cancelled'::text, 'order\.released'::text, 'production\.status_set'::text, 'production\.job_completed'::text, 'production\.partner_set'::text\]\)\)?/,
    )
    await migrate(db, '2026-12-07-0039-batches-and-stations')
    const [definition] = await index()
    assert.match(
      definition!,
      /\(subject, id\) WHERE \(?action = ANY \(ARRAY\['order\.changed'::text, 'order\.cancelled'::text\]\)\)?/,
    )
    await migrate(db, '2026-11-28-0025-webhook-circuit-breaker')
    assert.deepEqual(await index(), [])
    await migrate(db, 'latest')
  })
})

describe('production board index', () => {
  const t = useTestDatabase()

  const boardIndex = async () =>
    (
      await sql<{ indexdef: string }>`
      select indexdef from pg_indexes
      where tablename = 'production_orders' and indexname = 'production_orders_board_idx'
        and schemaname = current_schema()`.execute(t.db)
    ).rows

  test('the production board index on (status, created_at, id) comes and goes with its migration', async () => {
    await migrate(t.db, '2026-11-26-0020-operator-accounts')
    assert.deepEqual(await boardIndex(), [])
    await migrate(t.db, 'latest')
    const [index] = await boardIndex()
    assert.match(index!.indexdef, /\(status, created_at, id\)/)
    await migrate(t.db, '2026-11-26-0020-operator-accounts')
    assert.deepEqual(await boardIndex(), [])
    await migrate(t.db, 'latest')
  })
})

describe('unmatched skus', () => {
  const t = useTestDatabase()

  test('upgrading: the unlinked items of existing orders are counted per sku; linked items and items without a sku are not', async () => {
    const { db } = t
    await migrate(db, '2026-11-26-0021-production-board')
    const org = '0193a000-0000-7000-8000-000000000001'
    const product = '0193a000-0000-7000-8000-0000000000f1'
    await insertOrganization(db, org)
    await sql`insert into products (id, organization_id, sku, name, created_at)
    values (${product}, ${org}, 'MUG', 'Mug', now())`.execute(db)
    const orders = [
      ['0193a000-0000-7000-8000-0000000000b1', 'live', '2026-11-20T10:00:00Z', ['CARD', 'CARD', 'MUG']],
      ['0193a000-0000-7000-8000-0000000000b2', 'test', '2026-11-21T10:00:00Z', ['CARD', null]],
      ['0193a000-0000-7000-8000-0000000000b3', 'live', '2026-11-19T10:00:00Z', ['POSTER']],
    ] as const
    for (const [id, environment, created, skus] of orders) {
      await insertOrder(db, { id, org, environment, status: 'pending', at: created })
      for (const [position, sku] of skus.entries()) {
        const linked = sku === 'MUG' ? product : null
        await insertItem(db, { order: id, org, position, sku, name: 'Thing', quantity: 1, product: linked })
      }
    }

    await migrate(db, 'latest')
    const rows = await sql<{ sku: string; items: number; orders: number; last_seen_at: Date }>`
    select sku, sum(items)::int as items, sum(orders)::int as orders, max(last_seen_at) as last_seen_at
    from unmatched_skus where organization_id = ${org} group by sku order by sku`.execute(db)
    assert.deepEqual(
      rows.rows.map((r) => ({ ...r, last_seen_at: r.last_seen_at.toISOString() })),
      [
        { sku: 'CARD', items: 3, orders: 2, last_seen_at: '2026-11-21T10:00:00.000Z' },
        { sku: 'POSTER', items: 1, orders: 1, last_seen_at: '2026-11-19T10:00:00.000Z' },
      ],
    )
    await migrate(db, '2026-11-26-0021-production-board')
    assert.equal(await tableCount(db, ['unmatched_skus']), 0)
    await migrate(db, 'latest')
  })
})

describe('webhook daily outcomes', () => {
  const t = useTestDatabase()

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
})

describe('due dates', () => {
  const t = useTestDatabase()

  test('upgrading: open production orders are dated with the default lead time; finished ones are not', async () => {
    const { db } = t
    await migrate(db, '2026-12-03-0037-rules-awaiting-preflight')
    const org = '0193a000-0000-7000-8000-000000000001'
    await insertOrganization(db, org)
    // Placed on Friday 4 December 2026: 3 working days later is Wednesday the 9th.
    for (const [n, status] of (['pending', 'in_progress', 'completed'] as const).entries()) {
      const id = `0193a000-0000-7000-8000-0000000000c${n}`
      await insertOrder(db, { id, org, environment: 'live', status, at: '2026-12-04T10:00:00Z' })
      await insertItem(db, { order: id, org, position: 0, sku: 'CARD', name: 'Card', quantity: 1 })
      await sql`insert into production_orders (id, order_id, status, created_at, updated_at)
        values (gen_random_uuid(), ${id}, ${status}, now(), now())`.execute(db)
    }
    await migrate(db, 'latest')
    const dated = await sql<{ status: string; due_on: string | null }>`
      select status, to_char(due_on, 'YYYY-MM-DD') as due_on from production_orders order by status`.execute(
      db,
    )
    assert.deepEqual(dated.rows, [
      { status: 'completed', due_on: null },
      { status: 'in_progress', due_on: '2026-12-09' },
      { status: 'pending', due_on: '2026-12-09' },
    ])
    await migrate(db, '2026-12-03-0037-rules-awaiting-preflight')
    assert.equal(await tableCount(db, ['production_calendar', 'closed_days']), 0)
    await migrate(db, 'latest')
  })
})
