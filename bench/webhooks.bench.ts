// Webhook delivery benchmark (issue 4). Not part of npm test. Needs PostgreSQL.
//
//   npm run bench:webhooks                        # 10 000 events
//   npm run bench:webhooks -- --events=2000 --pg-url=postgres://postgres@127.0.0.1:5432/test
//   npm run bench:webhooks -- --rounds=5 --warmup=20000 --concurrency=128 --latency=50
//
// 1. A backlog of N events to 1 endpoint, and N events to 5 endpoints, delivered
//    by a service with the worker on to a local HTTPS receiver (its own process).
//    Each scenario starts a fresh service and warms it up first (not measured)
//    with --warmup deliveries, 20 000 by default: JIT, TLS connections, prepared
//    statements. Both sides need that many: after 2 000 requests the raw client
//    still ran at about half its steady speed (10-12.7 k vs 19-22 k req/s, 86-93
//    vs 45-51 us CPU per request, measured alternately), and the worker's V8
//    threads were still compiling its hot path during a measured backlog. Then the
//    measured backlog is seeded in SQL as the outbox writes it, due a moment
//    later, and its queue analyzed, as autovacuum keeps a live queue table
//    analyzed (migration 0007: every 5 000 changed rows); a table seeded in one
//    statement and claimed at once would have no statistics, which no running
//    service sees. Right after each measured backlog, its baseline: as many raw
//    undici POSTs of the same signed bodies over kept-alive HTTPS to the same
//    receiver, from a fresh process after the same number of warm-up requests.
//    A round's ratio = service deliveries/s over raw POSTs/s; the result is the
//    median of the rounds' ratios (target >= 0.5). Measuring each baseline next
//    to its backlog, over as many requests, keeps a burst of load from elsewhere
//    on this shared machine from landing on one side of a ratio only. Also
//    printed: CPU per delivery by process, how busy the whole machine was,
//    deliveries per write transaction of the worker, and TLS connections
//    opened while measuring.
//
// BENCH_SERVICE_ARGS passes extra Node flags to the service processes, e.g.
// BENCH_SERVICE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" for a profile.
// 2. Time from POST /v1/orders to the order.received delivery arriving, with an
//    idle worker: p50 over sequential orders (target < 10 ms: the worker is woken when deliveries are queued).
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import pg from 'pg'
import { DEFAULT_CONFIG } from '../src/config.ts'
import { benchArgs } from './lib/args.ts'
import { cpuMs, machineCpuMs, threadCpuMs } from './lib/cpu.ts'
import { certificate, listen } from './lib/https.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { percentile, ROOT, type Service, startService, tenant, v1 } from './lib/service.ts'

const args = benchArgs(
  { events: 10_000, warmup: 20_000, rounds: 5, latency: 50, concurrency: undefined },
  { 'pg-url': PG_URL_OPTION },
)
const { events: EVENTS, warmup: WARMUP, rounds: ROUNDS, flags } = args
/** Attempts the worker keeps in flight (the service's default unless --concurrency). */
const CONCURRENCY = args.concurrency ?? DEFAULT_CONFIG.webhookConcurrency
/** Requests the raw baseline keeps in flight. */
const BASELINE_IN_FLIGHT = 16
const work = mkdtempSync(join(tmpdir(), 'bench-webhooks-'))
/** user + system CPU of a process so far, in microseconds (0 once it is gone). */
const cpuUs = (pid: number | undefined) => (pid === undefined ? 0 : (cpuMs(pid) ?? 0) * 1000)
const sumCpu = (pids: number[]) => pids.reduce((total, pid) => total + cpuUs(pid), 0)
/** CPU microseconds so far of V8's background threads (JIT, GC) in a process. */
const v8ThreadsUs = (pid: number | undefined) =>
  pid === undefined ? 0 : (threadCpuMs(pid).get('V8Worker') ?? 0) * 1000

/** The whole machine's CPU sampled every 20 ms until `stop()`. */
function sampleMachine() {
  const samples: { at: number; busy: number; idle: number }[] = []
  const timer = setInterval(() => samples.push({ at: Date.now(), ...machineCpuMs() }), 20)
  return {
    /**
     * Stops sampling; the share of the machine's CPU that was busy between
     * `from` and `to` (epoch ms), and the busy CPU microseconds per second.
     */
    stop(from: number, to: number): { share: number; busyUsPerSecond: number } | undefined {
      clearInterval(timer)
      const inside = samples.filter((x) => x.at >= from && x.at <= to)
      if (inside.length < 2) return undefined
      const [a, b] = [inside[0]!, inside.at(-1)!]
      const busy = b.busy - a.busy
      return {
        share: busy / (busy + b.idle - a.idle),
        busyUsPerSecond: (busy * 1000) / ((b.at - a.at) / 1000),
      }
    },
  }
}

/** The receiver process; `count()` asks it how many requests arrived and when. */
async function startReceiver() {
  const child: ChildProcess = spawn(
    process.execPath,
    ['bench/lib/receiver.ts', join(work, 'key.pem'), join(work, 'cert.pem')],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const lines = createInterface({ input: child.stdout! })
  const waiting: ((line: string) => void)[] = []
  lines.on('line', (line) => waiting.shift()?.(line))
  const next = () => new Promise<string>((resolve) => waiting.push(resolve))
  const port = Number((await next()).split(' ')[1])
  const ask = async (command: string) => {
    const reply = next()
    child.stdin!.write(`${command}\n`)
    return reply
  }
  return {
    port,
    pid: child.pid,
    async count() {
      const [, n, unique, first, last, conns] = (await ask('count')).split(' ').map(Number)
      return { n: n!, unique: unique!, first: first!, last: last!, conns: conns! }
    },
    reset: () => ask('reset'),
    stop: () => child.stdin!.end(),
  }
}

/** Events with one pending delivery per active endpoint, due in `dueInMs`, written as the outbox writes them. */
async function seedBacklog(db: pg.Client, orgId: string, events: number, dueInMs = 0) {
  await db.query(
    `with e as (
       insert into events (id, organization_id, environment, type, order_id, data, body, created_at)
       select id, $1, 'live', 'order.received', null, data,
              json_build_object('id', id, 'type', 'order.received',
                                'created_at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'api_version', 'v1', 'data', data)::text,
              now()
       from (select uuid_v7() as id,
                    json_build_object('order_id', gen_random_uuid(), 'external_order_id', 'BENCH-' || n) as data
             from generate_series(1, $2) n) s
       returning id, created_at
     ),
     d as (
       insert into webhook_deliveries
         (id, event_id, endpoint_id, organization_id, environment, event_type, status, next_attempt_at, created_at)
       select uuid_v7(), e.id, w.id, w.organization_id, 'live', 'order.received', 'pending',
              e.created_at + $3 * interval '1 millisecond', e.created_at
       from e cross join webhook_endpoints w
       where w.organization_id = $1 and w.environment = 'live' and w.is_active
       -- Event by event, each event's deliveries together, as the outbox
       -- writes them; without the order the plan wrote one endpoint's
       -- deliveries after another's, and the worker served one endpoint at a
       -- time.
       order by e.id, w.id
       returning id, event_id, endpoint_id, next_attempt_at
     )
     insert into webhook_queue (delivery_id, event_id, endpoint_id, next_attempt_at, attempts)
     select id, event_id, endpoint_id, next_attempt_at, 0 from d`,
    [orgId, events, dueInMs],
  )
  await db.query('analyze webhook_queue')
}

async function waitForCount(
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  expected: number,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const c = await receiver.count()
    if (c.n >= expected) return c
    if (Date.now() > deadline) throw new Error(`only ${c.n} of ${expected} deliveries arrived`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The raw baseline: a fresh client process with the same warm-up as each service (lib/raw-client.ts). */
async function rawBaseline(
  port: number,
  warmup: number,
  requests: number,
  concurrency: number,
): Promise<{ rate: number; cpuUsPerRequest: number; machineBusy: number | undefined }> {
  const machine = sampleMachine()
  const child = spawn(
    process.execPath,
    [
      'bench/lib/raw-client.ts',
      String(port),
      join(work, 'cert.pem'),
      String(warmup),
      String(requests),
      String(concurrency),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout!.on('data', (d) => {
    output += d
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const rate = Number(/^rate (\S+)/m.exec(output)?.[1])
  const cpu = Number(/^cpu (\S+)/m.exec(output)?.[1])
  const [, from, to] = /^window (\d+) (\d+)/m.exec(output) ?? []
  const busy = machine.stop(Number(from), Number(to))
  if (code !== 0 || !Number.isFinite(rate)) throw new Error(`raw client failed (${code}): ${output}`)
  return { rate, cpuUsPerRequest: cpu, machineBusy: busy?.share }
}

async function main() {
  const { cert, key } = await certificate(work)
  const receiver = await startReceiver()
  const database = await freshDatabase(flags['pg-url'], 'bench_wh')
  const databaseUrl = database.url
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(work, 'data'),
    NODE_EXTRA_CA_CERTS: join(work, 'cert.pem'),
    WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8,::1/128',
    ...(args.concurrency === undefined ? {} : { WEBHOOK_CONCURRENCY: String(args.concurrency) }),
  }
  let api: Service | undefined
  let worker: Service | undefined
  const db = new pg.Client({ connectionString: databaseUrl })
  try {
    api = await startService({ ...env, WEBHOOK_WORKER: 'off' })
    await db.connect()
    const one = await tenant(api, 'One endpoint')
    const five = await tenant(api, 'Five endpoints')
    const create = async (t: { key: string }, path: string) => {
      const res = await v1(api!, t.key, 'POST', '/webhook-endpoints', {
        url: `https://localhost:${receiver.port}${path}`,
      })
      if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${JSON.stringify(res.json)}`)
    }
    await create(one, '/one')
    for (let i = 0; i < 5; i++) await create(five, `/five-${i}`)

    // Each round measures both backlogs, each followed at once by its
    // baseline: as many raw POSTs as the backlog had deliveries. A scenario's
    // ratio is the median over the rounds of each round's own ratio, so a
    // burst of load from elsewhere on this shared machine during one
    // measurement moves one round, not the result.
    /**
     * Per scenario and round: deliveries/s, the baseline's req/s, and CPU
     * microseconds per delivery: worker, PostgreSQL, receiver, and the
     * worker's V8 background threads.
     */
    const rates = new Map<
      string,
      {
        deliveries: number
        rates: number[]
        raws: number[]
        cpu: number[][]
        perWrite: number[]
        connections: number
        /** Per round: share of the machine's CPU busy, and busy CPU microseconds per delivery in all. */
        machine: number[][]
      }
    >()
    const rawsWide: number[] = []
    /** Per raw run, CPU microseconds per request: raw client, receiver. */
    const rawCpu: number[][] = []
    /** Per raw run: share of the machine's CPU busy while measuring. */
    const rawBusy: number[] = []
    /** Raw POSTs from a fresh client, with the receiver's CPU per request. */
    const measureRaw = async (requests: number, inFlight: number) => {
      await receiver.reset()
      const receiverBefore = cpuUs(receiver.pid)
      const run = await rawBaseline(receiver.port, WARMUP, requests, inFlight)
      return { ...run, receiverUsPerRequest: (cpuUs(receiver.pid) - receiverBefore) / (WARMUP + requests) }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, t, fanOut] of [
        ['1 endpoint', one, 1],
        ['5 endpoints', five, 5],
      ] as const) {
        // Warm-up, not measured: a fresh service on a small backlog.
        const warmupEvents = Math.ceil(WARMUP / fanOut)
        await seedBacklog(db, t.orgId, warmupEvents)
        await receiver.reset()
        worker = await startService(env)
        await waitForCount(receiver, warmupEvents * fanOut, 600_000)
        await receiver.reset()
        // The measured backlog, due once it is in place and analyzed; the idle
        // worker sleeps until the first attempt is due.
        await seedBacklog(db, t.orgId, EVENTS, 1500)
        const expected = EVENTS * fanOut
        // The backends serving the bench database, this process's own excepted.
        const backends = (
          await db.query<{ pid: number }>(
            'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
            [database.name],
          )
        ).rows.map((r) => r.pid)
        // Write transactions (claims, result batches) show how many deliveries
        // each statement of the worker carries: the next transaction id, read
        // without taking one, before and after.
        const nextXid = async () =>
          Number((await db.query('select pg_snapshot_xmax(pg_current_snapshot())::text as x')).rows[0].x)
        const xidBefore = await nextXid()
        const connsBefore = (await receiver.count()).conns
        const before = [cpuUs(worker.child.pid), sumCpu(backends), cpuUs(receiver.pid)]
        const v8Before = v8ThreadsUs(worker.child.pid)
        // The machine's CPU, judged between the first and the last delivery
        // (the wait also covers the time until the backlog is due).
        const machine = sampleMachine()
        const c = await waitForCount(receiver, expected, 600_000)
        const busy = machine.stop(c.first, c.last)
        const after = [cpuUs(worker.child.pid), sumCpu(backends), cpuUs(receiver.pid)]
        const v8After = v8ThreadsUs(worker.child.pid)
        const writes = (await nextXid()) - xidBefore
        const rate = c.n / ((c.last - c.first) / 1000)
        const entry = rates.get(name) ?? {
          deliveries: c.n,
          rates: [],
          raws: [],
          cpu: [],
          perWrite: [],
          connections: 0,
          machine: [],
        }
        if (busy) entry.machine.push([busy.share, busy.busyUsPerSecond / rate])
        entry.rates.push(rate)
        entry.perWrite.push(c.n / writes)
        // TLS connections the worker opened during the measured backlog (all should be from the warm-up).
        entry.connections += c.conns - connsBefore
        entry.cpu.push([...after.map((a, i) => (a - before[i]!) / c.n), (v8After - v8Before) / c.n])
        rates.set(name, entry)
        await worker.stop()
        worker = undefined
        const baseline = await measureRaw(expected, BASELINE_IN_FLIGHT)
        entry.raws.push(baseline.rate)
        rawCpu.push([baseline.cpuUsPerRequest, baseline.receiverUsPerRequest])
        if (baseline.machineBusy !== undefined) rawBusy.push(baseline.machineBusy)
      }
      // The same POSTs with as many in flight as the worker keeps: its traffic
      // shape, for comparison (more connections cost both ends more per request).
      rawsWide.push((await measureRaw(Math.min(EVENTS, 10_000), CONCURRENCY)).rate)
      if (ROUNDS > 1) {
        const line = [...rates]
          .map(([name, e]) => {
            const [w, p, rc] = e.cpu.at(-1)!.map((us) => us.toFixed(0))
            const busy = e.machine.at(-1)?.[0]
            const share = busy === undefined ? '' : `, machine ${(busy * 100).toFixed(0)}%`
            return `${name} ${e.rates.at(-1)!.toFixed(0)}/s (raw ${e.raws.at(-1)!.toFixed(0)}/s; us worker ${w}, pg ${p}, receiver ${rc}${share})`
          })
          .join(', ')
        console.log(
          `round ${round}: ${line}, raw with ${CONCURRENCY} in flight ${rawsWide.at(-1)!.toFixed(0)}/s`,
        )
      }
    }
    const rawWide = percentile(rawsWide, 50)
    // CPU per delivery: each column's median over the rounds.
    const cpuMedian = (rows: number[][], column: number) =>
      percentile(
        rows.map((r) => r[column]!),
        50,
      )
    const results = [...rates].map(([name, e]) => {
      /** Each round's own ratio. */
      const perRound = e.rates.map((rate, i) => rate / e.raws[i]!)
      return {
        name,
        deliveries: e.deliveries,
        rate: percentile(e.rates, 50),
        raw: percentile(e.raws, 50),
        perRound,
        ratio: percentile(perRound, 50),
        cpu: [0, 1, 2, 3].map((i) => cpuMedian(e.cpu, i)),
        perWrite: percentile(e.perWrite, 50),
        connections: e.connections,
        machine: [0, 1].map((i) => cpuMedian(e.machine, i)),
      }
    })
    const rawCpuUs = [0, 1].map((i) => cpuMedian(rawCpu, i))

    // Latency with an idle worker, to a receiver in this process.
    worker = await startService(env)
    const arrivals = new Map<string, number>()
    const local = createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { data: { external_order_id: string } }
        arrivals.set(body.data.external_order_id, performance.now())
        res.end()
      })
    })
    const localHook = await listen(local)
    const latencyTenant = await tenant(worker, 'Latency')
    await v1(worker, latencyTenant.key, 'POST', '/webhook-endpoints', {
      url: `https://localhost:${localHook.port}/latency`,
    })
    const latencies: number[] = []
    for (let i = 0; i < args.latency; i++) {
      const external = `LAT-${i}-${randomBytes(3).toString('hex')}`
      const started = performance.now()
      const res = await fetch(`${worker.base}/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${latencyTenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          external_order_id: external,
          customer: { name: 'L' },
          items: [{ name: 'x', quantity: 1 }],
        }),
      })
      await res.arrayBuffer()
      while (!arrivals.has(external)) await new Promise((r) => setTimeout(r, 1))
      latencies.push(arrivals.get(external)! - started)
      await new Promise((r) => setTimeout(r, 20))
    }
    localHook.close()

    console.log(`\nwebhooks benchmark: ${EVENTS} events, PostgreSQL, node ${process.version}`)
    const median = ROUNDS > 1 ? ` (median of ${ROUNDS} rounds)` : ''
    for (const r of results) {
      const spread =
        ROUNDS > 1
          ? ` (median of the ${ROUNDS} rounds' own ratios; rounds ${Math.min(...r.perRound).toFixed(2)}-${Math.max(...r.perRound).toFixed(2)})`
          : ''
      console.log(
        `backlog to ${r.name.padEnd(12)} ${r.deliveries} deliveries: service ${r.rate.toFixed(0)} deliveries/s, raw undici POSTs (${BASELINE_IN_FLIGHT} in flight, kept-alive HTTPS) ${r.raw.toFixed(0)} req/s; ratio ${r.ratio.toFixed(2)}${spread}`,
      )
    }
    console.log(
      `raw undici POSTs with ${CONCURRENCY} in flight, as the worker keeps: ${rawWide.toFixed(0)} req/s${median}`,
    )
    const rawTotal = rawCpuUs[0]! + rawCpuUs[1]!
    console.log(
      `\nCPU per request, microseconds (user+system, /proc; median of rounds)\n` +
        `  raw POSTs         client ${rawCpuUs[0]!.toFixed(0)}, receiver ${rawCpuUs[1]!.toFixed(0)}: total ${rawTotal.toFixed(0)}`,
    )
    for (const r of results) {
      const [w, p, rc, v8] = r.cpu as [number, number, number, number]
      const total = w + p + rc
      console.log(
        `  ${r.name.padEnd(16)}  worker ${w.toFixed(0)} (V8 threads: JIT, GC ${v8.toFixed(0)}), PostgreSQL ${p.toFixed(0)}, receiver ${rc.toFixed(0)}: total ${total.toFixed(0)}, CPU ratio ${(rawTotal / total).toFixed(2)}`,
      )
    }
    console.log(
      '  (CPU ratio: raw total over service total, the throughput ratio to expect when the machine is CPU-bound)',
    )
    if (rawBusy.length > 0) {
      console.log(
        `  raw POSTs         machine ${(percentile(rawBusy, 50) * 100).toFixed(0)}% busy while measuring`,
      )
    }
    for (const r of results) {
      const [w, p, rc] = r.cpu as [number, number, number]
      const [share, all] = r.machine as [number, number]
      console.log(
        `  ${r.name.padEnd(16)}  machine ${(share * 100).toFixed(0)}% busy while measuring; ${all.toFixed(0)} us per delivery in all, ${(all - w - p - rc).toFixed(0)} of them outside the three above (autovacuum, WAL writer, this bench, the idle API service, the kernel)`,
      )
    }
    for (const r of results) {
      console.log(
        `${r.name}: ${r.perWrite.toFixed(1)} deliveries per write transaction (median of rounds); ${r.connections} TLS connections opened during the measured backlogs`,
      )
    }
    const p50 = percentile(latencies, 50)
    console.log(
      `order created -> delivered, idle worker             p50 ${p50.toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms\n`,
    )
    for (const r of results) {
      console.log(
        `${r.ratio >= 0.5 ? 'PASS' : 'FAIL'}  ${r.name}: deliveries/s over raw POSTs/s >= 0.5: ${r.ratio.toFixed(2)}`,
      )
    }
    console.log(`${p50 < 10 ? 'PASS' : 'FAIL'}  creation to delivery p50 < 10 ms: ${p50.toFixed(1)} ms`)
  } finally {
    await worker?.stop()
    await api?.stop()
    await db.end().catch(() => {})
    receiver.stop()
    await database.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
