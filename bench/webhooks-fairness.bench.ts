// Webhook fairness benchmark (issue 15, item 4). Not part of npm test. Needs PostgreSQL.
//
//   npm run bench:webhooks-fairness
//   npm run bench:webhooks-fairness -- --seconds=90 --pings=160 --orgs=1 --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// One service (API and worker, default worker settings, the default rate limit
// per key) on a fresh PostgreSQL database.
// Organization A registers ten endpoints (five live, five test) on a receiver
// that accepts connections, reads each request and never answers, then queues
// --pings test pings at once (160 by default: 16 per endpoint, 80 per key), and
// goes on pinging as fast as its rate limit allows. Organization B has one
// healthy endpoint and creates an order every 600 ms (within its rate limit).
// With --orgs=N, N organizations do what A does.
// The run lasts --seconds after the burst (90 by default, which covers the
// first retries of the burst's pings, due one minute after their attempts time
// out). Reported: for B, the delay from each event's recording (its envelope's
// created_at) to the arrival of its first attempt, before the burst and after;
// for A, the most requests left hanging at once; the service's peak RSS.
// Target: B's max < 1000 ms.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { benchArgs } from './lib/args.ts'
import { certificate, listen } from './lib/https.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { percentile, type Service, startService, v1 } from './lib/service.ts'

const {
  seconds: SECONDS,
  pings: PINGS,
  /** Organizations like A. */
  orgs: ORGS,
  flags,
} = benchArgs({ seconds: 90, pings: 160, orgs: 1 }, { 'pg-url': PG_URL_OPTION })
const BOUND_MS = 1000
const work = mkdtempSync(join(tmpdir(), 'bench-fairness-'))

/** Reads every request and never answers; counts the requests left open. */
async function hangingReceiver(tls: { key: string; cert: string }) {
  const stats = { received: 0, open: 0, mostOpen: 0 }
  const server = createServer(tls, (req) => {
    req.resume()
    stats.received++
    stats.open++
    stats.mostOpen = Math.max(stats.mostOpen, stats.open)
    req.socket.once('close', () => stats.open--)
  })
  server.requestTimeout = 0
  return { ...(await listen(server)), stats }
}

/** Answers 200 at once; records when each event's first attempt arrived, and how long after its recording. */
async function healthyReceiver(tls: { key: string; cert: string }) {
  const firsts = new Map<string, { at: number; delay: number }>()
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const at = Date.now()
      res.end()
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; created_at: string }
      if (!firsts.has(event.id)) firsts.set(event.id, { at, delay: at - Date.parse(event.created_at) })
    })
  })
  return { ...(await listen(server)), firsts }
}

const summary = (delays: number[]) =>
  delays.length === 0
    ? 'none'
    : `${delays.length} events, max ${Math.max(...delays)} ms, p90 ${percentile(delays, 90)} ms, p50 ${percentile(delays, 50)} ms`

async function main() {
  const tls = await certificate(work)
  const hanging = await hangingReceiver(tls)
  const healthy = await healthyReceiver(tls)
  const database = await freshDatabase(flags['pg-url'], 'bench_fair')
  let service: Service | undefined
  let running = true
  try {
    service = await startService({
      DATABASE_URL: database.url,
      DATA_DIR: join(work, 'data'),
      NODE_EXTRA_CA_CERTS: join(work, 'cert.pem'),
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      // The service's default (bench/lib/service.ts raises it for other benches).
      RATE_LIMIT_PER_MINUTE: '',
    })
    const s = service
    const key = async (orgId: string, environment: 'live' | 'test') =>
      (
        await s.admin('POST', `/organizations/${orgId}/api-keys`, {
          environment,
          scopes: ['orders:read', 'orders:write', 'webhooks:manage'],
        })
      ).data.key as string
    const orgB = (await s.admin('POST', '/organizations', { name: 'Healthy receiver' })).data.organization
    const keyB = await key(orgB.id, 'live')
    /** Per organization like A: its two keys, and its ten endpoints with the key that manages each. */
    const orgsA: { keys: string[]; endpoints: { key: string; id: string }[] }[] = []
    for (let o = 0; o < ORGS; o++) {
      const org = (await s.admin('POST', '/organizations', { name: `Hanging receivers ${o}` })).data
        .organization
      const entry = {
        keys: [await key(org.id, 'live'), await key(org.id, 'test')],
        endpoints: [] as { key: string; id: string }[],
      }
      for (const [k, keyA] of entry.keys.entries()) {
        for (let i = 0; i < 5; i++) {
          const res = await v1(s, keyA, 'POST', '/webhook-endpoints', {
            url: `https://localhost:${hanging.port}/a${o}-${k}-${i}`,
          })
          if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${JSON.stringify(res.json)}`)
          entry.endpoints.push({ key: keyA, id: res.json.data.endpoint.id })
        }
      }
      orgsA.push(entry)
    }
    const created = await v1(s, keyB, 'POST', '/webhook-endpoints', {
      url: `https://localhost:${healthy.port}/b`,
    })
    if (created.status !== 201) throw new Error(`endpoint: ${created.status}`)

    // B's trickle: an order every 600 ms (100 a minute), for the whole run.
    let orders = 0
    let orderFailures = 0
    const trickle = (async () => {
      while (running) {
        const started = Date.now()
        const res = await v1(s, keyB, 'POST', '/orders', {
          external_order_id: `FAIR-${orders}-${randomBytes(3).toString('hex')}`,
          customer: { name: 'B' },
          items: [{ name: 'x', quantity: 1 }],
        })
        if (res.status === 201) orders++
        else orderFailures++
        await sleep(Math.max(0, 600 - (Date.now() - started)))
      }
    })()
    await sleep(3000)

    // The burst: PINGS test pings over each A's ten endpoints, 20 requests at a time.
    const burstAt = Date.now()
    let queued = 0
    let refused = 0
    let disabled = 0
    const failed: string[] = []
    const ping = async (o: number, n: number) => {
      const e = orgsA[o]!.endpoints[n % 10]!
      const res = await v1(s, e.key, 'POST', `/webhook-endpoints/${e.id}/test`)
      if (res.status === 202) queued++
      else if (res.status === 429) refused++
      // 25 failed attempts in a row disable an endpoint; then its pings are refused.
      else if (res.status === 422 && res.json.error?.code === 'validation_failed') disabled++
      else failed.push(`${res.status} ${JSON.stringify(res.json)}`)
      return res
    }
    for (let o = 0; o < ORGS; o++) {
      for (let n = 0; n < PINGS; n += 20) {
        await Promise.all(Array.from({ length: Math.min(20, PINGS - n) }, (_, i) => ping(o, n + i)))
      }
    }
    const burstQueued = queued
    // Then as fast as each of their keys may: 2 per second, waiting out a 429.
    const pinging = orgsA.flatMap((_, o) =>
      [0, 1].map(async (k) => {
        // Endpoints 0-4 belong to the live key, 5-9 to the test key.
        let n = k * 5
        while (running) {
          const res = await ping(o, n)
          n = k * 5 + ((n + 1) % 5)
          await sleep(res.status === 429 ? res.retryAfter * 1000 : 500)
        }
      }),
    )
    const endAt = burstAt + SECONDS * 1000
    let lastReport = Date.now()
    while (Date.now() < endAt) {
      await sleep(250)
      if (Date.now() - lastReport >= 10_000) {
        lastReport = Date.now()
        const recent = [...healthy.firsts.values()].filter((f) => f.at > lastReport - 10_000)
        console.log(
          `${((Date.now() - burstAt) / 1000).toFixed(0).padStart(3)} s: B ${summary(recent.map((f) => f.delay))}; A's requests hanging now ${hanging.stats.open}, at most ${hanging.stats.mostOpen}`,
        )
      }
    }
    running = false
    await trickle
    await Promise.all(pinging)
    await sleep(1500)

    const firsts = [...healthy.firsts.values()]
    const before = firsts.filter((f) => f.at < burstAt).map((f) => f.delay)
    const during = firsts.filter((f) => f.at >= burstAt).map((f) => f.delay)
    const missing = orders - firsts.length
    console.log(
      `\nwebhooks fairness benchmark: PostgreSQL, node ${process.version}, ${SECONDS} s after the burst`,
    )
    console.log(
      `A${ORGS > 1 ? ` (${ORGS} organizations)` : ''}: 10 endpoints each that never answer; ${burstQueued} pings queued at once, ${queued - burstQueued} more within the rate limit (${refused} refused with 429, ${disabled} with 422 once their endpoint was disabled); at most ${hanging.stats.mostOpen} requests hanging at once, ${hanging.stats.received} in all`,
    )
    console.log(`service peak RSS ${(s.memory().peak / 1048576).toFixed(0)} MB`)
    console.log(`B, event recorded -> first attempt arrived, before the burst: ${summary(before)}`)
    console.log(`B, event recorded -> first attempt arrived, from the burst on: ${summary(during)}`)
    if (missing > 0) console.log(`B: ${missing} of ${orders} events had no attempt arrive by the end`)
    if (orderFailures > 0) console.log(`B: ${orderFailures} orders were refused`)
    if (failed.length > 0) console.log(`A: ${failed.length} pings failed, the first: ${failed[0]}`)
    const worst = Math.max(...during)
    const pass = missing === 0 && orderFailures === 0 && failed.length === 0 && worst < BOUND_MS
    console.log(
      `${pass ? 'PASS' : 'FAIL'}  B's first attempts from the burst on: max < ${BOUND_MS} ms: ${worst} ms`,
    )
  } finally {
    running = false
    await service?.stop()
    hanging.close()
    healthy.close()
    await database.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
