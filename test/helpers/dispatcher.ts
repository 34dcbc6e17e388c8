import assert from 'node:assert/strict'
import { after, before, type TestContext } from 'node:test'
import type { Dispatcher, DispatcherOptions } from '../../src/modules/webhooks/worker/dispatcher.ts'
import { createTestApp, DIALECT, orderBody, type TestApp } from './app.ts'
import { loopbackResolver, type ReceivedRequest, type Reply, startReceiver } from './https-receiver.ts'
import { waitUntil } from './wait.ts'
import { resolverWithWrongName } from './webhook-targets.ts'

/**
 * One app per file (a fresh embedded database is slow to build); each test
 * gets its own receiver, organization and dispatchers, and leaves nothing
 * running or pending behind for the next.
 */
/** An endpoint's deliveries, oldest first. */
export const endpointDeliveries = (t: TestApp, endpointId: string) =>
  t.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()

export function useDispatcherApp() {
  let shared: TestApp
  before(async () => {
    shared = await createTestApp({
      resolver: resolverWithWrongName,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    })
  })
  after(() => shared.close())
  return (ctx: TestContext, options: DispatcherSetupOptions = {}) => setupDispatcher(shared, ctx, options)
}

export interface DispatcherSetupOptions {
  respond?: (req: ReceivedRequest, n: number) => Reply
}

/** A receiver, an organization and the means to start dispatchers, all cleaned up after the test. */
async function setupDispatcher(t: TestApp, ctx: TestContext, options: DispatcherSetupOptions) {
  const receiver = await startReceiver(options.respond)
  const started: Dispatcher[] = []
  ctx.after(async () => {
    for (const d of started) await d.stop(100)
    await t.db.deleteFrom('webhook_queue').execute()
    await t.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('status', '=', 'pending')
      .execute()
    await receiver.close()
  })
  const tenant = await t.tenant()

  async function endpoint(path: string, opts: { key?: string; url?: string } = {}) {
    const res = await t.api(opts.key ?? tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: opts.url ?? receiver.url(path),
    })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as { endpoint: { id: string }; secret: string }
  }

  async function order(key = tenant.liveKey): Promise<string> {
    const res = await t.api(key, 'POST', '/v1/orders', orderBody())
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.order.id
  }

  /** A dispatcher trusting the receiver's certificate (unless `ca` is overridden). */
  async function dispatch(overrides: Partial<DispatcherOptions> = {}, app: TestApp = t) {
    const d = await app.startDispatcher({ ca: receiver.ca, ...overrides })
    started.push(d)
    return d
  }

  /**
   * Another instance on the database: on PostgreSQL one with its own
   * connection pool; PGlite has one connection, so this same app.
   */
  async function instance(): Promise<TestApp> {
    if (DIALECT !== 'postgres') return t
    const second = await createTestApp({
      testDb: t.testDb,
      db: await t.testDb.openAnother(),
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    })
    ctx.after(() => second.close())
    return second
  }

  /** Two workers on the database, in two instances on PostgreSQL (see `instance`). */
  async function twoWorkers(overrides: Partial<DispatcherOptions>): Promise<Dispatcher[]> {
    const second = await instance()
    return Promise.all([dispatch(overrides), dispatch(overrides, second)])
  }

  const deliveries = (endpointId: string) => endpointDeliveries(t, endpointId)

  /** The queue rows (attempts still to be made) of an endpoint. */
  const queued = (endpointId: string) =>
    t.db.selectFrom('webhook_queue').selectAll().where('endpoint_id', '=', endpointId).execute()

  const endpointRow = (id: string) =>
    t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  /** The only delivery of an endpoint, once `done` says it is there. */
  const settled = (
    endpointId: string,
    done: (row: Awaited<ReturnType<typeof deliveries>>[number]) => boolean,
  ) =>
    waitUntil(async () => {
      const rows = await deliveries(endpointId)
      return rows.length === 1 && done(rows[0]!) && rows[0]
    }, 'the delivery to settle')

  /**
   * An endpoint of another organization and an order there: its delivery once
   * it succeeded, and how long that took from the order (ms).
   */
  async function deliveredElsewhere() {
    const other = await t.tenant()
    const fast = (await endpoint('/fast', { key: other.liveKey })).endpoint
    const started = Date.now()
    await order(other.liveKey)
    const row = await settled(fast.id, (r) => r.status === 'succeeded')
    return { row, waited: Date.now() - started }
  }

  return {
    t,
    receiver,
    tenant,
    endpoint,
    order,
    dispatch,
    instance,
    twoWorkers,
    deliveries,
    queued,
    endpointRow,
    settled,
    deliveredElsewhere,
  }
}

/** The parts of a request's signature header. */
export const signature = (req: ReceivedRequest) => {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-service-signature']))
  assert.ok(match, `signature header ${req.headers['x-service-signature']}`)
  return { t: Number(match[1]), v1: match[2]! }
}
