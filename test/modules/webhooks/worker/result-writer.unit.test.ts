import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ClaimedDelivery } from '../../../../src/modules/webhooks/outbox/claim.repo.ts'
import type { AttemptResult } from '../../../../src/modules/webhooks/outbox/complete.repo.ts'
import type { Sent } from '../../../../src/modules/webhooks/worker/http-attempt.ts'
import {
  disabledResult,
  ResultWriter,
  type ResultWriterOptions,
  retryAt,
  sentResult,
} from '../../../../src/modules/webhooks/worker/result-writer.ts'

const tick = () => new Promise((r) => setImmediate(r))

let seq = 0
function result(status: AttemptResult['status'] = 'succeeded', counts = true): AttemptResult {
  const at = new Date()
  return {
    deliveryId: `d${++seq}`,
    endpointId: 'e',
    status,
    errorCode: status === 'succeeded' ? null : 'http_error',
    errorMessage: status === 'succeeded' ? null : 'HTTP 500',
    responseStatus: status === 'succeeded' ? 200 : 500,
    snippet: null,
    durationMs: 1,
    nextAttemptAt: null,
    startedAt: at,
    at,
    counts,
    probeAt: status === 'succeeded' || !counts ? null : at,
    signedAt: null,
    traceId: null,
  }
}

/** The writers a test made: what they still hold is written after it, so no waitMs timer outlives the file. */
const made: { w: ResultWriter; release(): Promise<void> }[] = []
afterEach(async () => {
  for (const { w, release } of made.splice(0)) {
    const done = w.flushAll()
    await release()
    await release()
    await done
  }
})

/** A writer whose store records batches; with `hold`, each write waits until release() is called. */
function writer(options: Partial<ResultWriterOptions> & { hold?: boolean } = {}) {
  const stored: string[][] = []
  const errors: unknown[] = []
  const pending: (() => void)[] = []
  const w = new ResultWriter({
    batchSize: 4,
    maxUnwritten: 100,
    waitMs: 60_000,
    store: async (results) => {
      if (options.hold) await new Promise<void>((resolve) => pending.push(resolve))
      stored.push(results.map((r) => r.deliveryId))
    },
    onError: (err) => errors.push(err),
    ...options,
  })
  const release = async () => {
    while (pending.length > 0) pending.shift()!()
    await tick()
  }
  made.push({ w, release })
  return { w, stored, errors, release }
}

describe('result writer: batches', () => {
  test('successes wait for a whole batch and free their slots at once', async () => {
    const { w, stored } = writer()
    const first = [result(), result(), result()]
    for (const r of first) assert.equal(w.report(r), undefined)
    await tick()
    assert.deepEqual(stored, [], 'three of four: no write yet')
    const fourth = result()
    w.report(fourth)
    await tick()
    assert.deepEqual(stored, [[...first, fourth].map((r) => r.deliveryId)])
  })

  test('a batch that does not fill is written within waitMs', async () => {
    const { w, stored } = writer({ waitMs: 30 })
    const lone = result()
    w.report(lone)
    await sleep(5)
    assert.deepEqual(stored, [])
    await sleep(80)
    assert.deepEqual(stored, [[lone.deliveryId]])
  })

  test('a failure is written at once with the successes before it, and its slot waits until it is stored', async () => {
    const { w, stored, release } = writer({ hold: true })
    const ok = result()
    w.report(ok)
    const failed = result('pending')
    const slot = w.report(failed)
    assert.ok(slot, "the failure's slot waits")
    let freed = false
    void slot.then(() => {
      freed = true
    })
    await tick()
    assert.equal(freed, false, 'not before the batch is stored')
    await release()
    assert.deepEqual(stored, [[ok.deliveryId, failed.deliveryId]])
    assert.equal(freed, true)
    assert.ok(w.report(result('failed')), 'a final failure waits too')
  })

  test('a delivery failed unsent (endpoint disabled) counts as no attempt: it does not hurry its batch', async () => {
    const { w, stored } = writer()
    assert.equal(w.report(result('failed', false)), undefined)
    await tick()
    assert.deepEqual(stored, [])
  })

  test('results reported while a batch is being written go into the next one', async () => {
    const { w, stored, release } = writer({ hold: true })
    const batch = [result(), result(), result(), result()]
    for (const r of batch) w.report(r)
    const later = [result(), result()]
    for (const r of later) w.report(r)
    await release()
    assert.deepEqual(stored, [batch.map((r) => r.deliveryId)], 'two of four wait for more')
    const flushed = w.flushAll()
    await release()
    await flushed
    assert.deepEqual(
      stored[1],
      later.map((r) => r.deliveryId),
    )
  })

  test('a writer behind by maxUnwritten results makes every slot wait, and writes at once', async () => {
    const { w, stored, release } = writer({ hold: true, maxUnwritten: 2 })
    assert.equal(w.report(result()), undefined)
    assert.equal(w.report(result()), undefined)
    const third = w.report(result())
    assert.ok(third, 'the third unwritten result holds its slot')
    await release()
    await third
    assert.equal(stored.flat().length, 3)
  })

  test('a failed write is tried again once; after that it is given up and waiting slots go free', async () => {
    let calls = 0
    const errors: unknown[] = []
    const w = new ResultWriter({
      batchSize: 4,
      maxUnwritten: 100,
      waitMs: 60_000,
      store: async () => {
        calls++
        throw new Error('deadlock detected')
      },
      onError: (err) => errors.push(err),
    })
    await w.report(result('pending'))
    assert.equal(calls, 2)
    assert.equal(errors.length, 1)
    let flaky = 0
    const once = new ResultWriter({
      batchSize: 1,
      maxUnwritten: 100,
      waitMs: 60_000,
      store: async () => {
        if (flaky++ === 0) throw new Error('deadlock detected')
      },
      onError: (err) => errors.push(err),
    })
    once.report(result())
    await once.flushAll()
    assert.equal(flaky, 2)
    assert.equal(errors.length, 1, 'a second try that works is no error')
  })

  test('flushAll writes every queued result without waiting for its batch to fill', async () => {
    const { w, stored } = writer()
    const queued = [result(), result(), result()]
    for (const r of queued) w.report(r)
    await w.flushAll()
    assert.deepEqual(stored, [queued.map((r) => r.deliveryId)])
  })
})

describe('result writer: results of attempts', () => {
  const row = (attempts: number) => ({ id: 'd1', endpoint_id: 'e1', attempts }) as ClaimedDelivery
  const sent = (outcome: Sent['outcome'], status: number | null): Sent => ({
    outcome,
    status,
    snippet: 'body',
    message: outcome === 'succeeded' ? null : `${outcome} in words`,
    durationMs: 12,
    startedAt: new Date(1_000),
    at: new Date(2_000),
    signedAt: 1,
  })

  test('retries follow the delays plus up to 10 % jitter; none after the last', () => {
    const now = new Date(0)
    for (let i = 0; i < 50; i++) {
      const first = retryAt([1000, 60_000], 1, now)!.getTime()
      assert.ok(first >= 1000 && first < 1100, `${first}`)
      const second = retryAt([1000, 60_000], 2, now)!.getTime()
      assert.ok(second >= 60_000 && second < 66_000, `${second}`)
    }
    assert.equal(retryAt([1000, 60_000], 3, now), null)
    assert.equal(retryAt([], 1, now), null)
  })

  test('a success finishes the delivery; a failure schedules a retry, or fails it after the last', () => {
    assert.deepEqual(sentResult(row(1), sent('succeeded', 204), [1000]), {
      deliveryId: 'd1',
      endpointId: 'e1',
      status: 'succeeded',
      errorCode: null,
      errorMessage: null,
      responseStatus: 204,
      snippet: 'body',
      durationMs: 12,
      nextAttemptAt: null,
      startedAt: new Date(1_000),
      at: new Date(2_000),
      counts: true,
      probeAt: null,
      signedAt: 1,
      traceId: null,
    })
    const retried = sentResult(row(1), sent('http_error', 500), [1000])
    assert.equal(retried.status, 'pending')
    assert.equal(retried.errorCode, 'http_error')
    assert.equal(retried.errorMessage, 'http_error in words', 'the attempt\u2019s message goes to the log')
    assert.equal(retried.responseStatus, 500)
    assert.ok(retried.nextAttemptAt!.getTime() >= 3_000)
    const last = sentResult(row(2), sent('timeout', null), [1000])
    assert.deepEqual(
      [last.status, last.errorCode, last.nextAttemptAt, last.counts],
      ['failed', 'timeout', null, true],
    )
  })

  test('an attempt to an endpoint disabled meanwhile fails its delivery without counting', () => {
    const at = new Date(5_000)
    const r = disabledResult(row(1), at)
    assert.deepEqual(
      [r.status, r.errorCode, r.counts, r.durationMs, r.responseStatus, r.startedAt, r.at],
      ['failed', 'endpoint_disabled', false, null, null, at, at],
    )
  })
})
