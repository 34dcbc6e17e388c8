// Load runs with autocannon: a scenario's req/s, latency and CPU per request
// (server process, PostgreSQL backends, this process), warm-up and --rounds.
import autocannon, { type RawRequest, type RequestSpec, type Result } from 'autocannon'
import pg from 'pg'
import { cpuMs } from '../lib/cpu.ts'
import { smallOrder } from './bodies.ts'
import { log, opts } from './options.ts'
import type { Proc } from './service.ts'

export interface Scenario {
  url: string
  requests: RequestSpec[]
  expect: number
  connections?: number
  /** The server process, for CPU per request. */
  serverPid?: number | undefined
  /** PostgreSQL backends serving the bench database, for their CPU per request. */
  dbPids?: (() => Promise<number[]>) | undefined
  /** PostgreSQL to sample wait events on while the scenario runs. */
  waitsOn?: string | undefined
}

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  note: string | undefined
  /** CPU milliseconds per request: server process, PostgreSQL backends, load generator (this process). */
  cpu: { server?: number; db?: number; client: number }
  /** Backends of the bench database per wait event (`CPU`: none), averaged over samples every 100 ms. */
  waits?: Record<string, number>
}

const WAITS_SQL = `
  select coalesce(wait_event_type || '/' || wait_event, 'CPU') as wait, count(*)::int as n
  from pg_stat_activity
  where datname = current_database() and pid <> pg_backend_pid() and state = 'active'
    and backend_type = 'client backend'
  group by 1`

/** Samples the wait events of the database's active backends every 100 ms until stopped. */
async function sampleWaits(databaseUrl: string): Promise<() => Promise<Record<string, number>>> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const sums = new Map<string, number>()
  let samples = 0
  let stopped = false
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await client.query<{ wait: string; n: number }>(WAITS_SQL)
      samples++
      for (const row of rows) sums.set(row.wait, (sums.get(row.wait) ?? 0) + row.n)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })()
  return async () => {
    stopped = true
    await loop
    await client.end()
    return Object.fromEntries(
      [...sums].map(([wait, n]) => [wait, n / Math.max(1, samples)] as const).sort((a, b) => b[1] - a[1]),
    )
  }
}

export function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const pid of pids) {
    const ms = cpuMs(pid)
    if (ms !== undefined) out.set(pid, ms)
  }
  return out
}

function summarize(result: Result, expect: number): Omit<LoadResult, 'cpu'> {
  const unexpected = Object.entries(result.statusCodeStats)
    .filter(([code]) => Number(code) !== expect)
    .map(([code, { count }]) => `${count}x${code}`)
  if (result.errors) unexpected.push(`${result.errors} errors`)
  if (result.timeouts) unexpected.push(`${result.timeouts} timeouts`)
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    note: unexpected.length ? unexpected.join(', ') : undefined,
  }
}

async function load(scenario: Scenario, seconds: number): Promise<LoadResult> {
  const serverBefore = scenario.serverPid ? cpuMs(scenario.serverPid) : undefined
  const dbBefore = scenario.dbPids ? cpuOf(await scenario.dbPids()) : undefined
  const clientBefore = process.cpuUsage()
  const stopSampling = scenario.waitsOn ? await sampleWaits(scenario.waitsOn) : undefined
  const result = await autocannon({
    url: scenario.url,
    connections: scenario.connections ?? opts.connections,
    duration: seconds,
    timeout: 30,
    requests: scenario.requests,
  })
  const client = process.cpuUsage(clientBefore)
  const waits = await stopSampling?.()
  const count = Math.max(1, result.requests.total)
  const cpu: LoadResult['cpu'] = { client: (client.user + client.system) / 1000 / count }
  const serverAfter = scenario.serverPid ? cpuMs(scenario.serverPid) : undefined
  if (serverBefore !== undefined && serverAfter !== undefined)
    cpu.server = (serverAfter - serverBefore) / count
  if (dbBefore && scenario.dbPids) {
    const after = cpuOf(await scenario.dbPids())
    let total = 0
    for (const [pid, ms] of after) total += ms - (dbBefore.get(pid) ?? 0)
    cpu.db = total / count
  }
  return { ...summarize(result, scenario.expect), cpu, ...(waits ? { waits } : {}) }
}

/** Warm up, then run; with --rounds the scenarios alternate and the median run per scenario counts. */
export async function measure(scenarios: Record<string, Scenario>): Promise<Record<string, LoadResult>> {
  for (const [name, scenario] of Object.entries(scenarios)) {
    log(`warmup ${name}`)
    await load(scenario, opts.warmup)
  }
  const runs: Record<string, LoadResult[]> = {}
  for (let round = 0; round < opts.rounds; round++) {
    for (const [name, scenario] of Object.entries(scenarios)) {
      log(`run ${name}${opts.rounds > 1 ? ` (round ${round + 1})` : ''}`)
      const result = await load(scenario, opts.duration)
      runs[name] = [...(runs[name] ?? []), result]
      log(`  ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms ${result.note ?? ''}`)
    }
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a.rps - b.rps)
      return [name, sorted[Math.floor(sorted.length / 2)]!]
    }),
  )
}

/** A server under load: its URL, its process and, on PostgreSQL, the backends of the bench database. */
export interface Target {
  url: string
  pid: number | undefined
  dbPids?: (() => Promise<number[]>) | undefined
}

export function target(proc: Proc, dbPids?: () => Promise<number[]>): Target {
  return { url: proc.url, pid: proc.child.pid, dbPids }
}

let sequence = 0
export function postScenario(to: Target, keys: string[], prefix: string, path = '/v1/orders'): Scenario {
  const headers = { 'content-type': 'application/json' }
  return {
    url: to.url,
    serverPid: to.pid,
    dbPids: to.dbPids,
    expect: 201,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request: RawRequest) => {
          const n = sequence++
          return {
            ...request,
            headers: { ...headers, authorization: `Bearer ${keys[n % keys.length]}` },
            body: JSON.stringify(smallOrder(`${prefix}-${n}`)),
          }
        },
      },
    ],
  }
}

/** Pages of 100 starting at a random point of the window the orders were created in. */
export function getScenario(to: Target, keys: string[], window: { from: number; to: number }): Scenario {
  const from = window.from
  const span = (window.to - window.from) * 0.9
  return {
    url: to.url,
    serverPid: to.pid,
    dbPids: to.dbPids,
    expect: 200,
    requests: [
      {
        method: 'GET',
        setupRequest: (request: RawRequest) => {
          const n = sequence++
          const since = new Date(from + Math.random() * span).toISOString()
          return {
            ...request,
            path: `/v1/orders?limit=100&updated_since=${encodeURIComponent(since)}`,
            headers: { authorization: `Bearer ${keys[n % keys.length]}` },
          }
        },
      },
    ],
  }
}
