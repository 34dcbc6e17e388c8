// The retention prune at a million orders (issue 50). Not part of npm test: the
// suite's own tests of the prune are test/modules/personal-data/retention.test.ts.
//
//   npm run bench:retention
//   npm run bench:retention -- --orders=1000000 --days=30 --seconds=10 --clients=16 --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// The real service (src/main.ts) on a fresh PostgreSQL database with --orders
// (1 M) orders seeded in SQL over the last 90 days (most of them finished). The
// organization keeps finished orders' personal data --days (30); the prune is
// run in this process, as another instance runs it, with 16 clients sending
// orders to the service for its first --seconds, then alone until it is done;
// then again, when nothing is new.
// Reported: a preview's time by e-mail and by phone; orders erased, the prune's time and orders/s
// (and while orders arrived); the second prune's
// time (it starts from where the first stopped); intake during the prune
// against intake alone (orders/s, p99).
// Target: the second prune under 1 s; intake during the prune >= 0.7 of alone.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openDatabase } from '../src/db/database.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createPersonalDataService } from '../src/modules/personal-data/index.ts'
import { benchArgs } from './lib/args.ts'
import { seedOrders } from './lib/dashboard-data.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { percentile, startService, tenant } from './lib/service.ts'

const {
  orders: ORDERS,
  days: DAYS,
  seconds: SECONDS,
  clients: CLIENTS,
  flags,
} = benchArgs({ orders: 1_000_000, days: 30, seconds: 10, clients: 16 }, { 'pg-url': PG_URL_OPTION })

const order = () =>
  JSON.stringify({
    external_order_id: `EXT-${randomBytes(6).toString('hex')}`,
    customer: { name: 'New Customer', email: `new-${randomBytes(4).toString('hex')}@example.com` },
    items: [{ sku: 'MUG-01', name: 'Mug', quantity: 1, price: 12.5, personalization: { text: 'Hello' } }],
  })

async function load(
  base: string,
  key: string,
  until: () => boolean,
): Promise<{ perSecond: number; p99: number }> {
  const latencies: number[] = []
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (!until()) {
        const t0 = performance.now()
        const res = await fetch(`${base}/v1/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: order(),
        })
        await res.arrayBuffer()
        if (res.status !== 201) throw new Error(`POST /v1/orders: ${res.status}`)
        latencies.push(performance.now() - t0)
      }
    }),
  )
  return {
    perSecond: latencies.length / ((performance.now() - started) / 1000),
    p99: percentile(latencies, 99),
  }
}

const database = await freshDatabase(flags['pg-url'], 'bench_retention')
const service = await startService({ DATABASE_URL: database.url })
const opened = await openDatabase({ url: database.url, poolSize: 4 })
let failed = false
try {
  const { orgId, key } = await tenant(service, 'Retention Bench')
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  await seedOrders(client, orgId, ORDERS)
  await client.query('analyze')
  await client.end()
  await service.admin('PUT', `/organizations/${orgId}/retention`, {
    request_body_retention_days: 30,
    webhook_answer_retention_days: 90,
    personal_data_retention_days: DAYS,
  })
  const personalData = createPersonalDataService({
    db: opened.db,
    clock: systemClock,
    orderViews: async (rows) => rows,
    flushRequestLog: async () => {},
  })

  // Finding a customer among a million orders: by e-mail (an index), by phone (its digits: every order read).
  const timedPreview = async (body: Record<string, string>) => {
    const t0 = performance.now()
    const { data } = await service.admin('POST', `/organizations/${orgId}/personal-data/preview`, body)
    return { ms: performance.now() - t0, orders: data.orders.total as number }
  }
  const byEmail = await timedPreview({ email: 'customer4242@example.com' })
  const byPhone = await timedPreview({ phone: '+49 30 0000 0000' })
  console.log(
    `preview at ${ORDERS} orders: by e-mail ${byEmail.ms.toFixed(0)} ms (${byEmail.orders} orders), by phone ${byPhone.ms.toFixed(0)} ms (${byPhone.orders} orders)`,
  )

  const count = async () => {
    const c = new pg.Client({ connectionString: database.url })
    await c.connect()
    const { rows } = await c.query<{ n: string }>(
      'select count(*) filter (where erased_at is not null) as n from orders',
    )
    await c.end()
    return Number(rows[0]!.n)
  }
  const loadStarted = performance.now()
  const alone = await load(service.base, key, () => performance.now() - loadStarted >= SECONDS * 1000)
  // The prune starts; for --seconds orders arrive beside it, then it goes on alone until done.
  const pruneStarted = performance.now()
  let pruneMs = 0
  const pruning = personalData.prune().then((done) => {
    pruneMs = performance.now() - pruneStarted
    return done
  })
  const during = await load(service.base, key, () => performance.now() - pruneStarted >= SECONDS * 1000)
  const erasedDuringLoad = await count()
  const duringMs = performance.now() - pruneStarted
  const first = await pruning
  const secondStarted = performance.now()
  const second = await personalData.prune()
  const secondMs = performance.now() - secondStarted

  const ratio = during.perSecond / alone.perSecond
  console.log('')
  console.log(
    `first prune: ${first.orders} orders erased (finished more than ${DAYS} days ago) in ${(pruneMs / 1000).toFixed(1)} s, ${(first.orders / (pruneMs / 1000)).toFixed(0)} orders/s; ${(erasedDuringLoad / (duringMs / 1000)).toFixed(0)} orders/s while orders arrived`,
  )
  console.log(
    `second prune: ${second.orders} orders in ${secondMs.toFixed(0)} ms (target < 1000: it starts where the first stopped)`,
  )
  console.log(
    `intake alone ${alone.perSecond.toFixed(0)} orders/s, p99 ${alone.p99.toFixed(1)} ms; beside the prune ${during.perSecond.toFixed(0)} orders/s, p99 ${during.p99.toFixed(1)} ms: ${ratio.toFixed(2)} (target >= 0.7)`,
  )
  if (secondMs >= 1000 || ratio < 0.7 || first.orders === 0) failed = true
} finally {
  await opened.db.destroy()
  await service.stop()
  await database.drop()
}
process.exit(failed ? 1 : 0)
