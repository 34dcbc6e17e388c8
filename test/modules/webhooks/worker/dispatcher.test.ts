import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer as httpsCreateServer } from 'node:https'
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import Stripe from 'stripe'
import { verifyWebhook } from '../../../../packages/client/src/webhooks.ts'
import type { Database } from '../../../../src/db/database.ts'
import { loggerOptions } from '../../../../src/http/logging.ts'
import { newId } from '../../../../src/lib/ids.ts'
import { webhookQueueStats } from '../../../../src/modules/webhooks/deliveries/queue-stats.repo.ts'
import { claimDue } from '../../../../src/modules/webhooks/outbox/claim.repo.ts'
import { completeAttempts } from '../../../../src/modules/webhooks/outbox/complete.repo.ts'
import { eventData, recordEvent } from '../../../../src/modules/webhooks/outbox/outbox.service.ts'
import { releaseClaims } from '../../../../src/modules/webhooks/outbox/release.repo.ts'
import type { AttemptOutcome } from '../../../../src/modules/webhooks/worker/http-attempt.ts'
import { createTestApp, manualClock, OPERATOR_TOKEN, orderBody, type TestApp } from '../../../helpers/app.ts'
import { signature, useDispatcherApp } from '../../../helpers/dispatcher.ts'
import {
  loopbackResolver,
  type Receiver,
  startReceiver,
  testCertificate,
} from '../../../helpers/https-receiver.ts'
import { expectedEvent, useProductionEvents } from '../../../helpers/production-events.ts'
import { waitUntil } from '../../../helpers/wait.ts'
import { createEndpoint } from '../../../helpers/webhook-endpoints.ts'
import { closedPort, resolverWithWrongName } from '../../../helpers/webhook-targets.ts'

describe('claims', () => {
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
            traceId: null,
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
            traceId: null,
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
})

describe('circuit breaker', () => {
  /** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
  const setup = useDispatcherApp()

  const eventId = (r: { headers: Record<string, string | string[] | undefined> }) =>
    String(r.headers['x-service-event-id'])

  describe('webhook dispatcher: circuit breaker', () => {
    test('a blip costs one failure, not one per queued delivery; the waiting ones go after recovery, in order', async (ctx) => {
      let down = true
      const s = await setup(ctx, { respond: () => ({ status: down ? 503 : 204 }) })
      const { endpoint } = await s.endpoint('/hook')
      // One attempt in flight to the endpoint, so arrival order is sending order.
      await s.dispatch({ retryDelaysMs: [1500, 1500, 1500], endpointConcurrency: 1 })
      await s.order()
      await waitUntil(async () => (await s.endpointRow(endpoint.id)).consecutive_failures === 1, 'a failure')
      for (let i = 0; i < 10; i++) await s.order()
      await sleep(500)

      // While the receiver is down, its other deliveries wait: not sent, not counted, not failed.
      assert.equal(s.receiver.received.length, 1, 'only the first delivery was attempted')
      const ep = await s.endpointRow(endpoint.id)
      assert.equal(ep.consecutive_failures, 1)
      assert.equal(ep.is_active, true)
      assert.ok(ep.next_probe_at, 'the endpoint waits for its next probe')
      const waiting = await s.deliveries(endpoint.id)
      assert.equal(waiting.length, 11)
      assert.deepEqual(
        waiting.map((r) => [r.status, r.attempts]),
        [['pending', 1], ...Array.from({ length: 10 }, () => ['pending', 0])],
      )
      assert.ok(waiting.slice(1).every((r) => r.error_code === null && r.next_attempt_at !== null))
      const log = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      assert.ok(log.json().data.every((e: { status: string }) => e.status === 'pending'))
      // Waiting for the probe is not falling behind: the queue's metrics do not count them as due.
      const stats = await webhookQueueStats(s.t.db, new Date())
      assert.equal(stats.attempts, 11)
      assert.deepEqual([stats.due, stats.oldestDueAgeSeconds], [0, 0])

      down = false
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
        'every delivery to succeed after recovery',
      )
      const rows = await s.deliveries(endpoint.id)
      assert.deepEqual(
        rows.map((r) => r.attempts),
        [2, ...Array.from({ length: 10 }, () => 1)],
      )
      // The probe (the failed delivery's retry) first, then the backlog in the order it was recorded.
      const after = s.receiver.received.slice(1).map(eventId)
      assert.deepEqual(
        after,
        rows.map((r) => r.event_id),
      )
      const closed = await s.endpointRow(endpoint.id)
      assert.equal(closed.consecutive_failures, 0)
      assert.equal(closed.next_probe_at, null)
      assert.deepEqual(await s.queued(endpoint.id), [])
    })

    test('a receiver that stays down gets one probe at a time on the retry schedule, and the 25th failure disables it', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 500 }) })
      const { endpoint } = await s.endpoint('/down')
      for (let i = 0; i < 8; i++) await s.order()
      const delay = 60
      // Five attempts per delivery: the 25th failure is the fifth delivery's last.
      await s.dispatch({ retryDelaysMs: [delay, delay, delay, delay], endpointConcurrency: 1 })
      await waitUntil(
        async () => !(await s.endpointRow(endpoint.id)).is_active,
        'the endpoint to be disabled',
        20_000,
      )
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((r) => r.status !== 'pending'),
        'the pending deliveries to fail',
      )
      await sleep(200)
      const ep = await s.endpointRow(endpoint.id)
      assert.equal(ep.disabled_reason, 'too_many_failures')
      assert.equal(ep.consecutive_failures, 25)
      const received = s.receiver.received
      assert.equal(received.length, 25, 'no attempt after the 25th failure')
      // Every attempt after the first waited out a retry delay after the one before.
      const gaps = received.slice(1).map((r, i) => r.at - received[i]!.at)
      assert.ok(
        gaps.every((gap) => gap >= delay - 5),
        `gaps ${gaps.join(', ')} ms, each at least ${delay} ms`,
      )
      const rows = await s.deliveries(endpoint.id)
      assert.deepEqual(
        rows.map((r) => [r.attempts, r.error_code]),
        [
          ...Array.from({ length: 5 }, () => [5, 'http_error']),
          ...Array.from({ length: 3 }, () => [0, 'endpoint_disabled']),
        ],
      )
      assert.ok(rows.every((r) => r.status === 'failed' && r.next_attempt_at === null))
    })
    test('two workers on one database send a failing endpoint one probe at a time between them', async (ctx) => {
      let down = true
      const s = await setup(ctx, { respond: () => ({ status: down ? 503 : 204 }) })
      const { endpoint } = await s.endpoint('/hook')
      for (let i = 0; i < 12; i++) await s.order()
      const delay = 300
      await s.twoWorkers({ retryDelaysMs: [delay, delay, delay, delay], endpointConcurrency: 1 })
      await s.receiver.waitFor(1)
      await sleep(1000)
      // Probes go on meanwhile: read at a moment when every attempt made is
      // recorded, as failures and as attempts, and none arrived during the reads.
      let received: number[] = []
      let rows: Awaited<ReturnType<typeof s.deliveries>> = []
      let seen = ''
      await waitUntil(
        async () => {
          const made = s.receiver.received.length
          const failures = (await s.endpointRow(endpoint.id)).consecutive_failures
          rows = await s.deliveries(endpoint.id)
          const counted = rows.reduce((n, r) => n + r.attempts, 0)
          received = s.receiver.received.map((r) => r.at)
          seen = `${made} made, ${failures} failures and ${counted} attempts recorded, ${received.length} made after`
          return failures === made && counted === made && received.length === made
        },
        'every attempt made to be recorded as a failure and an attempt',
        { details: () => seen },
      )
      // At most one attempt on its way per worker when the first failure was
      // recorded; after that, one probe per retry delay between the two.
      const inFirstSecond = received.filter((at) => at - received[0]! <= 1000)
      assert.ok(inFirstSecond.length <= 2 + 4, `${inFirstSecond.length} attempts in 1 s`)
      const probes = received.slice(2)
      const gaps = probes.slice(1).map((at, i) => at - probes[i]!)
      assert.ok(
        gaps.every((gap) => gap >= delay - 5),
        `gaps ${gaps.join(', ')} ms between probes, each at least ${delay} ms`,
      )
      assert.ok(rows.every((r) => r.status === 'pending'))

      down = false
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((r) => r.status === 'succeeded'),
        'every delivery to succeed after recovery',
      )
      assert.equal((await s.endpointRow(endpoint.id)).consecutive_failures, 0)
      assert.equal(new Set(s.receiver.received.map(eventId)).size, 12)
    })
  })
})

describe('endpoints', () => {
  /** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
  const setup = useDispatcherApp()

  describe('webhook dispatcher: endpoints', () => {
    test('25 consecutive failures disable the endpoint; its pending deliveries fail with endpoint_disabled', async (ctx) => {
      const s = await setup(ctx, { respond: (req) => ({ status: req.url === '/bad' ? 500 : 200 }) })
      const bad = (await s.endpoint('/bad')).endpoint
      const good = (await s.endpoint('/good')).endpoint
      // Five attempts per delivery, six deliveries: the 25th failure comes with work left.
      // One attempt at a time, so none is in flight when the endpoint is disabled.
      await s.dispatch({ retryDelaysMs: [1, 1, 1, 1], concurrency: 1 })
      for (let i = 0; i < 6; i++) await s.order()
      await waitUntil(
        async () => !(await s.endpointRow(bad.id)).is_active,
        'the endpoint to be disabled',
        20_000,
      )
      await waitUntil(
        async () => (await s.deliveries(good.id)).every((r) => r.status === 'succeeded'),
        'the healthy endpoint to get everything',
      )
      // The worker fails the pending deliveries right after the statement that disabled the endpoint.
      await waitUntil(
        async () => (await s.deliveries(bad.id)).every((r) => r.status !== 'pending'),
        'the pending deliveries to fail',
      )
      const ep = await s.endpointRow(bad.id)
      assert.equal(ep.disabled_reason, 'too_many_failures')
      assert.equal(ep.consecutive_failures, 25)
      assert.ok(ep.disabled_at)
      const rows = await s.deliveries(bad.id)
      assert.equal(rows.length, 6)
      assert.ok(rows.every((r) => r.status === 'failed' && r.next_attempt_at === null))
      assert.equal(
        rows.reduce((n, r) => n + r.attempts, 0),
        25,
      )
      assert.ok(rows.some((r) => r.error_code === 'endpoint_disabled'))
      assert.ok(rows.every((r) => r.error_code === 'endpoint_disabled' || r.error_code === 'http_error'))
      assert.equal(s.receiver.received.filter((r) => r.url === '/bad').length, 25)
      assert.equal((await s.endpointRow(good.id)).is_active, true)

      // Nothing further: no delivery rows, no requests.
      await s.order()
      await waitUntil(async () => (await s.deliveries(good.id)).length === 7, 'the next order to fan out')
      await sleep(300)
      assert.equal((await s.deliveries(bad.id)).length, 6)
      assert.equal(s.receiver.received.filter((r) => r.url === '/bad').length, 25)

      const list = await s.t.api(s.tenant.liveKey, 'GET', '/v1/webhook-endpoints')
      const listed = list.json().data.find((e: { id: string }) => e.id === bad.id)
      assert.equal(listed.is_active, false)
      assert.equal(listed.disabled_reason, 'too_many_failures')
      const ping = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${bad.id}/test`)
      assert.equal(ping.statusCode, 422)
      assert.equal(ping.json().error.code, 'validation_failed')
    })

    test('after the 25th consecutive failure, attempts already claimed for the endpoint are not sent', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 500 }) })
      const { endpoint } = await s.endpoint('/bad')
      for (let i = 0; i < 30; i++) await s.order()
      // One attempt per delivery and one slot: the worker holds the next
      // delivery, claimed, while the 25th failure is recorded.
      await s.dispatch({ retryDelaysMs: [], concurrency: 1 })
      await waitUntil(
        async () => !(await s.endpointRow(endpoint.id)).is_active,
        'the endpoint to be disabled',
      )
      await waitUntil(
        async () => (await s.deliveries(endpoint.id)).every((r) => r.status !== 'pending'),
        'the pending deliveries to fail',
      )
      await sleep(300)
      assert.equal(s.receiver.received.length, 25)
      const rows = await s.deliveries(endpoint.id)
      assert.equal(rows.filter((r) => r.error_code === 'http_error').length, 25)
      assert.equal(rows.filter((r) => r.error_code === 'endpoint_disabled').length, 5)
      assert.deepEqual(await s.queued(endpoint.id), [])
    })

    test('fan-out: one delivery per active endpoint of the organization and environment', async (ctx) => {
      const s = await setup(ctx)
      const mine = await Promise.all(['/a', '/b', '/c'].map((p) => s.endpoint(p)))
      const deleted = await s.endpoint('/deleted')
      assert.equal(
        (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${deleted.endpoint.id}`))
          .statusCode,
        200,
      )
      const testEnv = await s.endpoint('/test-env', { key: s.tenant.testKey })
      const other = await s.t.tenant('Other Org')
      const foreign = await s.endpoint('/foreign', { key: other.liveKey })
      await s.dispatch()

      await s.order()
      await s.receiver.waitFor(3)
      await sleep(300)
      const received = s.receiver.received
      assert.deepEqual(received.map((r) => r.url).sort(), ['/a', '/b', '/c'])
      const eventId = received[0]!.headers['x-service-event-id'] as string
      assert.ok(received.every((r) => r.headers['x-service-event-id'] === eventId))
      assert.ok(received.every((r) => r.body.equals(received[0]!.body)))
      assert.equal(
        new Set(received.map((r) => signature(r).v1)).size,
        3,
        'each endpoint signs with its own secret',
      )

      const rows = await s.t.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('event_id', '=', eventId)
        .execute()
      assert.deepEqual(rows.map((r) => r.endpoint_id).sort(), mine.map((m) => m.endpoint.id).sort())
      assert.ok(
        rows.every((r) => r.status === 'succeeded' && r.attempts === 1 && r.event_type === 'order.received'),
      )
      for (const none of [deleted, testEnv, foreign]) {
        assert.equal((await s.deliveries(none.endpoint.id)).length, 0)
      }

      // A test order produces no event, so nothing is delivered.
      await s.order(s.tenant.testKey)
      await sleep(300)
      assert.equal(s.receiver.received.length, 3)
    })
  })
})

describe('observer', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: resolverWithWrongName, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  function observer() {
    const calls: { outcome: AttemptOutcome; durationMs: number }[] = []
    return {
      calls,
      attempted: (outcome: AttemptOutcome, durationMs: number) => calls.push({ outcome, durationMs }),
    }
  }

  /** The deliveries of an organization's endpoints, as the log keeps them. */
  const deliveriesOf = (organizationId: string) =>
    t.db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', organizationId).execute()

  async function endpoint(key: string, url: string): Promise<string> {
    const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.endpoint.id
  }

  describe('webhook dispatcher: the observer', () => {
    test('is told of every finished attempt once, with its outcome and the duration the log keeps', async (ctx) => {
      const receiver = await startReceiver((req) =>
        req.url === '/fail'
          ? { status: 500 }
          : req.url === '/slow'
            ? { status: 200, delayMs: 3000 }
            : { status: 200 },
      )
      ctx.after(() => receiver.close())
      const tenant = await t.tenant()
      const expected = new Map<string, AttemptOutcome>([
        [await endpoint(tenant.liveKey, receiver.url('/ok')), 'succeeded'],
        [await endpoint(tenant.liveKey, receiver.url('/fail')), 'http_error'],
        [await endpoint(tenant.liveKey, receiver.url('/slow')), 'timeout'],
        [
          await endpoint(tenant.liveKey, `https://webhook.test:${await closedPort()}/hook`),
          'connection_error',
        ],
        [await endpoint(tenant.liveKey, receiver.url('/hook', 'wrong-name.test')), 'tls_error'],
      ])
      const seen = observer()
      const worker = await t.startDispatcher({
        ca: receiver.ca,
        timeoutMs: 500,
        retryDelaysMs: [60_000],
        observer: seen,
      })
      ctx.after(async () => {
        await worker.stop(100)
        await t.db.deleteFrom('webhook_queue').execute()
      })
      assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)

      const rows = await waitUntil(async () => {
        const all = await deliveriesOf(tenant.orgId)
        return all.length === 5 && all.every((r) => r.status === 'succeeded' || r.error_code !== null) && all
      }, 'every attempt to be recorded')
      assert.deepEqual(seen.calls.map((c) => c.outcome).sort(), [
        'connection_error',
        'http_error',
        'succeeded',
        'timeout',
        'tls_error',
      ])
      for (const row of rows) {
        const outcome = expected.get(row.endpoint_id)!
        assert.equal(row.error_code ?? 'succeeded', outcome)
        const call = seen.calls.find((c) => c.outcome === outcome)!
        assert.equal(call.durationMs, row.duration_ms, `${outcome}: the duration the log keeps`)
      }
      assert.ok(seen.calls.find((c) => c.outcome === 'timeout')!.durationMs >= 450)
    })

    test('is not told of attempts that were not made: cut short by shutdown, or to an endpoint disabled meanwhile', async (ctx) => {
      const receiver = await startReceiver(() => ({ status: 200, delayMs: 2500 }))
      ctx.after(() => receiver.close())
      const tenant = await t.tenant()
      const id = await endpoint(tenant.liveKey, receiver.url('/hook'))
      const seen = observer()
      const worker = await t.startDispatcher({ ca: receiver.ca, timeoutMs: 5000, observer: seen })
      ctx.after(() => t.db.deleteFrom('webhook_queue').execute())
      assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      await receiver.waitFor(1)
      await worker.stop(100)
      assert.deepEqual(seen.calls, [], 'the attempt cut short by shutdown')

      // Claimed while its endpoint is active, sent after it was disabled: its delivery fails unsent.
      assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      await t.db.updateTable('webhook_endpoints').set({ is_active: false }).where('id', '=', id).execute()
      const again = await t.startDispatcher({ ca: receiver.ca, timeoutMs: 5000, observer: seen })
      ctx.after(() => again.stop(100))
      await waitUntil(async () => {
        const all = await deliveriesOf(tenant.orgId)
        return all.filter((r) => r.error_code === 'endpoint_disabled').length === 2
      }, 'both deliveries to fail with endpoint_disabled')
      assert.equal(receiver.received.length, 1)
      assert.deepEqual(seen.calls, [], 'attempts to the disabled endpoint')
    })
  })
})

describe('retries and outcomes', () => {
  /** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
  const setup = useDispatcherApp()

  describe('webhook dispatcher: retries and outcomes', () => {
    test('retries follow the configured delays; each retry is signed afresh over the same body and event id', async (ctx) => {
      const s = await setup(ctx, { respond: (_req, n) => (n <= 2 ? { status: 500 } : { status: 204 }) })
      const { endpoint } = await s.endpoint('/hook')
      // Delays of a second or more, so the Unix-seconds t must differ between attempts.
      const delays = [1000, 1200]
      await s.dispatch({ retryDelaysMs: delays })
      await s.order()
      await s.receiver.waitFor(3, 10_000)
      const [a, b, c] = s.receiver.received
      for (const [i, gap] of [b!.at - a!.at, c!.at - b!.at].entries()) {
        assert.ok(gap >= delays[i]!, `gap ${i + 1} is ${gap} ms, at least the delay of ${delays[i]} ms`)
        // At most 10 % jitter plus scheduling slack.
        assert.ok(
          gap <= delays[i]! * 1.1 + 1000,
          `gap ${i + 1} is ${gap} ms, about the delay of ${delays[i]} ms`,
        )
      }
      const sigs = [a!, b!, c!].map(signature)
      assert.ok(sigs[0]!.t < sigs[1]!.t && sigs[1]!.t < sigs[2]!.t, 'every attempt has a newer t')
      assert.equal(new Set(sigs.map((x) => x.v1)).size, 3, 'every attempt has a different v1')
      assert.ok(a!.body.equals(b!.body) && b!.body.equals(c!.body), 'the same body bytes every time')
      const eventId = a!.headers['x-service-event-id']
      assert.ok(eventId)
      assert.deepEqual(
        [b!, c!].map((r) => r.headers['x-service-event-id']),
        [eventId, eventId],
      )
      assert.equal(JSON.parse(a!.body.toString()).id, eventId)
      // The body is the one stored with the event when it was written.
      const stored = await s.t.db
        .selectFrom('events')
        .select('body')
        .where('id', '=', String(eventId))
        .executeTakeFirstOrThrow()
      assert.equal(a!.body.toString('utf8'), stored.body)

      const row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
      assert.equal(row.status, 'succeeded')
      assert.equal(row.attempts, 3)
      assert.equal(row.error_code, null)
      assert.equal(row.next_attempt_at, null)
      assert.equal(row.response_status, 204)
      assert.equal(row.event_id, eventId)
      const ep = await s.endpointRow(endpoint.id)
      assert.equal(ep.consecutive_failures, 0)
      assert.ok(ep.last_success_at && ep.last_failure_at && ep.last_success_at >= ep.last_failure_at)
    })

    test('the log and the endpoint carry the instants of the attempt, to the millisecond', async (ctx) => {
      const s = await setup(ctx, {
        respond: (req) => (req.url === '/down' ? { status: 500 } : { status: 204 }),
      })
      const down = (await s.endpoint('/down')).endpoint
      const up = (await s.endpoint('/up')).endpoint
      const delay = 60_000
      await s.dispatch({ retryDelaysMs: [delay] })
      const before = Date.now()
      await s.order()
      const failed = await s.settled(down.id, (r) => r.last_attempt_at !== null)
      const ok = await s.settled(up.id, (r) => r.status === 'succeeded')
      const after = Date.now()
      // Each row against its own request: the two are sent concurrently, in either order.
      const arrivedAt = (url: string) => s.receiver.received.find((r) => r.url === url)!.at
      const [downAt, upAt] = [arrivedAt('/down'), arrivedAt('/up')]
      for (const [row, sentAt] of [
        [failed, downAt!],
        [ok, upAt!],
      ] as const) {
        const started = row.last_attempt_at!.getTime()
        assert.ok(
          before <= started && started <= sentAt,
          `last_attempt_at ${started} in [${before}, ${sentAt}]`,
        )
      }
      const downRow = await s.endpointRow(down.id)
      const upRow = await s.endpointRow(up.id)
      const failedAt = downRow.last_failure_at!.getTime()
      const succeededAt = upRow.last_success_at!.getTime()
      assert.ok(
        failed.last_attempt_at!.getTime() <= failedAt && failedAt <= after,
        'last_failure_at: when it ended',
      )
      assert.ok(
        ok.last_attempt_at!.getTime() <= succeededAt && succeededAt <= after,
        'last_success_at: when it ended',
      )
      // The retry is due the configured delay (plus at most 10 % jitter) after the failure.
      const due = failed.next_attempt_at!.getTime() - failedAt
      assert.ok(delay <= due && due <= delay * 1.1, `next attempt ${due} ms after the failure`)
    })

    test('permanent failure after the last delay; a later success resets consecutive_failures', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 503, body: 'down for maintenance' }) })
      const { endpoint } = await s.endpoint('/hook')
      const delays = [50, 100, 200]
      await s.dispatch({ retryDelaysMs: delays })
      await s.order()
      await s.receiver.waitFor(4)
      const row = await s.settled(endpoint.id, (r) => r.status !== 'pending')
      const gaps = s.receiver.received.slice(1).map((r, i) => r.at - s.receiver.received[i]!.at)
      for (const [i, gap] of gaps.entries()) {
        assert.ok(
          gap >= delays[i]! && gap <= delays[i]! * 1.1 + 500,
          `gap ${i + 1}: ${gap} ms for ${delays[i]} ms`,
        )
      }
      assert.equal(row.status, 'failed')
      assert.equal(row.attempts, delays.length + 1)
      assert.equal(row.next_attempt_at, null)
      assert.equal(row.error_code, 'http_error')
      assert.equal(row.response_status, 503)
      assert.equal(row.response_snippet, 'down for maintenance')
      assert.deepEqual(await s.queued(endpoint.id), [], 'nothing left to attempt')

      // The public log says the same.
      const log = await s.t.api(s.tenant.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
      assert.equal(log.statusCode, 200)
      const [entry] = log.json().data
      assert.equal(entry.status, 'failed')
      assert.equal(entry.attempts, 4)
      assert.equal(entry.next_attempt_at, null)
      assert.equal(entry.error_code, 'http_error')
      assert.equal(entry.response_status, 503)

      let ep = await s.endpointRow(endpoint.id)
      assert.equal(ep.consecutive_failures, 4)
      assert.equal(ep.is_active, true)
      assert.ok(ep.last_failure_at)
      assert.equal(ep.last_success_at, null)
      await sleep(400)
      assert.equal(s.receiver.received.length, 4, 'no attempt after the last one')

      s.receiver.setHandler(() => ({ status: 200, body: 'ok' }))
      await s.order()
      await waitUntil(async () => (await s.endpointRow(endpoint.id)).last_success_at, 'a success')
      ep = await s.endpointRow(endpoint.id)
      assert.equal(ep.consecutive_failures, 0)
      assert.ok(ep.last_success_at)
      const rows = await s.deliveries(endpoint.id)
      assert.deepEqual(
        rows.map((r) => [r.status, r.attempts, r.error_code, r.response_snippet]),
        [
          ['failed', 4, 'http_error', 'down for maintenance'],
          ['succeeded', 1, null, 'ok'],
        ],
      )
      const endpoints = await s.t.api(s.tenant.liveKey, 'GET', '/v1/webhook-endpoints')
      assert.equal(endpoints.json().data[0].consecutive_failures, 0)
      assert.equal(endpoints.json().data[0].last_success_at, ep.last_success_at!.toISOString())
    })

    test('response snippets: the first 1024 characters (a surrogate pair counts as one), NUL stored as U+FFFD, and the batch is recorded', async (ctx) => {
      // '/syntax' holds what an array literal or a careless escaper would mangle.
      const syntax = '{"ok":true, "path":"C:\\tmp\\x"}\nNULL,\t\'{}\' \\"'
      const bodies: Record<string, string> = {
        '/nul': 'before\u0000after',
        '/syntax': syntax,
        '/null-word': 'NULL',
        '/cut': `${'a'.repeat(1023)}\u{1F600}tail`,
        // Far more than a snippet: the worker stops reading, the attempt still succeeded.
        '/long': `${'é'.repeat(1024)}${'x'.repeat(200_000)}`,
      }
      const s = await setup(ctx, { respond: (req) => ({ status: 200, body: bodies[req.url]! }) })
      const endpoints = Object.fromEntries(
        await Promise.all(
          Object.keys(bodies).map(async (path) => [path, (await s.endpoint(path)).endpoint.id]),
        ),
      ) as Record<string, string>
      await s.dispatch()
      await s.order()
      const snippet = async (path: string) =>
        (await s.settled(endpoints[path]!, (r) => r.status === 'succeeded')).response_snippet
      assert.equal(await snippet('/nul'), 'before\uFFFDafter')
      // 1 024 characters, the emoji (two UTF-16 units) the 1 024th.
      assert.equal(await snippet('/cut'), `${'a'.repeat(1023)}\u{1F600}`)
      assert.equal(await snippet('/long'), 'é'.repeat(1024))
      assert.equal(await snippet('/syntax'), syntax)
      assert.equal(await snippet('/null-word'), 'NULL', 'the word NULL is text, not a missing snippet')
    })

    test('no answer within timeoutMs is a timeout', async (ctx) => {
      const s = await setup(ctx, { respond: () => ({ status: 200, delayMs: 3000 }) })
      const { endpoint } = await s.endpoint('/slow')
      const timeoutMs = 500
      await s.dispatch({ timeoutMs, retryDelaysMs: [60_000] })
      await s.order()
      await s.receiver.waitFor(1)
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      const recordedAfter = Date.now() - s.receiver.received[0]!.at
      assert.equal(row.error_code, 'timeout')
      assert.equal(row.response_status, null)
      assert.equal(row.status, 'pending', 'a retry is scheduled')
      assert.equal(row.attempts, 1)
      assert.ok(row.next_attempt_at && row.next_attempt_at.getTime() - Date.now() > 50_000)
      assert.ok(
        row.duration_ms !== null && row.duration_ms >= timeoutMs - 50 && row.duration_ms < timeoutMs + 1000,
        `duration ${row.duration_ms}`,
      )
      assert.ok(recordedAfter < timeoutMs + 1500, `recorded ${recordedAfter} ms after the request arrived`)
    })

    test('a TLS handshake that never completes is a timeout too (the deadline covers connect and TLS)', async (ctx) => {
      const sockets: Socket[] = []
      const silent: Server = createServer((socket) => {
        sockets.push(socket)
      })
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
      ctx.after(() => {
        for (const socket of sockets) socket.destroy()
        silent.close()
      })
      const port = (silent.address() as { port: number }).port
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('', { url: `https://webhook.test:${port}/hook` })
      const timeoutMs = 500
      const started = Date.now()
      await s.dispatch({ timeoutMs, retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.ok(sockets.length >= 1, 'the connection was opened')
      assert.equal(row.error_code, 'timeout')
      assert.ok(Date.now() - started < timeoutMs + 1500)
    })

    test('301 and 302 are failed attempts and are not followed', async (ctx) => {
      const s = await setup(ctx, {
        respond: (req) =>
          req.url === '/r301' || req.url === '/r302'
            ? {
                status: req.url === '/r301' ? 301 : 302,
                headers: { location: `https://webhook.test:${s.receiver.port}/moved` },
                body: 'moved',
              }
            : { status: 200 },
      })
      const e301 = (await s.endpoint('/r301')).endpoint
      const e302 = (await s.endpoint('/r302')).endpoint
      await s.dispatch({ retryDelaysMs: [60_000] })
      await s.order()
      const r301 = await s.settled(e301.id, (r) => r.error_code !== null)
      const r302 = await s.settled(e302.id, (r) => r.error_code !== null)
      await sleep(300)
      assert.deepEqual(s.receiver.received.map((r) => r.url).sort(), ['/r301', '/r302'])
      assert.deepEqual(
        [r301, r302].map((r) => [r.error_code, r.response_status, r.attempts, r.status]),
        [
          ['http_error', 301, 1, 'pending'],
          ['http_error', 302, 1, 'pending'],
        ],
      )
    })

    test('connection refused is a connection_error', async (ctx) => {
      const s = await setup(ctx)
      const port = await closedPort()
      const { endpoint } = await s.endpoint('', { url: `https://webhook.test:${port}/hook` })
      await s.dispatch({ retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.equal(row.error_code, 'connection_error')
      assert.equal(row.response_status, null)
      assert.equal(row.attempts, 1)
    })

    test('an untrusted certificate is a tls_error', async (ctx) => {
      const s = await setup(ctx)
      // The certificate is generated inside this process, so no CA file Node loaded
      // at startup (NODE_EXTRA_CA_CERTS included) can contain it.
      const extra = process.env.NODE_EXTRA_CA_CERTS
      if (extra) assert.ok(!readFileSync(extra, 'utf8').includes(s.receiver.ca.trim()))
      const { endpoint } = await s.endpoint('/hook')
      // No ca option: only Node's own trust store.
      await s.dispatch({ ca: undefined, retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.equal(row.error_code, 'tls_error')
      assert.equal(row.response_status, null)
      assert.equal(s.receiver.received.length, 0, 'no request was sent')
    })

    test('a certificate for another name is a tls_error', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('', { url: s.receiver.url('/hook', 'wrong-name.test') })
      await s.dispatch({ retryDelaysMs: [60_000] })
      await s.order()
      const row = await s.settled(endpoint.id, (r) => r.error_code !== null)
      assert.equal(row.error_code, 'tls_error')
      assert.equal(s.receiver.received.length, 0)
    })
  })
})

describe('results', () => {
  /** One app per file (a fresh embedded database is slow to build); each test gets its own receiver, organization and dispatchers. */
  const setup = useDispatcherApp()

  describe('webhook dispatcher: results', () => {
    test('successes are recorded a batch at a time; a failure is recorded at once with them; stop() records the rest', async (ctx) => {
      const s = await setup(ctx, {
        respond: (req) => (req.url === '/fail' ? { status: 500 } : { status: 200 }),
      })
      const { endpoint } = await s.endpoint('/hook')
      const other = await s.t.tenant()
      const { endpoint: failing } = await s.endpoint('/fail', { key: other.liveKey })
      // Four slots, so batches of four results; a wait far longer than the test.
      const worker = await s.dispatch({ concurrency: 4, resultWaitMs: 60_000, retryDelaysMs: [] })
      const statuses = async (id: string) => (await s.deliveries(id)).map((r) => [r.status, r.attempts])

      for (let i = 0; i < 2; i++) await s.order()
      await s.receiver.waitFor(2)
      await sleep(300)
      assert.deepEqual(
        await statuses(endpoint.id),
        [
          ['pending', 0],
          ['pending', 0],
        ],
        'two successes wait for a batch of four',
      )

      // A failure does not wait: it is written at once, with the successes queued before it.
      await s.order(other.liveKey)
      await s.receiver.waitFor(3)
      const failed = await s.settled(failing.id, (r) => r.status !== 'pending')
      assert.equal(failed.status, 'failed')
      assert.equal(failed.error_code, 'http_error')
      assert.equal(failed.response_status, 500)
      assert.deepEqual(await statuses(endpoint.id), [
        ['succeeded', 1],
        ['succeeded', 1],
      ])

      // Two more successes wait again; stopping the worker records them.
      await s.order()
      await s.order()
      await s.receiver.waitFor(5)
      await sleep(300)
      assert.deepEqual((await statuses(endpoint.id)).slice(2), [
        ['pending', 0],
        ['pending', 0],
      ])
      await worker.stop(100)
      assert.deepEqual(
        (await statuses(endpoint.id)).map(([status]) => status),
        ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
      )
      assert.deepEqual(await s.queued(endpoint.id), [])
      const ids = s.receiver.received.map((r) => r.headers['x-service-event-id'])
      assert.equal(new Set(ids).size, 5, 'each event was sent once')
    })

    test('with the default wait, a lone success is recorded within moments though its batch is far from full', async (ctx) => {
      const s = await setup(ctx)
      const { endpoint } = await s.endpoint('/hook')
      // 128 slots: batches of up to 128 results.
      await s.dispatch({ concurrency: 128 })
      await s.order()
      await s.receiver.waitFor(1)
      const arrived = Date.now()
      const row = await waitUntil(
        async () => {
          const [r] = await s.deliveries(endpoint.id)
          return r?.status === 'succeeded' && r
        },
        'the success to be recorded',
        2000,
      )
      assert.equal(row.attempts, 1)
      assert.ok(Date.now() - arrived < 1000, `recorded ${Date.now() - arrived} ms after it arrived`)
    })
  })
})

describe('secret rotation', () => {
  /**
   * Deliveries while an endpoint's secret is rotated, with the app and its worker
   * on a manual clock: the grace period ends when the test moves the clock, not
   * when a loaded machine gets round to it. Receivers check with the client's
   * verifyWebhook and with Stripe's verifier, each knowing one secret.
   */
  const HOUR_MS = 3_600_000
  const stripe = new Stripe('sk_test_unused')

  const verifies = async (req: Received, secret: string) => {
    try {
      await verifyWebhook(req.body, header(req), secret)
      return true
    } catch {
      return false
    }
  }
  const stripeVerifies = (req: Received, secret: string) => {
    try {
      stripe.webhooks.constructEvent(req.body.toString('utf8'), header(req), secret, 300)
      return true
    } catch {
      return false
    }
  }

  type Received = Receiver['received'][number]
  const header = (req: Received) => String(req.headers['x-service-signature'])
  const hmac = (secret: string, t: string, body: Buffer) =>
    createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')

  /** The header's t and its v1 values, in order; the form must be `t=<digits>(,v1=<64 hex>)+`. */
  function parts(req: Received) {
    const value = header(req)
    assert.match(value, /^t=\d+(,v1=[0-9a-f]{64})+$/)
    const [t, ...v1] = value.split(',').map((p) => p.slice(p.indexOf('=') + 1))
    return { t: t!, v1 }
  }

  describe('webhook deliveries while a secret is rotated', () => {
    const clock = manualClock(new Date())
    const logs: string[] = []
    let t: TestApp
    let receiver: Receiver
    let tenant: Awaited<ReturnType<TestApp['tenant']>>
    const secretsSeen: string[] = []

    before(async () => {
      const stream = new Writable({
        write(chunk, _encoding, done) {
          logs.push(String(chunk))
          done()
        },
      })
      t = await createTestApp({
        clock,
        resolver: loopbackResolver,
        webhookAllowPrivateCidrs: ['127.0.0.0/8'],
        logger: loggerOptions({ level: 'trace', pretty: false, secrets: [OPERATOR_TOKEN], stream }),
      })
      receiver = await startReceiver((req) => ({ status: req.url === '/failing' ? 500 : 200 }))
      tenant = await t.tenant()
      // A retry would wait for the manual clock: the first attempt gets time even on a busy machine.
      await t.startDispatcher({ ca: receiver.ca, timeoutMs: 10_000 })
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    async function rotate(id: string, body?: unknown) {
      const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, body)
      assert.equal(res.statusCode, 200, res.body)
      const secret = res.json().data.secret as string
      secretsSeen.push(secret)
      return secret
    }

    /**
     * Queues a ping to the endpoint and returns its request, once the worker has
     * recorded the attempt: the clock may then move on without a claimed attempt
     * outliving its lease on the manual clock (it would be sent again).
     */
    async function ping(id: string, path: string): Promise<Received> {
      const eventId = (r: Received) => String(r.headers['x-service-event-id'])
      const known = new Set(receiver.received.filter((r) => r.url === path).map(eventId))
      const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)
      assert.equal(res.statusCode, 202, res.body)
      const req = await waitUntil(
        () => receiver.received.find((r) => r.url === path && !known.has(eventId(r))),
        'the ping to arrive',
      )
      await waitUntil(async () => {
        const rows = await t.db
          .selectFrom('webhook_deliveries')
          .select('last_attempt_at')
          .where('endpoint_id', '=', id)
          .execute()
        return rows.every((row) => row.last_attempt_at !== null)
      }, 'the attempt to be recorded')
      return req
    }

    test('both secrets verify throughout the grace period; after it only the new one, with one v1', async () => {
      const { endpoint, secret: old } = await createEndpoint(t, tenant.liveKey, receiver.url('/rolling'))
      secretsSeen.push(old)

      // Outside a rotation: the reference's form, exactly one v1.
      const plain = await ping(endpoint.id, '/rolling')
      assert.match(header(plain), /^t=\d+,v1=[0-9a-f]{64}$/)
      assert.equal(await verifies(plain, old), true)

      const fresh = await rotate(endpoint.id, { grace_period_seconds: 3600 })
      // At the start, in the middle and in the last millisecond of the grace period.
      for (const step of [0, 30 * 60_000, 30 * 60_000 - 1]) {
        clock.advance(step)
        const req = await ping(endpoint.id, '/rolling')
        const { t: ts, v1 } = parts(req)
        assert.deepEqual(v1, [hmac(fresh, ts, req.body), hmac(old, ts, req.body)], 'new first, then old')
        // A receiver that knows only the old secret, and one that knows only the new one.
        assert.equal(await verifies(req, old), true)
        assert.equal(await verifies(req, fresh), true)
        assert.equal(stripeVerifies(req, old), true)
        assert.equal(stripeVerifies(req, fresh), true)
        assert.equal(await verifies(req, 'whsec_someone-elses-secret'), false)
      }

      clock.advance(1)
      const afterGrace = await ping(endpoint.id, '/rolling')
      assert.match(header(afterGrace), /^t=\d+,v1=[0-9a-f]{64}$/)
      assert.equal(await verifies(afterGrace, fresh), true)
      assert.equal(await verifies(afterGrace, old), false)
      assert.equal(stripeVerifies(afterGrace, old), false)
    })

    test('grace period 0 cuts over at once; a second rotation drops the oldest secret', async () => {
      const { endpoint, secret: first } = await createEndpoint(t, tenant.liveKey, receiver.url('/cut'))
      secretsSeen.push(first)
      await ping(endpoint.id, '/cut')

      const second = await rotate(endpoint.id, { grace_period_seconds: 0 })
      const cut = await ping(endpoint.id, '/cut')
      assert.match(header(cut), /^t=\d+,v1=[0-9a-f]{64}$/)
      assert.equal(await verifies(cut, second), true)
      assert.equal(await verifies(cut, first), false)

      const third = await rotate(endpoint.id, { grace_period_seconds: 600 })
      const fourth = await rotate(endpoint.id)
      const req = await ping(endpoint.id, '/cut')
      assert.equal(parts(req).v1.length, 2)
      assert.equal(await verifies(req, fourth), true)
      assert.equal(await verifies(req, third), true)
      assert.equal(await verifies(req, second), false)
      clock.advance(24 * HOUR_MS)
      const later = await ping(endpoint.id, '/cut')
      assert.equal(parts(later).v1.length, 1)
      assert.equal(await verifies(later, fourth), true)
    })

    test('failed attempts during a rotation are signed the same; no secret appears in the logs', async () => {
      const { endpoint, secret: old } = await createEndpoint(t, tenant.liveKey, receiver.url('/failing'))
      secretsSeen.push(old)
      const fresh = await rotate(endpoint.id, { grace_period_seconds: 60 })
      const req = await ping(endpoint.id, '/failing')
      assert.equal(await verifies(req, old), true)
      assert.equal(await verifies(req, fresh), true)

      const text = logs.join('')
      assert.ok(text.includes('rotate-secret'), 'the rotation requests were logged')
      for (const secret of secretsSeen) {
        assert.equal(text.includes(secret.slice('whsec_'.length)), false, 'a secret was logged')
      }
      const sealed = await t.db.selectFrom('webhook_endpoints').selectAll().execute()
      for (const row of sealed) {
        for (const value of [row.secret_encrypted, row.previous_secret_encrypted]) {
          if (value) assert.equal(text.includes(value), false, 'a sealed secret was logged')
        }
      }
    })
  })
})

describe('fair shares between organizations', () => {
  /** An HTTPS receiver that reads every request and never answers. */
  async function hangingReceiver() {
    const { key, cert } = await testCertificate()
    const stats = { received: 0, open: 0, ended: 0 }
    const sockets = new Set<Socket>()
    const server = httpsCreateServer({ key, cert }, (req) => {
      req.resume()
      stats.received++
      stats.open++
      req.socket.once('close', () => {
        stats.open--
        stats.ended++
      })
    })
    server.on('connection', (socket: Socket) => sockets.add(socket))
    server.requestTimeout = 0
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    return {
      stats,
      ca: cert,
      url: (path: string) => `https://webhook.test:${port}${path}`,
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy()
          server.close(() => resolve())
        }),
    }
  }

  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  /** Registers endpoints on `url(path)` with `key` and queues `pings` test pings to each; their ids. */
  async function pinged(key: string, paths: string[], url: (path: string) => string, pings: number) {
    const ids: string[] = []
    for (const path of paths) {
      const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: url(path) })
      assert.equal(res.statusCode, 201, res.body)
      const id = res.json().data.endpoint.id as string
      ids.push(id)
      for (let i = 0; i < pings; i++) {
        const ping = await t.api(key, 'POST', `/v1/webhook-endpoints/${id}/test`)
        assert.equal(ping.statusCode, 202, ping.body)
      }
    }
    return ids
  }

  describe('webhook dispatcher: slots shared fairly between organizations', () => {
    test("endpoints that never answer do not delay another organization's first attempt beyond a second", async (ctx) => {
      const hanging = await hangingReceiver()
      const healthy = await startReceiver()
      ctx.after(() => healthy.close())
      ctx.after(() => hanging.close())
      // Organization A: ten endpoints (five live, five test), 16 pings each.
      // Organization C: five more, 16 pings each. 240 attempts that hang, with
      // the default 128 slots and 16 attempts at once per endpoint.
      const a = await t.tenant('A')
      const c = await t.tenant('C')
      const five = (prefix: string) => Array.from({ length: 5 }, (_, i) => `/${prefix}-${i}`)
      await pinged(a.liveKey, five('a-live'), hanging.url, 16)
      await pinged(a.testKey, five('a-test'), hanging.url, 16)
      await pinged(c.liveKey, five('c-live'), hanging.url, 16)
      // A deadline longer than the setup may take on a busy machine, so that no
      // hanging attempt ends before B is served; no retry within the test.
      const worker = await t.startDispatcher({ ca: healthy.ca, timeoutMs: 20_000, retryDelaysMs: [60_000] })
      ctx.after(async () => {
        await worker.stop(100)
        await t.db.deleteFrom('webhook_queue').execute()
      })
      const deadline = Date.now() + 10_000
      while (hanging.stats.received < 128 && Date.now() < deadline) await sleep(10)
      assert.ok(hanging.stats.received >= 128, `${hanging.stats.received} hanging attempts sent`)

      // Organization B's healthy endpoint: its order's first attempt.
      const b = await t.tenant('B')
      const res = await t.api(b.liveKey, 'POST', '/v1/webhook-endpoints', { url: healthy.url('/b') })
      assert.equal(res.statusCode, 201, res.body)
      const started = Date.now()
      assert.equal((await t.api(b.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      await healthy.waitFor(1, 5000)
      const waited = healthy.received[0]!.at - started
      const { open, ended } = hanging.stats
      assert.ok(waited < 1000, `B's first attempt arrived ${waited} ms after its order`)
      assert.equal(ended, 0, 'every hanging attempt was still in flight when B was served')

      // Meanwhile every hanging attempt went out: no endpoint held more than its 16.
      const all = Date.now() + 5000
      while (hanging.stats.received < 240 && Date.now() < all) await sleep(10)
      assert.equal(hanging.stats.received, 240)
      assert.ok(open >= 128, `${open} hanging attempts in flight when B was served`)
    })

    test('a claim takes no more than its limit of a limited endpoint, all that is due of the others, and nothing of an excluded one', async (ctx) => {
      const tenant = await t.tenant('Claims')
      const url = (path: string) => `https://webhook.test:9${path}`
      const [limited, other, excluded] = await pinged(tenant.liveKey, ['/l', '/o', '/x'], url, 4)
      ctx.after(() => t.db.deleteFrom('webhook_queue').execute())
      const rows = await claimDue(t.db, {
        limit: 100,
        now: new Date(),
        leaseMs: 60_000,
        workerId: 'w',
        exclude: [excluded!],
        limits: new Map([[limited!, 2]]),
      })
      const count = (id: string) => rows.filter((r) => r.endpoint_id === id).length
      assert.deepEqual([count(limited!), count(other!), count(excluded!)], [2, 4, 0])
      assert.ok(rows.every((r) => r.organization_id === tenant.orgId && r.attempts === 1))
      await releaseClaims(
        t.db,
        rows.map((r) => r.id),
        'w',
      )
      // The limited endpoint's other two stayed in the queue, unclaimed.
      const again = await claimDue(t.db, { limit: 100, now: new Date(), leaseMs: 60_000, workerId: 'w' })
      assert.equal(again.length, 12)
    })

    test('a worker whose only attempt hangs does not claim again and again meanwhile', async (ctx) => {
      const hanging = await hangingReceiver()
      ctx.after(() => hanging.close())
      const tenant = await t.tenant('One hanging')
      await pinged(tenant.liveKey, ['/alone'], hanging.url, 1)
      let statements = 0
      const execute = t.db.executeQuery.bind(t.db)
      t.db.executeQuery = ((query: Parameters<typeof execute>[0]) => {
        statements++
        return execute(query)
      }) as typeof t.db.executeQuery
      ctx.after(() => {
        t.db.executeQuery = execute
      })
      const worker = await t.startDispatcher({
        ca: hanging.ca,
        timeoutMs: 5000,
        pollIntervalMs: 1000,
        retryDelaysMs: [60_000],
      })
      ctx.after(async () => {
        await worker.stop(100)
        await t.db.deleteFrom('webhook_queue').execute()
      })
      const deadline = Date.now() + 2000
      while (hanging.stats.received < 1 && Date.now() < deadline) await sleep(10)
      assert.equal(hanging.stats.received, 1)
      const before = statements
      await sleep(2000)
      // It polls once a second, and wakes on NOTIFY (on PostgreSQL also other
      // test files' notifications); a worker claiming in a loop ran hundreds.
      assert.ok(statements - before < 40, `${statements - before} statements in 2 s`)
    })
  })
})

describe('per-order event sequence', () => {
  describe('per-order event sequence', () => {
    const f = useProductionEvents()

    /** The order's events by sequence: [sequence, type], with data and body checked to carry the same bytes. */
    async function sequences(orderId: string) {
      const rows = await f.t.db
        .selectFrom('events')
        .select(['id', 'type', 'body', sql<string>`data::text`.as('text')])
        .where('order_id', '=', orderId)
        .execute()
      return rows
        .map((r) => {
          assert.ok(r.body.endsWith(`"data":${r.text}}`), r.body)
          return [JSON.parse(r.text).sequence as number, r.type] as const
        })
        .sort((a, b) => a[0] - b[0])
    }

    test('one order’s lifecycle: 1, 2, 3 ... in the order recorded, as delivered to both endpoints', async () => {
      const order = await f.createLiveOrder()
      const ao = await f.adminOrder(order.id)
      const po = ao.production_order!
      f.tick()
      await f.setStatus(po.id, 'in_progress')
      f.tick()
      await f.completeJob(ao.items[1]!.production_job!.id)
      f.tick()
      await f.cancelOrder(order.id)
      // assertDelivered expects data with sequence 1..n in this order, in the stored rows and the bodies received.
      const envelopes = await f.assertDelivered(order.id, [
        expectedEvent.received(order),
        expectedEvent.started(order, po.id),
        expectedEvent.itemCompleted(order, ao.items[1]!, { sku: null, name: 'Card' }),
        expectedEvent.cancelled(order, po.id),
      ])
      assert.deepEqual(
        envelopes.map((e) => [e.data.sequence, e.type]),
        [
          [1, 'order.received'],
          [2, 'order.production_started'],
          [3, 'order_item.completed'],
          [4, 'order.cancelled'],
        ],
      )
      // Another order counts from 1 again; its creation writes no counter row (its first event is always 1).
      const other = await f.createLiveOrder()
      assert.deepEqual(await sequences(other.id), [[1, 'order.received']])
      const counters = (id: string) =>
        f.t.db.selectFrom('order_event_counters').select('last_sequence').where('order_id', '=', id).execute()
      assert.deepEqual(await counters(other.id), [])
      assert.deepEqual(await counters(order.id), [{ last_sequence: 4 }])
    })

    test('simultaneous production changes of one order get distinct consecutive numbers', async () => {
      const items = Array.from({ length: 6 }, (_, n) => ({ sku: `SEQ-${n}`, name: `Item ${n}`, quantity: 1 }))
      const order = await f.createLiveOrder(orderBody({ items }))
      const ao = await f.adminOrder(order.id)
      f.tick()
      const changes = [
        ...ao.items.map((i) =>
          f.t.admin('POST', `/admin/v1/production-jobs/${i.production_job!.id}/complete`),
        ),
        f.t.admin('POST', `/admin/v1/production-orders/${ao.production_order!.id}/status`, {
          status: 'in_progress',
        }),
      ]
      for (const res of await Promise.all(changes)) assert.equal(res.statusCode, 200, res.body)
      const got = await sequences(order.id)
      assert.deepEqual(
        got.map(([n]) => n),
        [1, 2, 3, 4, 5, 6, 7, 8],
      )
      assert.deepEqual(got[0], [1, 'order.received'])
      assert.deepEqual(got.filter(([, type]) => type === 'order_item.completed').length, 6)
      await f.settle()
      const delivered = f
        .receivedFor(order.id)
        .map((r) => r.envelope.data.sequence)
        .sort((a, b) => Number(a) - Number(b))
      assert.deepEqual(delivered, [1, 2, 3, 4, 5, 6, 7, 8])
    })

    test('writers of one order’s events in concurrent transactions, with no other lock, never share a number', async () => {
      const order = await f.createLiveOrder()
      const at = new Date(f.tick())
      const writers = Array.from({ length: 12 }, (_, n) =>
        f.t.db.transaction().execute(async (trx) => {
          const event = await recordEvent(trx, {
            organizationId: f.tenant.orgId,
            environment: 'live',
            type: 'order_item.completed',
            orderId: order.id,
            data: eventData.itemCompleted(
              { order_id: order.id, external_order_id: order.external_order_id },
              { order_item_id: newId(), production_job_id: newId(), sku: null, name: `Writer ${n}` },
            ),
            at,
          })
          // Hold the transaction open a moment, so the others overlap it on PostgreSQL.
          await sql`select pg_sleep(0.02)`.execute(trx)
          return event.data.sequence
        }),
      )
      const returned = (await Promise.all(writers)).sort((a, b) => Number(a) - Number(b))
      const expected = Array.from({ length: 12 }, (_, n) => n + 2)
      assert.deepEqual(returned, expected)
      assert.deepEqual(
        (await sequences(order.id)).map(([n]) => n),
        [1, ...expected],
      )
      const [counter] = await f.t.db
        .selectFrom('order_event_counters')
        .selectAll()
        .where('order_id', '=', order.id)
        .execute()
      assert.equal(counter?.last_sequence, 13)
      await f.settle()
    })

    test('ping carries no sequence and counts nothing', async () => {
      const [endpoint] = await f.t.db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('organization_id', '=', f.tenant.orgId)
        .execute()
      const before = await f.t.db.selectFrom('order_event_counters').selectAll().orderBy('order_id').execute()
      const res = await f.t.api(f.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint!.id}/test`)
      assert.equal(res.statusCode, 202, res.body)
      const [ping] = await f.t.db
        .selectFrom('events')
        .select(['data', 'body'])
        .where('type', '=', 'ping')
        .where('organization_id', '=', f.tenant.orgId)
        .execute()
      assert.deepEqual(ping!.data, eventData.ping())
      assert.equal(JSON.parse(ping!.body).data.sequence, undefined)
      assert.deepEqual(
        await f.t.db.selectFrom('order_event_counters').selectAll().orderBy('order_id').execute(),
        before,
      )
      await f.settle()
    })
  })
})
