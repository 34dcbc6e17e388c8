// Performance benchmark for the service core (orders). Not part of npm test.
//
//   npm run bench:orders                 # PostgreSQL and PGlite, ~10 s per scenario
//   npm run bench:orders -- --quick      # short runs, 100 k instead of 1 M orders
//   npm run bench:orders -- --only=pg    # or --only=pglite
//
// Starts the real service (src/main.ts) as a child process with the rate limit
// raised, creates an organization and many live keys through the operator API,
// and drives it with autocannon. In the same run it measures the ceiling: a bare
// Fastify route (ceiling-server.ts) that inserts the same order and item rows in
// one transaction. Speed targets are judged as ratios against that baseline, never
// as absolute numbers: the machine is small and shared.
//
// Also measured: a 200-item order with 50 personalization fields per item (sequential
// p50) and GET /v1/orders at 10 k and 1 M stored orders (PostgreSQL, seeded in SQL).
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon, { type RawRequest, type RequestSpec, type Result } from 'autocannon'
import pg from 'pg'
import { cpuMs } from './lib/cpu.ts'
import { freePort } from './lib/service.ts'

const ROOT = new URL('..', import.meta.url).pathname
const OPERATOR_TOKEN = `op_bench_${randomBytes(16).toString('hex')}`

// ---------------------------------------------------------------- options

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    keys: { type: 'string' },
    rounds: { type: 'string' },
    'big-requests': { type: 'string' },
    'scale-small': { type: 'string' },
    'scale-large': { type: 'string' },
    'scale-samples': { type: 'string' },
    'skip-big': { type: 'boolean', default: false },
    'skip-scale': { type: 'boolean', default: false },
    'skip-get': { type: 'boolean', default: false },
    'skip-load': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    diagnose: { type: 'boolean', default: false },
    orgs: { type: 'string' },
    'pg-url': { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
})

if (flags.help) {
  console.log(`usage: node bench/orders.bench.ts [options]
  --quick               short scenarios (3 s), 10 big orders, 100 k instead of 1 M orders
  --only=pg|pglite      one database only
  --duration=S          seconds per scenario (default 10)     --warmup=S   (default 3)
  --connections=N       autocannon connections (default 20)   --keys=N     live API keys (default 50)
  --rounds=N            alternate ceiling/service N times, report the median (default 1)
  --big-requests=N      sequential 200-item orders measured (default 50)
  --scale-small=N --scale-large=N --scale-samples=N   GET /v1/orders scaling (10000, 1000000, 200)
  --skip-big --skip-scale --skip-get    leave parts out
  --skip-load           no autocannon runs (only the big order and the scaling parts)
  --profile             run the services with --cpu-prof (profiles kept in the temp dir)
  --diagnose            where the time goes: POST with test keys (no production rows, no event) and a
                        what-if bare route (key lookup + one CTE statement writing everything a live order writes)
  --orgs=N              spread the keys over N organizations (PostgreSQL; default 1): shows contention
                        on one organization's rows (foreign-key locks on the organizations row)
  --pg-url=URL          PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
  --keep                keep temp dirs and the bench database`)
  process.exit(0)
}

const num = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value))
const opts = {
  only: flags.only as 'pg' | 'pglite' | undefined,
  duration: num(flags.duration, flags.quick ? 3 : 10),
  warmup: num(flags.warmup, flags.quick ? 1 : 3),
  connections: num(flags.connections, 20),
  keys: num(flags.keys, 50),
  rounds: num(flags.rounds, 1),
  bigRequests: num(flags['big-requests'], flags.quick ? 10 : 50),
  scaleSmall: num(flags['scale-small'], 10_000),
  scaleLarge: num(flags['scale-large'], flags.quick ? 100_000 : 1_000_000),
  scaleSamples: num(flags['scale-samples'], flags.quick ? 60 : 200),
  skipBig: flags['skip-big'],
  skipScale: flags['skip-scale'],
  skipGet: flags['skip-get'],
  skipLoad: flags['skip-load'],
  profile: flags.profile,
  diagnose: flags.diagnose,
  orgs: num(flags.orgs, 1),
  pgUrl: flags['pg-url'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  keep: flags.keep,
}
if (opts.only && opts.only !== 'pg' && opts.only !== 'pglite') {
  console.error('--only must be pg or pglite')
  process.exit(2)
}

const workDir = mkdtempSync(join(tmpdir(), 'orders-bench-'))
const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`)

// ---------------------------------------------------------------- results

interface Row {
  database: string
  scenario: string
  rps?: number
  p50: number
  p99: number
  ratio?: number
  /** The same comparison from CPU per request (ceiling's / this one's): steadier on a shared machine. */
  cpuRatio?: number | undefined
  note?: string | undefined
  cpu?: { server?: number; db?: number; client: number }
}
interface Check {
  target: string
  measured: string
  pass: boolean
}
const rows: Row[] = []
const checks: Check[] = []
const notes: string[] = []

const totalCpu = (cpu: LoadResult['cpu']) => (cpu.server ?? Number.NaN) + (cpu.db ?? 0) + cpu.client

/** This scenario against the ceiling: req/s ratio and CPU-per-request ratio. */
function against(result: LoadResult, ceiling: LoadResult): { ratio: number; cpuRatio: number } {
  return { ratio: result.rps / ceiling.rps, cpuRatio: totalCpu(ceiling.cpu) / totalCpu(result.cpu) }
}

// ---------------------------------------------------------------- processes

interface Proc {
  name: string
  url: string
  child: ChildProcess
  logPath: string
  stop(): Promise<void>
}
const running = new Set<Proc>()
/** Cleanups that must also run on Ctrl-C (dropping the bench database). */
const atExit: (() => Promise<void>)[] = []

async function startProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Proc> {
  const port = await freePort()
  const logPath = join(workDir, `${name}.log`)
  const out = openSync(logPath, 'a')
  const execArgv = [
    ...nodeArgs,
    ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(workDir, `profile-${name}`)}`] : []),
  ]
  const baseEnv = { ...process.env }
  for (const k of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'OPERATOR_TOKEN', 'PORT', 'S3_BUCKET'])
    delete baseEnv[k]
  const child = spawn(process.execPath, [...execArgv, join(ROOT, script)], {
    cwd: ROOT,
    env: { ...baseEnv, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', out, out],
  })
  closeSync(out)
  const url = `http://127.0.0.1:${port}`
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const proc: Proc = {
    name,
    url,
    child,
    logPath,
    async stop() {
      running.delete(proc)
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
      await exited
      clearTimeout(timer)
    },
  }
  running.add(proc)
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break
    try {
      const res = await fetch(`${url}/healthz`)
      if (res.ok) return proc
    } catch {
      // not listening yet
    }
    await sleep(200)
  }
  await proc.stop()
  throw new Error(`${name} did not start:\n${readFileSync(logPath, 'utf8').slice(-3000)}`)
}

/** The real service, src/main.ts, configured by environment like in production. */
function startService(name: string, env: Record<string, string>, nodeArgs: string[] = []) {
  const dataDir = join(workDir, `${name}-data`)
  mkdirSync(dataDir, { recursive: true })
  return startProcess(
    name,
    'src/main.ts',
    {
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '10000000',
      LOG_LEVEL: 'warn',
      OPERATOR_TOKEN,
      ...env,
    },
    nodeArgs,
  )
}

const hook = (file: string) => pathToFileURL(join(ROOT, 'bench', 'hooks', file)).href

function startCeiling(name: string, env: Record<string, string>) {
  const dataDir = join(workDir, `${name}-data`)
  mkdirSync(dataDir, { recursive: true })
  return startProcess(name, 'bench/ceiling-server.ts', { DATA_DIR: dataDir, ...env })
}

// ---------------------------------------------------------------- HTTP helpers

async function call(url: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`)
  return JSON.parse(text)
}

interface Tenant {
  orgId: string
  /** Every organization the keys belong to (--orgs); orgIds[0] === orgId. */
  orgIds: string[]
  keys: string[]
}

async function createTenant(
  url: string,
  keyCount: number,
  environment = 'live',
  orgCount = 1,
): Promise<Tenant> {
  const orgIds: string[] = []
  for (let i = 0; i < orgCount; i++) {
    const org = await call(url, OPERATOR_TOKEN, 'POST', '/admin/v1/organizations', {
      name: `Bench ${i} GmbH`,
    })
    orgIds.push(org.data.organization.id)
  }
  const orgId = orgIds[0]!
  const keys: string[] = []
  for (let i = 0; i < keyCount; i++) {
    const created = await call(
      url,
      OPERATOR_TOKEN,
      'POST',
      `/admin/v1/organizations/${orgIds[i % orgCount]}/api-keys`,
      {
        environment,
        scopes: ['orders:read', 'orders:write'],
        name: `bench ${i}`,
      },
    )
    keys.push(created.data.key)
  }
  return { orgId, orgIds, keys }
}

// ---------------------------------------------------------------- bodies

function smallOrder(externalId: string) {
  return {
    external_order_id: externalId,
    customer: { name: 'Erika Mustermann', email: 'erika@example.com', phone: '+49 30 1234567' },
    currency: 'EUR',
    total_amount: 43.2,
    items: [
      {
        sku: 'MUG-WHITE-330',
        name: 'Mug, white, 330 ml',
        quantity: 2,
        price: 9.9,
        personalization: { text: 'Happy birthday, Anna!', font: 'Serif', color: '#aa3300' },
      },
      {
        sku: 'SHIRT-NAVY-M',
        name: 'T-shirt navy, M',
        quantity: 1,
        price: 19.9,
        personalization: { front_text: 'Team 7', back_number: 7 },
      },
      {
        sku: 'CARD-A6',
        name: 'Greeting card A6',
        quantity: 1,
        price: 3.5,
        personalization: { text: 'Love' },
      },
    ],
  }
}

function bigOrder(externalId: string) {
  return {
    external_order_id: externalId,
    customer: { name: 'Großkunde AG', email: 'einkauf@example.com', phone: null },
    currency: 'EUR',
    total_amount: 12345.67,
    items: Array.from({ length: 200 }, (_, i) => ({
      sku: `SKU-${String(i).padStart(4, '0')}`,
      name: `Personalised product ${i}`,
      quantity: 1 + (i % 5),
      price: 12.5,
      personalization: Object.fromEntries(
        Array.from({ length: 50 }, (_, f) => [
          `field_${String(f).padStart(2, '0')}`,
          f % 10 === 7 ? f * 3.5 : f % 10 === 9 ? f % 2 === 0 : `Line ${f} for item ${i}: Grüße aus Köln ✓`,
        ]),
      ),
    })),
  }
}

// ---------------------------------------------------------------- load runs

interface Scenario {
  url: string
  requests: RequestSpec[]
  expect: number
  connections?: number
  /** The server process, for CPU per request. */
  serverPid?: number | undefined
  /** PostgreSQL backends serving the bench database, for their CPU per request. */
  dbPids?: (() => Promise<number[]>) | undefined
}

interface LoadResult {
  rps: number
  p50: number
  p99: number
  note: string | undefined
  /** CPU milliseconds per request: server process, PostgreSQL backends, load generator (this process). */
  cpu: { server?: number; db?: number; client: number }
}

function cpuOf(pids: number[]): Map<number, number> {
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
  const result = await autocannon({
    url: scenario.url,
    connections: scenario.connections ?? opts.connections,
    duration: seconds,
    timeout: 30,
    requests: scenario.requests,
  })
  const client = process.cpuUsage(clientBefore)
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
  return { ...summarize(result, scenario.expect), cpu }
}

/** Warm up, then run; with --rounds the scenarios alternate and the median run per scenario counts. */
async function measure(scenarios: Record<string, Scenario>): Promise<Record<string, LoadResult>> {
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
interface Target {
  url: string
  pid: number | undefined
  dbPids?: (() => Promise<number[]>) | undefined
}

function target(proc: Proc, dbPids?: () => Promise<number[]>): Target {
  return { url: proc.url, pid: proc.child.pid, dbPids }
}

let sequence = 0
function postScenario(to: Target, keys: string[], prefix: string, path = '/v1/orders'): Scenario {
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
function getScenario(to: Target, keys: string[], window: { from: number; to: number }): Scenario {
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

async function measureGet(to: Target, keys: string[], window: { from: number; to: number }) {
  if (opts.skipGet) return undefined
  return (await measure({ get: getScenario(to, keys, window) })).get
}

// ---------------------------------------------------------------- sequential latency

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

async function timed(url: string, init: RequestInit, expect: number): Promise<{ ms: number; text: string }> {
  const start = performance.now()
  const res = await fetch(url, init)
  const text = await res.text()
  const ms = performance.now() - start
  if (res.status !== expect)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`)
  return { ms, text }
}

async function bigOrders(database: string, to: Target, key: string): Promise<void> {
  const url = to.url
  const prefix = `big-${randomBytes(4).toString('hex')}`
  const send = (n: number) =>
    timed(
      `${url}/v1/orders`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(bigOrder(`${prefix}-${n}`)),
      },
      201,
    )
  const bytes = JSON.stringify(bigOrder('x')).length
  log(`${database}: 200-item order (${(bytes / 1024).toFixed(0)} KiB), ${opts.bigRequests} sequential`)
  for (let n = 0; n < 5; n++) await send(-n - 1)
  const samples: number[] = []
  const serverBefore = to.pid ? cpuMs(to.pid) : undefined
  const dbBefore = to.dbPids ? cpuOf(await to.dbPids()) : undefined
  const clientBefore = process.cpuUsage()
  for (let n = 0; n < opts.bigRequests; n++) samples.push((await send(n)).ms)
  const client = process.cpuUsage(clientBefore)
  const cpu: LoadResult['cpu'] = { client: (client.user + client.system) / 1000 / opts.bigRequests }
  const serverAfter = to.pid ? cpuMs(to.pid) : undefined
  if (serverBefore !== undefined && serverAfter !== undefined) {
    cpu.server = (serverAfter - serverBefore) / opts.bigRequests
  }
  if (dbBefore && to.dbPids) {
    let total = 0
    for (const [pid, ms] of cpuOf(await to.dbPids())) total += ms - (dbBefore.get(pid) ?? 0)
    cpu.db = total / opts.bigRequests
  }
  const p50 = percentile(samples, 50)
  const p99 = percentile(samples, 99)
  rows.push({ database, scenario: 'POST 200 items x 50 fields, sequential', p50, p99, cpu })
  checks.push({
    target: `${database}: 200-item x 50-field order p50 < 50 ms`,
    measured: `${p50.toFixed(1)} ms`,
    pass: p50 < 50,
  })
}

// ---------------------------------------------------------------- where does the time go

/** The statements one POST and one GET send, logged by a hook in a separate service process. */
async function countStatements(
  database: 'PostgreSQL' | 'PGlite',
  env: Record<string, string>,
): Promise<void> {
  const logFile = join(workDir, 'statements.log')
  writeFileSync(logFile, '')
  const service = await startService('service-count', { ...env, STATEMENT_LOG: logFile }, [
    '--import',
    hook('log-statements.ts'),
  ])
  try {
    const tenant = await createTenant(service.url, 1)
    const during = async (fn: () => Promise<unknown>) => {
      const before = readFileSync(logFile, 'utf8').length
      await fn()
      return readFileSync(logFile, 'utf8').slice(before).split('\n').filter(Boolean)
    }
    const key = tenant.keys[0]!
    const post = await during(() => call(service.url, key, 'POST', '/v1/orders', smallOrder('count-1')))
    const get = await during(() => call(service.url, key, 'GET', '/v1/orders?limit=100'))
    notes.push(
      `${database}, statements per request on the real service (BEGIN/COMMIT included): ` +
        `POST /v1/orders (live key, 3 items) = ${post.length}, GET /v1/orders = ${get.length}; ` +
        'the bare route sends 4 (BEGIN, 2 inserts, COMMIT)',
      ...post.map((s, i) => `  POST ${i + 1}: ${s.slice(0, 90)}`),
      ...get.map((s, i) => `  GET ${i + 1}: ${s.slice(0, 90)}`),
    )
  } finally {
    await service.stop()
  }
}

// ---------------------------------------------------------------- diagnostics (--diagnose)

/** Test-key POSTs (no production rows, no event) and the two-statement what-if route. */
async function addDiagnostics(
  scenarios: Record<string, Scenario>,
  svc: Target,
  ceiling: Target,
  liveKeys: string[],
): Promise<void> {
  const testTenant = await createTenant(svc.url, opts.keys, 'test')
  scenarios.serviceTest = postScenario(svc, testTenant.keys, `svct-${randomBytes(3).toString('hex')}`)
  scenarios.lean = postScenario(
    ceiling,
    liveKeys,
    `lean-${randomBytes(3).toString('hex')}`,
    '/v1/orders-lean',
  )
}

function diagnosticRows(database: string, results: Record<string, LoadResult>, ceiling: LoadResult) {
  const t = results.serviceTest
  if (t) {
    rows.push({
      database,
      scenario: 'service POST, test key (no production/event)',
      ...t,
      ...against(t, ceiling),
    })
  }
  const l = results.lean
  if (l) {
    rows.push({
      database,
      scenario: 'what-if: key lookup + 1 CTE insert (bare)',
      ...l,
      ...against(l, ceiling),
    })
  }
}

// ---------------------------------------------------------------- PostgreSQL

/** A fresh database for this run, dropped at the end (also on Ctrl-C) unless --keep. */
async function createDatabase(
  admin: pg.Client,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  await admin.query(`create database ${name}`)
  const drop = async () => {
    const at = atExit.indexOf(drop)
    if (at < 0) return
    atExit.splice(at, 1)
    if (!opts.keep) await admin.query(`drop database if exists ${name} with (force)`)
  }
  atExit.unshift(drop)
  const url = new URL(opts.pgUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop }
}

async function runPostgres(): Promise<void> {
  const dbName = `bench_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: opts.pgUrl })
  await admin.connect()
  const main = await createDatabase(admin, dbName)
  const drops = [main.drop]
  const databaseUrl = main.url
  const dbPids = async () =>
    (
      await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName])
    ).rows.map((r) => r.pid)
  log(`PostgreSQL: database ${dbName}`)
  let service: Proc | undefined
  let ceiling: Proc | undefined
  let small: Proc | undefined
  try {
    await countStatements('PostgreSQL', { DATABASE_URL: databaseUrl })
    service = await startService('service-pg', { DATABASE_URL: databaseUrl })
    const tenant = await createTenant(service.url, opts.keys, 'live', opts.orgs)
    const svc = target(service, dbPids)
    let c: LoadResult | undefined
    if (!opts.skipLoad) {
      ceiling = await startCeiling('ceiling-pg', {
        CEILING_DB: 'pg',
        DATABASE_URL: databaseUrl,
        ORG_IDS: tenant.orgIds.join(','),
      })
      const scenarios: Record<string, Scenario> = {
        ceiling: postScenario(target(ceiling, dbPids), tenant.keys, `ceil-${randomBytes(3).toString('hex')}`),
        service: postScenario(svc, tenant.keys, `svc-${randomBytes(3).toString('hex')}`),
      }
      if (opts.diagnose) await addDiagnostics(scenarios, svc, target(ceiling, dbPids), tenant.keys)
      const from = Date.now()
      const results = await measure(scenarios)
      const to = Date.now()
      await ceiling.stop()
      // The tables grew from nothing within seconds; autovacuum would analyze them within
      // a minute. Without statistics the item lookup of a page is a sequential scan.
      await sqlOn(databaseUrl, 'analyze')
      const get = await measureGet(svc, tenant.keys, { from, to })
      c = results.ceiling!
      const s = results.service!
      rows.push({ database: 'PostgreSQL', scenario: 'bare route POST (pg, named prepared)', ...c })
      rows.push({
        database: 'PostgreSQL',
        scenario: 'service POST /v1/orders (3 items)',
        ...s,
        ...against(s, c),
      })
      diagnosticRows('PostgreSQL', results, c)
      if (get) rows.push({ database: 'PostgreSQL', scenario: 'service GET /v1/orders?limit=100', ...get })
      checks.push({
        target: 'PostgreSQL: service POST / bare route >= 0.5',
        measured: `${(s.rps / c.rps).toFixed(2)} (${s.rps.toFixed(0)} / ${c.rps.toFixed(0)} req/s; CPU ratio ${against(s, c).cpuRatio.toFixed(2)})`,
        pass: s.rps / c.rps >= 0.5,
      })
    }

    if (!opts.skipBig) await bigOrders('PostgreSQL', svc, tenant.keys[0]!)
    if (!opts.skipScale) {
      const smallDb = await createDatabase(admin, `${dbName}_small`)
      drops.push(smallDb.drop)
      small = await startService('service-pg-small', { DATABASE_URL: smallDb.url })
      await scaling({ url: service.url, databaseUrl }, { url: small.url, databaseUrl: smallDb.url })
      await small.stop()
      await smallDb.drop()
    }
  } finally {
    await ceiling?.stop()
    await small?.stop()
    await service?.stop()
    for (const drop of drops) await drop()
    await admin.end()
  }
}

async function sqlOn(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

const SEED_SQL = `
with o as (
  insert into orders (id, organization_id, environment, source, external_order_id, status, currency,
    total_amount, customer_name, customer_email, customer_phone, ordered_at, created_at, updated_at, content_hash)
  select gen_random_uuid(), $1::uuid, 'live', 'api', 'seed-' || g, 'pending', 'EUR', 43.20,
    'Customer ' || g, 'customer' || g || '@example.com', null, ts, ts, ts, md5(g::text)
  from generate_series($2::int, $3::int) g
  cross join lateral (select $4::timestamptz + g * interval '1 second' as ts) t
  returning id, updated_at
), i as (
  insert into order_items (id, order_id, organization_id, position, sku, name, quantity, price, product_id,
    personalization, files)
  select gen_random_uuid(), o.id, $1::uuid, p, 'SKU-' || p, 'Item ' || p, 1, 9.90, null,
    '{"text":"Happy birthday, Anna!","font":"Serif","color":"#aa3300"}'::json, '[]'::json
  from o cross join generate_series(0, 2) p
  returning id, order_id
), po as (
  insert into production_orders (id, order_id, status, produced_by_partner, created_at, updated_at)
  select gen_random_uuid(), o.id, 'pending', false, o.updated_at, o.updated_at from o
  returning id, order_id
)
insert into production_jobs (id, production_order_id, order_item_id, status, created_at, updated_at)
select gen_random_uuid(), po.id, i.id, 'pending', now(), now() from i join po using (order_id)`

/** GET /v1/orders p50 at a small and at a large number of stored orders (PostgreSQL). */
interface ScaleSide {
  label: string
  n: number
  url: string
  databaseUrl: string
  key?: string
  since: number[]
  cursor: number[]
}

const SCALE_BASE = new Date('2020-01-01T00:00:00.000Z')

async function seedOrders(databaseUrl: string, orgId: string, n: number, label: string): Promise<void> {
  const started = Date.now()
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query('set synchronous_commit = off')
    for (let from = 1; from <= n; from += 50_000) {
      await client.query(SEED_SQL, [orgId, from, Math.min(n, from + 49_999), SCALE_BASE.toISOString()])
    }
    await client.query('analyze')
  } finally {
    await client.end()
  }
  log(`PostgreSQL: ${label} orders seeded (${((Date.now() - started) / 1000).toFixed(0)} s)`)
}

/**
 * Two databases, two service processes: one with the small number of orders, one with
 * the large. Requests alternate between them, so both sides see the same machine
 * (the cores are shared with other work); each sample is a page from a random point
 * of the data (updated_since) and the page after it (cursor).
 */
async function scaling(
  large: { url: string; databaseUrl: string },
  small: { url: string; databaseUrl: string },
) {
  const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000} M` : `${n / 1000} k`)
  const sides: ScaleSide[] = [
    { ...small, label: label(opts.scaleSmall), n: opts.scaleSmall, since: [], cursor: [] },
    { ...large, label: label(opts.scaleLarge), n: opts.scaleLarge, since: [], cursor: [] },
  ]
  for (const side of sides) {
    const tenant = await createTenant(side.url, 1)
    side.key = tenant.keys[0]!
    await seedOrders(side.databaseUrl, tenant.orgId, side.n, side.label)
  }
  // Both processes warm up alike (the large side's service has served the load runs).
  const WARMUP = 150
  const sample = async (side: ScaleSide, record: boolean) => {
    const page = (query: string) =>
      timed(`${side.url}/v1/orders?${query}`, { headers: { authorization: `Bearer ${side.key}` } }, 200)
    // A random point in the data, deep enough that the page and the next one are full.
    const at = 1 + Math.floor(Math.random() * (side.n - 250))
    const iso = new Date(SCALE_BASE.getTime() + at * 1000).toISOString()
    const first = await page(`limit=100&updated_since=${encodeURIComponent(iso)}`)
    const body = JSON.parse(first.text) as { data: unknown[]; next_cursor: string | null }
    if (body.data.length !== 100 || !body.next_cursor) throw new Error('scaling: expected a full page')
    const second = await page(`limit=100&cursor=${encodeURIComponent(body.next_cursor)}`)
    if (record) {
      side.since.push(first.ms)
      side.cursor.push(second.ms)
    }
  }
  log(`PostgreSQL: GET pages at ${sides.map((s) => s.label).join(' and ')} orders, alternating`)
  for (let i = 0; i < opts.scaleSamples + WARMUP; i++) {
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) await sample(side, i >= WARMUP)
  }
  const p50 = (side: ScaleSide) => percentile([...side.since, ...side.cursor], 50)
  for (const side of sides) {
    rows.push({
      database: 'PostgreSQL',
      scenario: `GET page of 100 at ${side.label} orders, sequential`,
      p50: p50(side),
      p99: percentile([...side.since, ...side.cursor], 99),
      note: `p50 updated_since ${percentile(side.since, 50).toFixed(1)} ms, cursor ${percentile(side.cursor, 50).toFixed(1)} ms`,
    })
  }
  const [s, l] = sides as [ScaleSide, ScaleSide]
  const ratio = p50(l) / p50(s)
  checks.push({
    target: `PostgreSQL: GET /v1/orders p50 at ${l.label} / at ${s.label} orders <= 1.2`,
    measured: `${ratio.toFixed(2)} (${p50(l).toFixed(1)} ms / ${p50(s).toFixed(1)} ms)`,
    pass: ratio <= 1.2,
  })
}

// ---------------------------------------------------------------- PGlite

async function runPglite(): Promise<void> {
  const procs: Proc[] = []
  const start = async (p: Promise<Proc>) => {
    const proc = await p
    procs.push(proc)
    return proc
  }
  try {
    if (opts.only === 'pglite') await countStatements('PGlite', {})
    const service = await start(startService('service-pglite', {}))
    const tenant = await createTenant(service.url, opts.keys)
    const svc = target(service)
    if (!opts.skipLoad) {
      const ceiling = await start(
        startCeiling('ceiling-pglite', { CEILING_DB: 'pglite', API_KEYS: tenant.keys.join(',') }),
      )
      const ceilingPg = await start(startCeiling('ceiling-pglite-pg', { CEILING_DB: 'pglite-pg' }))
      const scenarios: Record<string, Scenario> = {
        ceiling: postScenario(target(ceiling), tenant.keys, `ceil-${randomBytes(3).toString('hex')}`),
        ceilingPg: postScenario(target(ceilingPg), tenant.keys, `ceilp-${randomBytes(3).toString('hex')}`),
      }
      scenarios.service = postScenario(svc, tenant.keys, `svc-${randomBytes(3).toString('hex')}`)
      if (opts.diagnose) await addDiagnostics(scenarios, svc, target(ceiling), tenant.keys)
      const from = Date.now()
      const results = await measure(scenarios)
      const to = Date.now()
      await ceiling.stop()
      await ceilingPg.stop()
      const gets: Record<string, Scenario> = opts.skipGet
        ? {}
        : { get: getScenario(svc, tenant.keys, { from, to }) }
      const get = await measure(gets)
      // The ceiling is the faster of the two bare routes: PGlite's own query(), or
      // node-postgres with named prepared statements (the driver the service uses).
      const own = results.ceiling!
      const viaPg = results.ceilingPg!
      const c = viaPg.rps >= own.rps ? viaPg : own
      const s = results.service!
      rows.push({
        database: 'PGlite',
        scenario: 'bare route POST, PGlite query()',
        ...own,
        ...against(own, c),
      })
      rows.push({
        database: 'PGlite',
        scenario: 'bare route POST, node-postgres + prepared',
        ...viaPg,
        ...against(viaPg, c),
      })
      rows.push({ database: 'PGlite', scenario: 'service POST /v1/orders (3 items)', ...s, ...against(s, c) })
      diagnosticRows('PGlite', results, c)
      if (get.get) rows.push({ database: 'PGlite', scenario: 'service GET /v1/orders?limit=100', ...get.get })
      checks.push({
        target: 'PGlite: service POST / faster bare PGlite route >= 0.5',
        measured: `${(s.rps / c.rps).toFixed(2)} (${s.rps.toFixed(0)} / ${c.rps.toFixed(0)} req/s; CPU ratio ${against(s, c).cpuRatio.toFixed(2)})`,
        pass: s.rps / c.rps >= 0.5,
      })
    }
    if (!opts.skipBig) await bigOrders('PGlite', svc, tenant.keys[0]!)
  } finally {
    for (const proc of procs) await proc.stop()
  }
}

// ---------------------------------------------------------------- report

function printReport(): void {
  const fmt = (v: number | undefined, digits = 1) =>
    v === undefined || Number.isNaN(v) ? '-' : v.toFixed(digits)
  const table = [
    [
      'database',
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'ratio',
      'CPU ratio',
      'CPU ms/req srv / pg / client',
      'note',
    ],
    ...rows.map((r) => [
      r.database,
      r.scenario,
      fmt(r.rps, 0),
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.ratio, 2),
      fmt(r.cpuRatio, 2),
      r.cpu ? [r.cpu.server, r.cpu.db, r.cpu.client].map((v) => fmt(v, 2)).join(' / ') : '',
      r.note ?? '',
    ]),
  ]
  const widths = table[0]!.map((_, col) => Math.max(...table.map((row) => row[col]!.length)))
  const line = (row: string[]) => `| ${row.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ')} |`
  console.log('')
  console.log(
    `orders benchmark: ${opts.duration} s per scenario, ${opts.connections} connections, ${opts.keys} live keys, ` +
      `warmup ${opts.warmup} s, node ${process.version}`,
  )
  console.log(line(table[0]!))
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`)
  for (const row of table.slice(1)) console.log(line(row))
  console.log(
    'ratio: req/s over the bare route of the same database, measured in the same run (PGlite rows over\n' +
      'the faster of the two bare PGlite routes). CPU ms/req: user+system CPU\n' +
      'per completed request of the server process (all threads), of the PostgreSQL backends serving the\n' +
      "bench database, and of this process (the load generator). CPU ratio: the ceiling's total CPU per\n" +
      "request over this row's, the throughput ratio to expect when the machine is CPU-bound; it moves\n" +
      'less than req/s when other processes share the cores.',
  )
  console.log('')
  for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.target}: ${c.measured}`)
  if (notes.length) {
    console.log('')
    for (const n of notes) console.log(n)
  }
}

async function cleanup(): Promise<void> {
  for (const proc of [...running]) await proc.stop().catch(() => {})
  for (const fn of atExit.splice(0)) await fn().catch(() => {})
  if (!opts.keep && !opts.profile) rmSync(workDir, { recursive: true, force: true })
  else console.log(`kept ${workDir}`)
}

process.once('SIGINT', () => {
  void cleanup().then(() => process.exit(130))
})

try {
  if (opts.only !== 'pglite') await runPostgres()
  if (opts.only !== 'pg') await runPglite()
  printReport()
} catch (err) {
  printReport()
  console.error(err)
  process.exitCode = 1
} finally {
  await cleanup()
}
