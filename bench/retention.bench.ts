// The retention prune at a million orders (issue 50). Not part of npm test: the
// suite's own tests of the prune are test/modules/personal-data/retention.test.ts.
//
//   npm run bench:retention
//   npm run bench:retention -- --orders=1000000 --days=30 --seconds=10 --clients=16 --pg-url=postgres://postgres@127.0.0.1:5432/test
//   npm run bench:retention -- --embedded
//
// PostgreSQL: the real service (src/main.ts) on a fresh database, the prune run
// in this process as another instance runs it. --embedded: the service on the
// embedded database (in memory) in this process, which runs the prune as an
// embedded service does, beside its requests. --orders (1 M) orders are seeded
// in SQL over the last 90 days (most of them finished); the organization keeps
// finished orders' personal data --days (30). --clients (16) clients in a
// worker thread send orders for --seconds alone, then for the prune's first
// --seconds; the prune goes on alone until it is done; then again, when
// nothing is new; then orders alone again for --seconds.
// Reported: a preview's time by e-mail and by phone; orders erased, the prune's
// time and orders/s (and while orders arrived); the second prune's time (it
// starts from where the first stopped); intake during the prune against intake
// alone (orders/s, p99; alone is the mean of before and after the prune).
// Target: the second prune under 1 s; intake during the prune >= 0.7 of alone.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { CompiledQuery } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { DEFAULT_CONFIG } from '../src/config.ts'
import { type Database, migrateToLatest, openDatabase } from '../src/db/database.ts'
import { createMemoryRateLimiter } from '../src/http/rate-limit.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createPersonalDataService, type PersonalDataService } from '../src/modules/personal-data/index.ts'
import { createLocalStorage } from '../src/modules/uploads/storage/local.ts'
import { createServices } from '../src/services.ts'
import { benchArgs } from './lib/args.ts'
import { type SqlClient, seedOrders } from './lib/dashboard-data.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { startService, tenant } from './lib/service.ts'

const {
  orders: ORDERS,
  days: DAYS,
  seconds: SECONDS,
  clients: CLIENTS,
  flags,
} = benchArgs(
  { orders: 1_000_000, days: 30, seconds: 10, clients: 16 },
  { 'pg-url': PG_URL_OPTION, embedded: { type: 'boolean', default: false } },
)

/** The service under the bench, on one database or the other. */
interface Target {
  name: string
  base: string
  orgId: string
  key: string
  // biome-ignore lint/suspicious/noExplicitAny: operator answers, read field by field
  admin(method: string, path: string, body?: unknown): Promise<any>
  sql: SqlClient
  personalData: PersonalDataService
  close(): Promise<void>
}

async function postgresTarget(): Promise<Target> {
  const database = await freshDatabase(flags['pg-url'], 'bench_retention')
  const service = await startService({ DATABASE_URL: database.url })
  const opened = await openDatabase({ url: database.url, poolSize: 4 })
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  const { orgId, key } = await tenant(service, 'Retention Bench')
  return {
    name: 'PostgreSQL',
    base: service.base,
    orgId,
    key,
    admin: async (method, path, body) => (await service.admin(method, path, body)).data,
    sql: client,
    personalData: createPersonalDataService({
      db: opened.db,
      clock: systemClock,
      orderViews: async (rows) => rows,
      flushRequestLog: async () => {},
    }),
    async close() {
      await client.end()
      await opened.db.destroy()
      await service.stop()
      await database.drop()
    },
  }
}

async function embeddedTarget(): Promise<Target> {
  const OPERATOR_TOKEN = 'op_bench_retention_embedded_0123456789abcdef'
  const files = mkdtempSync(join(tmpdir(), 'bench-retention-'))
  const { db, listen } = await openDatabase({})
  await migrateToLatest(db)
  const RATE = 10_000_000
  const deps = {
    config: {
      ...DEFAULT_CONFIG,
      publicBaseUrl: 'http://127.0.0.1',
      logLevel: 'silent',
      rateLimitPerMinute: RATE,
    },
    db,
    listen,
    storage: createLocalStorage({ root: files }),
    clock: systemClock,
    rateLimiter: createMemoryRateLimiter(RATE),
    operatorToken: OPERATOR_TOKEN,
    // As src/main.ts sets it on the embedded database.
    pruneRest: 3,
  } as const
  // The services the routes use: the prune runs on them, in this process, as src/start-up.ts runs it.
  const services = createServices(deps)
  const app = await buildApp(deps, services)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await app.inject({
      method: method as 'POST',
      url: `/admin/v1${path}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const org = (await admin('POST', '/organizations', { name: 'Retention Bench' })).organization
  const key = (
    await admin('POST', `/organizations/${org.id}/api-keys`, {
      environment: 'live',
      scopes: ['orders:write'],
    })
  ).key as string
  return {
    name: 'embedded (PGlite, in this process)',
    base: `http://127.0.0.1:${port}`,
    orgId: org.id,
    key,
    admin,
    sql: statements(db),
    personalData: services.personalData,
    async close() {
      await app.close()
      await db.destroy()
      rmSync(files, { recursive: true, force: true })
    },
  }
}

/** Statements with parameters on a Kysely database, as the seed sends them to a pg.Client. */
const statements = (db: Database): SqlClient => ({
  query: (text, values = []) => db.executeQuery(CompiledQuery.raw(text, values)),
})

/**
 * --clients clients in a worker thread sending orders until the main thread
 * says stop: the service's event loop, when it is in this process, carries
 * only the service. Answers orders/s and p99.
 */
function load(base: string, key: string): { stop(): Promise<{ perSecond: number; p99: number }> } {
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads')
    const { randomBytes } = require('node:crypto')
    const { base, key, clients } = workerData
    let stopping = false
    parentPort.once('message', () => { stopping = true })
    const order = () => JSON.stringify({
      external_order_id: 'EXT-' + randomBytes(6).toString('hex'),
      customer: { name: 'New Customer', email: 'new-' + randomBytes(4).toString('hex') + '@example.com' },
      items: [{ sku: 'MUG-01', name: 'Mug', quantity: 1, price: 12.5, personalization: { text: 'Hello' } }],
    })
    const latencies = []
    const started = performance.now()
    Promise.all(Array.from({ length: clients }, async () => {
      while (!stopping) {
        const t0 = performance.now()
        const res = await fetch(base + '/v1/orders', {
          method: 'POST',
          headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json' },
          body: order(),
        })
        await res.arrayBuffer()
        if (res.status !== 201) throw new Error('POST /v1/orders: ' + res.status)
        latencies.push(performance.now() - t0)
      }
    })).then(() => {
      const seconds = (performance.now() - started) / 1000
      latencies.sort((a, b) => a - b)
      const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0
      parentPort.postMessage({ perSecond: latencies.length / seconds, p99 })
    })
    `,
    { eval: true, workerData: { base, key, clients: CLIENTS } },
  )
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (result) => {
          resolve(result)
          void worker.terminate()
        })
        worker.once('error', reject)
        worker.postMessage('stop')
      }),
  }
}

const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const target = flags.embedded ? await embeddedTarget() : await postgresTarget()
let failed = false
try {
  const { orgId } = target
  const seedStarted = performance.now()
  await seedOrders(target.sql, orgId, ORDERS)
  await target.sql.query('analyze')
  console.log(
    `${target.name}: ${ORDERS} orders seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`,
  )
  await target.admin('PUT', `/organizations/${orgId}/retention`, {
    request_body_retention_days: 30,
    webhook_answer_retention_days: 90,
    personal_data_retention_days: DAYS,
  })

  // Finding a customer among a million orders: by e-mail (an index), by phone (its digits: every order read).
  const timedPreview = async (body: Record<string, string>) => {
    const t0 = performance.now()
    const data = await target.admin('POST', `/organizations/${orgId}/personal-data/preview`, body)
    return { ms: performance.now() - t0, orders: data.orders.total as number }
  }
  const byEmail = await timedPreview({ email: 'customer4242@example.com' })
  const byPhone = await timedPreview({ phone: '+49 30 0000 0000' })
  console.log(
    `preview at ${ORDERS} orders: by e-mail ${byEmail.ms.toFixed(0)} ms (${byEmail.orders} orders), by phone ${byPhone.ms.toFixed(0)} ms (${byPhone.orders} orders)`,
  )

  const count = async () => {
    const result = (await target.sql.query(
      'select count(*) filter (where erased_at is not null) as n from orders',
    )) as { rows: { n: string }[] }
    return Number(result.rows[0]!.n)
  }
  const beforeLoad = load(target.base, target.key)
  await after(SECONDS * 1000)
  const before = await beforeLoad.stop()
  // The prune starts; for --seconds orders arrive beside it, then it goes on alone until done.
  const duringLoad = load(target.base, target.key)
  const pruneStarted = performance.now()
  let pruneMs = 0
  const pruning = target.personalData.prune().then((done) => {
    pruneMs = performance.now() - pruneStarted
    return done
  })
  await after(SECONDS * 1000)
  const during = await duringLoad.stop()
  const erasedDuringLoad = await count()
  const duringMs = performance.now() - pruneStarted
  const first = await pruning
  const secondStarted = performance.now()
  const second = await target.personalData.prune()
  const secondMs = performance.now() - secondStarted
  // Intake alone again, after the prune: the ratio is against the mean of before and after.
  const againLoad = load(target.base, target.key)
  await after(SECONDS * 1000)
  const again = await againLoad.stop()
  const alone = {
    perSecond: (before.perSecond + again.perSecond) / 2,
    p99: Math.max(before.p99, again.p99),
  }

  const ratio = during.perSecond / alone.perSecond
  console.log('')
  console.log(
    `first prune: ${first.orders} orders erased (finished more than ${DAYS} days ago) in ${(pruneMs / 1000).toFixed(1)} s, ${(first.orders / (pruneMs / 1000)).toFixed(0)} orders/s; ${(erasedDuringLoad / (duringMs / 1000)).toFixed(0)} orders/s while orders arrived`,
  )
  console.log(
    `second prune: ${second.orders} orders in ${secondMs.toFixed(0)} ms (target < 1000: it starts where the first stopped)`,
  )
  console.log(
    `intake alone ${alone.perSecond.toFixed(0)} orders/s (${before.perSecond.toFixed(0)} before the prune, ${again.perSecond.toFixed(0)} after), p99 ${alone.p99.toFixed(1)} ms; beside the prune ${during.perSecond.toFixed(0)} orders/s, p99 ${during.p99.toFixed(1)} ms: ${ratio.toFixed(2)} (target >= 0.7)`,
  )
  if (secondMs >= 1000 || ratio < 0.7 || first.orders === 0) failed = true
} finally {
  await target.close()
}
process.exit(failed ? 1 : 0)
