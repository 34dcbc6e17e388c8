import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { claimDue } from '../../../src/modules/webhooks/outbox/claim.repo.ts'
import { completeAttempts } from '../../../src/modules/webhooks/outbox/complete.repo.ts'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'

/** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
const setup = useDispatcherApp()

describe('webhook dispatcher: claims', () => {
  test('two dispatchers on one database deliver each event exactly once per endpoint', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 3 }) })
    const endpoints = [(await s.endpoint('/one')).endpoint, (await s.endpoint('/two')).endpoint]
    const N = 40
    // A backlog first, so both dispatchers race for the same rows from the start.
    for (let i = 0; i < N / 2; i++) await s.order()
    // A deadline far beyond the answers' 3 ms: on a loaded machine a timed-out attempt is
    // rightly sent again, which is not the double claim this test looks for.
    const dispatchers = await s.twoWorkers({ concurrency: 4, timeoutMs: 20_000 })
    assert.notEqual(dispatchers[0]!.workerId, dispatchers[1]!.workerId)
    // And more while both run.
    for (let i = 0; i < N / 2; i++) await s.order()
    await s.receiver.waitFor(N * 2, 30_000)
    await sleep(500)
    assert.equal(s.receiver.received.length, N * 2)
    const seen = new Set(s.receiver.received.map((r) => `${r.url} ${r.headers['x-service-event-id']}`))
    assert.equal(seen.size, N * 2, 'every (event, endpoint) exactly once')
    for (const e of endpoints) {
      const rows = await s.deliveries(e.id)
      assert.equal(rows.length, N)
      assert.ok(rows.every((r) => r.status === 'succeeded' && r.attempts === 1))
    }
  })

  test('the queue and the log are analyzed and vacuumed after a fixed number of changed rows, not a share of the table, and leave room for HOT updates', async (ctx) => {
    const s = await setup(ctx)
    for (const table of ['webhook_queue', 'webhook_deliveries']) {
      const { rows } = await sql<{ reloptions: string[] }>`
        select reloptions from pg_class where oid = ${table}::regclass`.execute(s.t.db)
      assert.deepEqual(
        [...rows[0]!.reloptions].sort(),
        [
          'autovacuum_analyze_scale_factor=0',
          'autovacuum_analyze_threshold=5000',
          'autovacuum_vacuum_scale_factor=0',
          'autovacuum_vacuum_threshold=20000',
          'fillfactor=50',
        ],
        table,
      )
    }
  })

  test('claims and results of a backlog are HOT updates and deletes: they leave the indexes alone', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/hot')
    // A backlog written as the fan-out writes it, due before anything else.
    await sql`
      with e as (
        insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
        select gen_random_uuid(), ${s.tenant.orgId}, 'live', 'order.received', null, '{}'::jsonb, '{}', now()
        from generate_series(1, 400)
        returning id
      ),
      d as (
        insert into webhook_deliveries
          (id, event_id, endpoint_id, organization_id, environment, event_type, status, next_attempt_at, created_at)
        select gen_random_uuid(), e.id, ${endpoint.id}, ${s.tenant.orgId}, 'live', 'order.received', 'pending',
               timestamptz '2000-01-01' + row_number() over () * interval '1 millisecond', now()
        from e
        returning id, event_id, endpoint_id, next_attempt_at
      )
      insert into webhook_queue (delivery_id, event_id, endpoint_id, next_attempt_at, attempts)
      select id, event_id, endpoint_id, next_attempt_at, 0 from d`.execute(s.t.db)
    const counts = await s.t.db.transaction().execute(async (trx) => {
      // The backend's counters may still hold earlier transactions' counts
      // (reported to the shared statistics later): each step is the difference.
      const read = async () =>
        (
          await sql<{ queue: number[]; log: number[] }>`
            select array[pg_stat_get_xact_tuples_updated(q), pg_stat_get_xact_tuples_hot_updated(q),
                         pg_stat_get_xact_tuples_deleted(q)]::int[] as queue,
                   array[pg_stat_get_xact_tuples_updated(l), pg_stat_get_xact_tuples_hot_updated(l)]::int[] as log
            from (select 'webhook_queue'::regclass as q, 'webhook_deliveries'::regclass as l) t`.execute(trx)
        ).rows[0]!
      const diff = (a: number[], b: number[]) => a.map((n, i) => n - b[i]!)
      const before = await read()
      const claimed = await claimDue(trx, { limit: 256, now: new Date(), leaseMs: 60_000, workerId: 'w' })
      const afterClaim = await read()
      const now = new Date()
      await completeAttempts(
        trx,
        'w',
        claimed.map((c) => ({
          deliveryId: c.id,
          endpointId: c.endpoint_id,
          status: 'succeeded' as const,
          errorCode: null,
          errorMessage: null,
          responseStatus: 200,
          snippet: null,
          durationMs: 1,
          nextAttemptAt: null,
          startedAt: now,
          at: now,
          counts: true,
          probeAt: null,
          signedAt: null,
        })),
        25,
      )
      const afterResults = await read()
      return {
        claimed: claimed.length,
        claims: diff(afterClaim.queue, before.queue),
        results: {
          queue: diff(afterResults.queue, afterClaim.queue),
          log: diff(afterResults.log, afterClaim.log),
        },
      }
    })
    assert.equal(counts.claimed, 256)
    const [updated, hot] = counts.claims
    assert.equal(updated, 256)
    assert.ok(hot! / updated! >= 0.75, `${hot} of ${updated} claims were HOT updates`)
    // A finished delivery leaves the queue, and its log row takes the result
    // without touching an index (all but those on a page that earlier tests'
    // rows had filled: 238 of 256 here, every one on a fresh backlog).
    assert.deepEqual(counts.results.queue, [0, 0, 256])
    const [logUpdated, logHot] = counts.results.log
    assert.equal(logUpdated, 256)
    assert.ok(logHot! / logUpdated! >= 0.85, `${logHot} of ${logUpdated} results were HOT updates`)
    const log = await s.deliveries(endpoint.id)
    assert.equal(log.filter((d) => d.status === 'succeeded' && d.attempts === 1).length, 256)
  })

  test("the worker's claims and results commit asynchronously, and only they: the session stays synchronous", async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/hook')
    await s.order()
    const show = async (db: Database) =>
      (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db)).rows[0]!
        .synchronous_commit
    // One connection, so every statement below runs in the same session.
    await s.t.db.connection().execute(async (conn) => {
      assert.equal(await show(conn), 'on')
      const claimed = await conn.transaction().execute(async (trx) => {
        const rows = await claimDue(trx, { limit: 10, now: new Date(), leaseMs: 60_000, workerId: 'w' })
        // Inside the claim's transaction: its commit will not wait for the disk.
        assert.equal(await show(trx), 'off')
        return rows
      })
      assert.equal(claimed.length, 1)
      // The setting ended with that transaction.
      assert.equal(await show(conn), 'on')
      await conn.transaction().execute(async (trx) => {
        const result = {
          deliveryId: claimed[0]!.id,
          endpointId: endpoint.id,
          status: 'succeeded' as const,
          errorCode: null,
          errorMessage: null,
          responseStatus: 200,
          snippet: null,
          durationMs: 5,
          nextAttemptAt: null,
          startedAt: new Date(),
          at: new Date(),
          counts: true,
          probeAt: null,
          signedAt: null,
        }
        await completeAttempts(trx, 'w', [result], 25)
        assert.equal(await show(trx), 'off')
      })
      assert.equal(await show(conn), 'on')
    })
    const [row] = await s.deliveries(endpoint.id)
    assert.equal(row!.status, 'succeeded')
  })

  test('attempts held by a slow endpoint do not hold back another endpoint, even with fewer free slots than a claim batch', async (ctx) => {
    const s = await setup(ctx, {
      respond: (req) => (req.url === '/slow' ? { status: 200, delayMs: 3000 } : { status: 200 }),
    })
    await s.endpoint('/slow')
    // Four slots, claims of four: three slow attempts leave one free slot.
    await s.dispatch({ concurrency: 4, timeoutMs: 5000 })
    for (let i = 0; i < 3; i++) await s.order()
    await s.receiver.waitFor(3)
    const { row, waited } = await s.deliveredElsewhere()
    assert.equal(row.attempts, 1)
    assert.ok(waited < 2000, `delivered after ${waited} ms, while the slow attempts take 3 000 ms`)
    assert.equal(s.receiver.received.filter((r) => r.url === '/slow').length, 3)
  })

  test('at most endpointConcurrency attempts in flight to one endpoint; its waiting attempts do not hold back another endpoint', async (ctx) => {
    let open = 0
    let most = 0
    const s = await setup(ctx, {
      respond: (req) => {
        if (req.url !== '/slow') return { status: 200 }
        open++
        most = Math.max(most, open)
        // The receiver answers after delayMs; the request counts as open until then.
        setTimeout(() => open--, 400)
        return { status: 200, delayMs: 400 }
      },
    })
    const { endpoint: slow } = await s.endpoint('/slow')
    await s.dispatch({ concurrency: 8, endpointConcurrency: 2, timeoutMs: 5000 })
    for (let i = 0; i < 6; i++) await s.order()
    await s.receiver.waitFor(2)
    // Two at once, while four wait for the slow endpoint; another endpoint is served meanwhile.
    const { row, waited } = await s.deliveredElsewhere()
    assert.ok(waited < 600, `delivered after ${waited} ms, while the slow endpoint takes 400 ms per pair`)
    assert.equal(row.attempts, 1)
    const done = await waitUntil(async () => {
      const rows = await s.deliveries(slow.id)
      return rows.length === 6 && rows.every((r) => r.status === 'succeeded') && rows
    }, 'the slow endpoint’s six deliveries')
    assert.deepEqual(
      done.map((r) => r.attempts),
      [1, 1, 1, 1, 1, 1],
    )
    assert.equal(s.receiver.received.filter((r) => r.url === '/slow').length, 6)
    assert.equal(most, 2, 'two requests open at once to the slow endpoint, never more')
    assert.deepEqual(await s.queued(slow.id), [])
  })

  test('a slow endpoint whose attempts wait for it is left out of further claims, so it does not crowd out another endpoint', async (ctx) => {
    const s = await setup(ctx, {
      respond: (req) => (req.url === '/slow' ? { status: 200, delayMs: 800 } : { status: 200 }),
    })
    const { endpoint: slow } = await s.endpoint('/slow')
    for (let i = 0; i < 12; i++) await s.order()
    // Four slots, two at once per endpoint, claims of four: the first claim
    // takes eight slow attempts (two sending, six waiting).
    await s.dispatch({ concurrency: 4, endpointConcurrency: 2, timeoutMs: 5000 })
    await s.receiver.waitFor(2)
    // When the first two slow attempts end, two more start and four still
    // wait, claimed 800 ms ago: the next claim leaves the slow endpoint's four
    // other due attempts alone and takes the other endpoint's.
    const { row, waited } = await s.deliveredElsewhere()
    const slowSoFar = s.receiver.received.filter((r) => r.url === '/slow').length
    assert.ok(waited < 1500, `delivered after ${waited} ms; one slow round takes 800 ms`)
    assert.ok(slowSoFar <= 6, `${slowSoFar} slow attempts were sent before the other endpoint's`)
    assert.equal(row.attempts, 1)
    const done = await waitUntil(
      async () => {
        const rows = await s.deliveries(slow.id)
        return rows.every((r) => r.status === 'succeeded') && rows
      },
      'the slow endpoint’s backlog',
      15_000,
    )
    assert.equal(done.length, 12)
  })

  test('an attempt claimed by a worker that died is retried after its lease', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/hook')
    await s.order()
    // The dead worker: claims with a short lease and never finishes.
    const leaseMs = 800
    const claimedAt = Date.now()
    const claimed = await claimDue(s.t.db, {
      limit: 10,
      now: new Date(claimedAt),
      leaseMs,
      workerId: 'dead-worker',
    })
    assert.equal(claimed.length, 1)
    assert.equal(claimed[0]!.attempts, 1)

    await s.dispatch()
    await s.receiver.waitFor(1, 5000)
    const arrived = s.receiver.received[0]!.at
    assert.ok(
      arrived >= claimedAt + leaseMs,
      `retried ${arrived - claimedAt} ms after the claim, not before the lease ran out`,
    )
    assert.ok(arrived < claimedAt + leaseMs + 1500, 'soon after the lease ran out')
    const row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
    assert.equal(row.status, 'succeeded')
    assert.equal(row.attempts, 2, 'the dead worker’s claim counts as an attempt')
    assert.deepEqual(await s.queued(endpoint.id), [])
  })

  test('an attempt claimed ahead is sent within its lease or given back: two workers never send it both', async (ctx) => {
    // Every answer takes 700 ms; a lease only 100 ms longer than the deadline.
    // Each worker holds two attempts in flight and one claimed ahead, which
    // waits about 700 ms for a slot: sent then, it could still be in flight
    // when its lease ran out and the other worker took it.
    const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 700 }) })
    const { endpoint } = await s.endpoint('/slow')
    const N = 8
    for (let i = 0; i < N; i++) await s.order()
    await s.twoWorkers({ concurrency: 2, timeoutMs: 1000, leaseMs: 1100 })
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
      'every delivery to succeed',
      20_000,
    )
    const ids = s.receiver.received.map((r) => r.headers['x-service-event-id'])
    assert.equal(new Set(ids).size, N)
    assert.equal(ids.length, N, 'no event was sent twice')
    const rows = await s.deliveries(endpoint.id)
    assert.ok(
      rows.every((r) => r.attempts === 1),
      'claims given back unsent are not counted as attempts',
    )
  })

  test('stop() gives back the attempts claimed ahead, unsent and uncounted', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 2500 }) })
    const { endpoint } = await s.endpoint('/hook')
    // One slot: the second delivery waits, claimed, for the first to finish.
    const worker = await s.dispatch({ concurrency: 1, timeoutMs: 5000 })
    await s.order()
    await s.order()
    await s.receiver.waitFor(1)
    await waitUntil(
      async () => (await s.queued(endpoint.id)).filter((q) => q.locked_by === worker.workerId).length === 2,
      'both attempts to be claimed',
    )
    await worker.stop(100)
    const queue = await s.queued(endpoint.id)
    assert.equal(queue.length, 2)
    assert.ok(queue.every((q) => q.attempts === 0 && q.locked_by === null && q.locked_until === null))
    assert.equal(s.receiver.received.length, 1, 'the waiting attempt was not sent')
  })

  test('stop() gives unfinished claims back', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 2500 }) })
    const { endpoint } = await s.endpoint('/hook')
    const first = await s.dispatch({ timeoutMs: 5000 })
    await s.order()
    await s.receiver.waitFor(1)
    const [inFlight] = await s.queued(endpoint.id)
    assert.equal(inFlight!.attempts, 1)
    assert.ok(inFlight!.locked_until && inFlight!.locked_by === first.workerId)

    await first.stop(100)
    const [given] = await s.queued(endpoint.id)
    assert.equal(given!.attempts, 0, 'the attempt that did not finish is not counted')
    assert.equal(given!.locked_until, null)
    assert.equal(given!.locked_by, null)
    let row = (await s.deliveries(endpoint.id))[0]!
    assert.equal(row.status, 'pending')
    assert.equal(row.attempts, 0)
    assert.equal(row.error_code, null)

    s.receiver.setHandler(() => ({ status: 200 }))
    await s.dispatch()
    await s.receiver.waitFor(2)
    row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
    assert.equal(row.status, 'succeeded')
    assert.equal(row.attempts, 1)
    assert.equal(
      s.receiver.received[1]!.headers['x-service-event-id'],
      s.receiver.received[0]!.headers['x-service-event-id'],
    )
  })

  test('an idle worker delivers a new order’s event fast (woken by NOTIFY, not by polling)', async (ctx) => {
    const s = await setup(ctx)
    await s.endpoint('/hook')
    // A poll interval far longer than the assertion: only the wake-up can be this fast.
    await s.dispatch({ pollIntervalMs: 60_000 })
    await sleep(100)
    const latencies: number[] = []
    for (let i = 0; i < 5; i++) {
      const started = Date.now()
      await s.order()
      await s.receiver.waitFor(i + 1, 5000)
      latencies.push(s.receiver.received[i]!.at - started)
      await sleep(50)
    }
    assert.ok(
      latencies.every((ms) => ms < 1000),
      `order creation to delivery: ${latencies.join(', ')} ms`,
    )
  })
})
