import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { waitUntil } from '../../helpers/wait.ts'

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
