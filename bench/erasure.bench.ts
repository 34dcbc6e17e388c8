// A customer's erasure while orders arrive (issue 50). Not part of npm test: the
// suite's own tests of the erasure are test/modules/personal-data/.
//
//   npm run bench:erasure
//   npm run bench:erasure -- --orders=10000 --seconds=10 --clients=16 --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// The real service (src/main.ts) on a fresh PostgreSQL database. --orders (10 000)
// live orders of one customer are sent through /v1 first. Then --clients (16)
// clients send other customers' orders for --seconds (10) alone, and again while
// the operator API erases the customer (every batch of 200 orders, their
// request-log bodies, receivers' answers and audit values), for as long as the
// erasure takes and at least --seconds.
// Reported: intake alone and during the erasure (orders/s, p50 and p99, service
// CPU per order), the ratio of the two, and the erasure's time and orders/s.
// Target: intake during the erasure >= 0.7 of intake alone, p99 <= 2x; exits 1 otherwise.
import { randomBytes } from 'node:crypto'
import { benchArgs } from './lib/args.ts'
import { cpuMs } from './lib/cpu.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { percentile, startService, tenant } from './lib/service.ts'

const {
  orders: ORDERS,
  seconds: SECONDS,
  clients: CLIENTS,
  flags,
} = benchArgs({ orders: 10_000, seconds: 10, clients: 16 }, { 'pg-url': PG_URL_OPTION })

const body = (customer: { name: string; email: string; phone: string }) =>
  JSON.stringify({
    external_order_id: `EXT-${randomBytes(6).toString('hex')}`,
    customer,
    currency: 'EUR',
    total_amount: 59.9,
    items: [
      {
        sku: 'MUG-01',
        name: 'Mug',
        quantity: 2,
        price: 12.5,
        personalization: { text: `For ${customer.name}` },
      },
      { sku: 'CARD-01', name: 'Card', quantity: 1, price: 2 },
      { sku: 'TEE-01', name: 'Shirt', quantity: 1, price: 19, personalization: { size: 'L' } },
    ],
  })

/** `clients` closed-loop clients posting orders until `until()` says stop; the latencies in ms. */
async function load(base: string, key: string, clients: number, until: () => boolean): Promise<number[]> {
  const latencies: number[] = []
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        const started = performance.now()
        const res = await fetch(`${base}/v1/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body({
            name: 'Other Customer',
            email: `other-${randomBytes(4).toString('hex')}@example.com`,
            phone: '+49 40 9876 5432',
          }),
        })
        await res.arrayBuffer()
        if (res.status !== 201) throw new Error(`POST /v1/orders: ${res.status}`)
        latencies.push(performance.now() - started)
      }
    }),
  )
  return latencies
}

const database = await freshDatabase(flags['pg-url'], 'bench_erasure')
const service = await startService({ DATABASE_URL: database.url })
let failed = false
try {
  const { orgId, key } = await tenant(service, 'Erasure Bench')
  const customer = {
    name: 'Anna Erasure',
    email: `anna-${randomBytes(4).toString('hex')}@kunden.example`,
    phone: '+49 30 1234 5678',
  }
  console.log(`seeding ${ORDERS} orders of one customer through /v1 ...`)
  let sent = 0
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (sent < ORDERS) {
        sent++
        const res = await fetch(`${service.base}/v1/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body(customer),
        })
        await res.arrayBuffer()
        if (res.status !== 201) throw new Error(`seed: ${res.status}`)
      }
    }),
  )

  const measure = async (during?: Promise<unknown>) => {
    const cpu0 = cpuMs(service.child.pid!)!
    const started = performance.now()
    let settled = during === undefined
    void during?.finally(() => {
      settled = true
    })
    const latencies = await load(
      service.base,
      key,
      CLIENTS,
      () => settled && performance.now() - started >= SECONDS * 1000,
    )
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuMs(service.child.pid!)! - cpu0
    return {
      perSecond: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuPerOrder: cpu / latencies.length,
    }
  }

  const alone = await measure()
  const erasureStarted = performance.now()
  let erasure: { orders: number; request_log_lines: number } | undefined
  const erasing = service
    .admin('POST', `/organizations/${orgId}/personal-data/erasures`, {
      email: customer.email,
      personalization: 'all',
    })
    .then((res) => {
      erasure = res.data
      return performance.now() - erasureStarted
    })
  const during = await measure(erasing)
  const erasureMs = await erasing
  const ratio = during.perSecond / alone.perSecond
  const p99Ratio = during.p99 / alone.p99
  const row = (name: string, r: typeof alone) =>
    `${name.padEnd(16)} ${r.perSecond.toFixed(0).padStart(6)} orders/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   service CPU ${r.cpuPerOrder.toFixed(2)} ms/order`
  console.log('')
  console.log(row('intake alone', alone))
  console.log(row('during erasure', during))
  console.log(
    `erasure: ${erasure?.orders} orders, ${erasure?.request_log_lines} request-log bodies in ${(erasureMs / 1000).toFixed(1)} s (${((erasure?.orders ?? 0) / (erasureMs / 1000)).toFixed(0)} orders/s)`,
  )
  console.log(
    `intake during the erasure: ${ratio.toFixed(2)} of alone (target >= 0.7), p99 ${p99Ratio.toFixed(2)}x (target <= 2)`,
  )
  if (erasure?.orders !== ORDERS) {
    console.log(`MISS: ${erasure?.orders} orders erased, ${ORDERS} expected`)
    failed = true
  }
  if (ratio < 0.7 || p99Ratio > 2) failed = true
} finally {
  await service.stop()
  await database.drop()
}
process.exit(failed ? 1 : 0)
