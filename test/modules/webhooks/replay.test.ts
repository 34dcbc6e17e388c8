import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { REPLAY_AHEAD } from '../../../src/modules/webhooks/replay-feeder.ts'
import type { TestApp } from '../../helpers/app.ts'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { NO_WEBHOOK_SCOPE, UNKNOWN_ID } from '../../helpers/webhook-endpoints.ts'

const setup = useDispatcherApp()

const REPLAY_KEYS = [
  'created_at',
  'endpoint_id',
  'event_types',
  'finished_at',
  'id',
  'only_failed',
  'queued',
  'since',
  'status',
  'total',
  'until',
]

/**
 * `n` events of an organization written in one statement, as the outbox
 * writes them (body included, each of its own order), recorded 1 ms apart
 * from `start`; data carries `external_order_id` SEED-<prefix>-<i>.
 */
async function seedEvents(
  t: TestApp,
  orgId: string,
  n: number,
  start: Date,
  opts: { type?: string; environment?: string; prefix?: string } = {},
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
    select id, ${orgId}::uuid, ${opts.environment ?? 'live'}::text, ${opts.type ?? 'order.received'}::text,
           (data->>'order_id')::uuid, data, json_build_object('id', id, 'type', ${opts.type ?? 'order.received'}::text,
             'created_at', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'api_version', 'v1', 'data', data)::text, at
    from (
      select uuid_v7() as id, ${start}::timestamptz + i * interval '1 millisecond' as at,
             json_build_object('order_id', gen_random_uuid(),
                               'external_order_id', ${`SEED-${opts.prefix ?? 'x'}-`}::text || i) as data
      from generate_series(1, ${n}::int) i
    ) s
    order by at
    returning id`.execute(t.db)
  return rows.map((r) => r.id)
}

/** The seeded number of each request the receiver got (fresh orders' events left out). */
const seeded = (bodies: Buffer[]) =>
  bodies
    .map((b) => (JSON.parse(b.toString()) as { data: { external_order_id: string } }).data.external_order_id)
    .filter((id) => id.startsWith('SEED-'))
    .map((id) => Number(id.split('-')[2]))

const replays = (t: TestApp, endpointId: string) =>
  t.db.selectFrom('webhook_replays').selectAll().where('endpoint_id', '=', endpointId).execute()

const hourAgo = () => new Date(Date.now() - 3600_000)

describe('webhook replay', () => {
  test('refusals: unknown, foreign and disabled endpoints, bad windows and types; nothing is stored', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/refusals')
    const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
    const since = hourAgo().toISOString()
    const key = s.tenant.liveKey
    await seedEvents(s.t, s.tenant.orgId, 3, hourAgo())

    const other = await s.t.tenant('Other')
    assertError(await s.t.api(other.liveKey, 'POST', path, { since }), 404, 'not_found')
    assertError(await s.t.api(s.tenant.testKey, 'POST', path, { since }), 404, 'not_found')
    assertError(
      await s.t.api(key, 'POST', `/v1/webhook-endpoints/${UNKNOWN_ID}/replay`, { since }),
      404,
      'not_found',
    )
    const narrow = await s.t.createKey(s.tenant.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
    assertError(await s.t.api(narrow.key, 'POST', path, { since }), 403, 'insufficient_scope')
    assertError(await s.t.api(key, 'GET', path), 404, 'not_found')

    assertValidation(await s.t.api(key, 'POST', path, {}), [['required', 'since']])
    assertValidation(await s.t.api(key, 'POST', path, { since: 'yesterday' }), [['invalid_format', 'since']])
    assertValidation(await s.t.api(key, 'POST', path, { since, event_types: ['order.received', 'ping'] }), [
      ['invalid_format', 'event_types.1'],
    ])
    assertValidation(await s.t.api(key, 'POST', path, { since, event_types: [] }), [
      ['too_few', 'event_types'],
    ])
    assertValidation(await s.t.api(key, 'POST', path, { since, only_failed: 'yes' }), [
      ['invalid_type', 'only_failed'],
    ])
    assertValidation(await s.t.api(key, 'POST', path, { since, from: since }), [['unknown_field', 'from']])
    assertValidation(await s.t.api(key, 'POST', path, { since, until: since }), [['invalid_format', 'until']])
    assert.deepEqual(await replays(s.t, endpoint.id), [])

    assert.equal((await s.t.api(key, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode, 200)
    assertValidation(await s.t.api(key, 'POST', path, { since }), [['invalid_format', 'id']])
    assert.deepEqual(await replays(s.t, endpoint.id), [])
    assert.deepEqual(await s.deliveries(endpoint.id), [])
  })

  test('chooses the window, the types and only the failed events; one running replay per endpoint (409); fed when a worker runs', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/choose')
    const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
    const key = s.tenant.liveKey
    const start = hourAgo()
    const received = await seedEvents(s.t, s.tenant.orgId, 4, start, { prefix: 'r' })
    const [cancelled] = await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() + 10), {
      type: 'order.cancelled',
      prefix: 'c',
    })
    // Outside the window, of another environment, another organization, and a ping: never chosen.
    await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() - 60_000), { prefix: 'early' })
    await seedEvents(s.t, s.tenant.orgId, 1, start, { environment: 'test', prefix: 'test' })
    await seedEvents(s.t, (await s.t.tenant('Elsewhere')).orgId, 1, start, { prefix: 'other' })
    await seedEvents(s.t, s.tenant.orgId, 1, start, { type: 'ping', prefix: 'ping' })
    // Earlier deliveries to this endpoint: received[0] failed, received[1] failed then succeeded, received[2] pending.
    const log = (eventId: string, status: string) =>
      s.t.db
        .insertInto('webhook_deliveries')
        .values({
          id: crypto.randomUUID(),
          event_id: eventId,
          endpoint_id: endpoint.id,
          organization_id: s.tenant.orgId,
          environment: 'live',
          event_type: 'order.received',
          status: status as 'failed',
          next_attempt_at: null,
          created_at: start,
        })
        .execute()
    await log(received[0]!, 'failed')
    await log(received[1]!, 'failed')
    await log(received[1]!, 'succeeded')
    await log(received[2]!, 'pending')
    await log(cancelled!, 'failed')

    const since = new Date(start.getTime() - 1).toISOString()
    const until = new Date(start.getTime() + 60_000).toISOString()
    const onlyFailed = await s.t.api(key, 'POST', path, {
      since,
      until,
      event_types: ['order.received'],
      only_failed: true,
    })
    assert.equal(onlyFailed.statusCode, 202, onlyFailed.body)
    const replay = onlyFailed.json().data.replay
    assert.deepEqual(Object.keys(replay).sort(), REPLAY_KEYS)
    assert.deepEqual(
      [
        replay.status,
        replay.total,
        replay.queued,
        replay.since,
        replay.until,
        replay.event_types,
        replay.only_failed,
      ],
      ['running', 1, 0, since, until, ['order.received'], true],
    )
    // No worker yet: it stays running, and a second replay of the endpoint is refused.
    assertError(await s.t.api(key, 'POST', path, { since }), 409, 'replay_in_progress')
    assert.equal((await replays(s.t, endpoint.id)).length, 1)

    await s.dispatch()
    await waitUntil(
      async () => (await s.t.api(key, 'GET', path)).json().data.replay.status === 'completed',
      'the replay',
    )
    const done = (await s.t.api(key, 'GET', path)).json().data.replay
    assert.deepEqual([done.id, done.total, done.queued], [replay.id, 1, 1])
    assert.ok(done.finished_at)
    await s.receiver.waitFor(1)
    assert.deepEqual(
      s.receiver.received.map((r) => r.headers['x-service-event-id']),
      [received[0]],
    )
    const entry = (await s.deliveries(endpoint.id)).find((d) => d.replay_id === replay.id)!
    assert.equal(entry.event_id, received[0])

    // All order events of the window, in recorded order.
    const all = await s.t.api(key, 'POST', path, { since, until })
    assert.equal(all.statusCode, 202, all.body)
    assert.equal(all.json().data.replay.total, 5)
    await s.receiver.waitFor(6)
    const ids = s.receiver.received.slice(1).map((r) => r.headers['x-service-event-id'])
    assert.deepEqual(new Set(ids), new Set([...received, cancelled]))
  })

  test('replays only the types the endpoint’s enabled_events take', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/filtered')
    const key = s.tenant.liveKey
    const patched = await s.t.api(key, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
      enabled_events: ['order.cancelled'],
    })
    assert.equal(patched.statusCode, 200, patched.body)
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, 3, start, { prefix: 'r' })
    const [cancelled] = await seedEvents(s.t, s.tenant.orgId, 1, new Date(start.getTime() + 10), {
      type: 'order.cancelled',
      prefix: 'c',
    })
    const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
    const asked = await s.t.api(key, 'POST', path, { since: new Date(start.getTime() - 1).toISOString() })
    assert.equal(asked.statusCode, 202, asked.body)
    assert.equal(asked.json().data.replay.total, 1)
    await s.dispatch()
    await s.receiver.waitFor(1)
    assert.deepEqual(
      s.receiver.received.map((r) => r.headers['x-service-event-id']),
      [cancelled],
    )
  })

  test('more than 10 000 matching events: 422 with the count, nothing stored', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/too-many')
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, 10_001, start)
    const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
      since: start.toISOString(),
    })
    const error = assertValidation(res, [['too_many', 'since']])
    assert.match(error.message, /10001 events match; a replay sends at most 10000: narrow the window/)
    assert.match(error.errors[0].message, /10001 events match/)
    assert.deepEqual(await replays(s.t, endpoint.id), [])
    const { n } = await s.t.db
      .selectFrom('webhook_replay_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    assert.equal(Number(n), 0)
  })

  test('a test endpoint’s replay matches nothing: pings are never replayed', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/test-env', { key: s.tenant.testKey })
    assert.equal(
      (await s.t.api(s.tenant.testKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).statusCode,
      202,
    )
    const res = await s.t.api(s.tenant.testKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
      since: hourAgo().toISOString(),
    })
    assert.equal(res.statusCode, 202, res.body)
    const replay = res.json().data.replay
    assert.deepEqual([replay.status, replay.total, replay.queued], ['completed', 0, 0])
    assert.ok(replay.finished_at)
  })

  test('deleting the endpoint cancels its running replay', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/cancel')
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, 5, start)
    const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
    const res = await s.t.api(s.tenant.liveKey, 'POST', path, { since: start.toISOString() })
    assert.equal(res.json().data.replay.status, 'running')
    assert.equal(
      (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode,
      200,
    )
    const after = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
    assert.deepEqual([after.status, after.total, after.queued], ['cancelled', 5, 0])
    const left = await s.t.db
      .selectFrom('webhook_replay_events')
      .select('seq')
      .where('replay_id', '=', after.id)
      .execute()
    assert.deepEqual(left, [])
  })

  test('operator: replay and its progress through /admin/v1', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/operator')
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, 3, start)
    const res = await s.t.admin('POST', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`, {
      since: start.toISOString(),
    })
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.json().data.replay.total, 3)
    await s.dispatch()
    await s.receiver.waitFor(3)
    const got = await s.t.admin('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`)
    assert.equal(got.statusCode, 200)
    await waitUntil(
      async () =>
        (await s.t.admin('GET', `/admin/v1/webhook-endpoints/${endpoint.id}/replay`)).json().data.replay
          .status === 'completed',
      'the replay to complete',
    )
    assertError(
      await s.t.admin('POST', `/admin/v1/webhook-endpoints/${UNKNOWN_ID}/replay`, {
        since: hourAgo().toISOString(),
      }),
      404,
      'not_found',
    )
  })

  test('two workers feed one replay: every event queued once, in recorded order', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/two')
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, 400, start)
    await s.twoWorkers({ replayAhead: 8 })
    const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/replay`, {
      since: start.toISOString(),
    })
    assert.equal(res.json().data.replay.total, 400)
    await s.receiver.waitFor(400, 60_000)
    const entries = (await s.deliveries(endpoint.id)).filter((d) => d.replay_id === res.json().data.replay.id)
    assert.equal(entries.length, 400, 'one log entry per event')
    assert.equal(new Set(entries.map((e) => e.event_id)).size, 400)
    const arrived = seeded(s.receiver.received.map((r) => r.body))
    assert.equal(new Set(arrived).size, 400)
  })

  // bench:webhooks-replay does the same with 10 000 events and times it.
  test('400 events replayed while orders arrive: the orders’ first attempts do not wait for the backlog (within 1 s on a quiet machine), every replayed event arrives in recorded order', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/big')
    const total = 400
    const start = hourAgo()
    await seedEvents(s.t, s.tenant.orgId, total, start)
    await s.dispatch()
    // A warm worker (its connection to the receiver open) before anything is measured.
    await s.order()
    await s.receiver.waitFor(1)
    const path = `/v1/webhook-endpoints/${endpoint.id}/replay`
    const res = await s.t.api(s.tenant.liveKey, 'POST', path, {
      since: start.toISOString(),
      until: new Date(start.getTime() + 60_000).toISOString(),
    })
    assert.equal(res.statusCode, 202, res.body)
    assert.equal(res.json().data.replay.total, total)
    const requested = Date.now()

    // Orders while the replay runs.
    const orders: string[] = []
    for (;;) {
      const replay = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
      if (replay.status !== 'running' || orders.length >= 40) break
      orders.push(await s.order())
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.ok(orders.length >= 1, 'an order arrived during the replay')
    await s.receiver.waitFor(1 + total + orders.length, 60_000)
    // Delivery is at least once: a copy may have counted above before the last fresh event came.
    const freshIds = () =>
      new Set(
        s.receiver.received
          .slice(1)
          .map((r) => JSON.parse(r.body.toString()) as { id: string; data: { external_order_id: string } })
          .filter((e) => !e.data.external_order_id.startsWith('SEED-'))
          .map((e) => e.id),
      ).size
    await waitUntil(() => freshIds() >= orders.length, 'every fresh order’s event', 60_000)

    // Each fresh event's first attempt (delivery is at least once: a later copy does not count).
    const firsts = new Map<string, number>()
    for (const r of s.receiver.received.slice(1)) {
      const event = JSON.parse(r.body.toString()) as {
        id: string
        created_at: string
        data: { external_order_id: string }
      }
      if (event.data.external_order_id.startsWith('SEED-') || firsts.has(event.id)) continue
      firsts.set(event.id, r.at - Date.parse(event.created_at))
    }
    assert.equal(firsts.size, orders.length)
    const delays = [...firsts.values()]
    // Within 1 s, or, on a machine so loaded that the replay itself slows down,
    // well within the time the replay took: never behind the backlog.
    const replayed = s.receiver.received.filter((r) => r.body.toString().includes('"SEED-'))
    const drainMs = replayed.at(-1)!.at - requested
    assert.ok(
      Math.max(...delays) < Math.max(1000, drainMs / 2),
      `fresh events' first attempts after ${delays.join(', ')} ms; the replay took ${drainMs} ms`,
    )

    const all = seeded(s.receiver.received.map((r) => r.body))
    const seen = new Set<number>()
    const arrived = all.filter((n) => !seen.has(n) && Boolean(seen.add(n)))
    assert.equal(arrived.length, total, 'every replayed event arrived')
    const entries = await s.t.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.count('event_id').distinct().as('events')])
      .where('replay_id', '=', res.json().data.replay.id)
      .executeTakeFirstOrThrow()
    assert.deepEqual([Number(entries.n), Number(entries.events)], [total, total], 'one log entry per event')
    // In recorded order, up to the attempts the worker sends at once.
    let highest = 0
    let displaced = 0
    for (const n of arrived) {
      highest = Math.max(highest, n)
      displaced = Math.max(displaced, highest - n)
    }
    assert.ok(displaced <= REPLAY_AHEAD, `an event arrived ${displaced} places late`)
    const replay = (await s.t.api(s.tenant.liveKey, 'GET', path)).json().data.replay
    assert.deepEqual([replay.status, replay.queued], ['completed', total])
  })
})
