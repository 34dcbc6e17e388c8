// Hostile request bodies (issue 15, item 2). Not part of npm test.
//
//   npm run bench:hostile-bodies
//
// The service runs in this process (embedded database in memory) and listens
// on a port; each body of test/fixtures/hostile-bodies.ts is sent over HTTP,
// once alone and the first one also six times at once. For each: the status
// and error code, the wall time, the longest event-loop stall of the service
// (perf_hooks.monitorEventLoopDelay), the slowest GET /healthz of a poller
// running in a worker thread meanwhile, and the growth of the peak RSS
// (VmHWM, reset through /proc/self/clear_refs before each case).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import { buildApp } from '../src/app.ts'
import { DEFAULT_CONFIG } from '../src/config.ts'
import { migrateToLatest, openDatabase } from '../src/db/database.ts'
import { createMemoryRateLimiter } from '../src/http/rate-limit.ts'
import { createLocalStorage } from '../src/modules/uploads/storage/local.ts'
import {
  type HostileBody,
  hostileBodies,
  largeOrderOfStrings,
  MB,
  maximalInvalidOrder,
} from '../test/fixtures/hostile-bodies.ts'

const OPERATOR_TOKEN = 'op_bench_hostile_bodies_0123456789abcdef'
const files = mkdtempSync(join(tmpdir(), 'bench-hostile-'))
const { db, listen } = await openDatabase({})
await migrateToLatest(db)
const RATE = 10_000_000
const rateLimiter = createMemoryRateLimiter(RATE)
const app = await buildApp({
  config: {
    ...DEFAULT_CONFIG,
    publicBaseUrl: 'http://127.0.0.1',
    logLevel: 'silent',
    rateLimitPerMinute: RATE,
  },
  db,
  listen,
  storage: createLocalStorage({ root: files }),
  clock: { now: () => new Date() },
  rateLimiter,
  operatorToken: OPERATOR_TOKEN,
})
await app.listen({ port: 0, host: '127.0.0.1' })
const { port } = app.server.address() as { port: number }

const admin = async (url: string, body: unknown) => {
  const res = await app.inject({
    method: 'POST',
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  })
  return res.json().data
}
const org = (await admin('/organizations', { name: 'Bench' })).organization
const key = (
  await admin(`/organizations/${org.id}/api-keys`, {
    environment: 'live',
    scopes: ['orders:read', 'orders:write', 'files:write', 'webhooks:manage'],
  })
).key as string

/** GET /healthz in a loop from another thread; reports the slowest answer since the last reset. */
const poller = new Worker(
  `
  const { parentPort, workerData } = require('node:worker_threads')
  const http = require('node:http')
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  let max = 0
  parentPort.on('message', (m) => { parentPort.postMessage(max); if (m === 'reset') max = 0 })
  function poll() {
    const started = performance.now()
    http.get({ host: '127.0.0.1', port: workerData.port, path: '/healthz', agent }, (res) => {
      res.resume()
      res.on('end', () => { max = Math.max(max, performance.now() - started); setTimeout(poll, 10) })
    }).on('error', () => setTimeout(poll, 10))
  }
  poll()
  `,
  { eval: true, workerData: { port } },
)
const pollerMax = (command: 'reset' | 'read') =>
  new Promise<number>((resolve) => {
    poller.once('message', resolve)
    poller.postMessage(command)
  })

function send(body: HostileBody, payload: Buffer): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: body.method,
        path: body.url,
        headers: {
          authorization: `Bearer ${body.auth === 'key' ? key : OPERATOR_TOKEN}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (res) => {
        let text = ''
        res.on('data', (d) => {
          text += d
        })
        res.on('end', () => {
          let code = '?'
          try {
            code = JSON.parse(text).error?.code ?? 'ok'
          } catch {
            code = `not JSON: ${text.slice(0, 60)}`
          }
          resolve({ status: res.statusCode ?? 0, code })
        })
      },
    )
    // The service may answer 413 and close while the body is still being sent.
    req.on('error', reject)
    req.end(payload)
  })
}

const rssKb = (field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0)

/** The target: every body gets its 4xx, and no stretch of work on it holds the loop this long. */
const STALL_LIMIT_MS = 100
let failures = 0

const histogram = monitorEventLoopDelay({ resolution: 5 })
histogram.enable()

async function measure(name: string, body: HostileBody, times: number) {
  const payload = Buffer.from(body.body)
  global.gc?.()
  await new Promise((r) => setTimeout(r, 200))
  writeFileSync('/proc/self/clear_refs', '5')
  const rssBefore = rssKb('VmRSS')
  await pollerMax('reset')
  histogram.reset()
  const started = performance.now()
  const results = await Promise.all(Array.from({ length: times }, () => send(body, payload)))
  const wall = performance.now() - started
  const stall = histogram.max / 1e6
  const health = await pollerMax('read')
  const rssGrowth = (rssKb('VmHWM') - rssBefore) / 1024
  const answers = [...new Set(results.map((r) => `${r.status} ${r.code}`))].join(', ')
  const passed = stall < STALL_LIMIT_MS && results.every((r) => r.status >= 400 && r.status < 500)
  if (!passed) failures++
  console.log(
    [
      name.padEnd(58),
      `${(payload.length / MB).toFixed(2)} MB`.padStart(9),
      answers.padEnd(28),
      `wall ${wall.toFixed(0)} ms`.padStart(14),
      `loop stall ${stall.toFixed(0)} ms`.padStart(19),
      `healthz max ${health.toFixed(0)} ms`.padStart(20),
      `RSS +${rssGrowth.toFixed(0)} MB`.padStart(13),
      passed ? 'PASS' : 'FAIL',
    ].join(' '),
  )
}

const bodies = hostileBodies()
const extra: HostileBody[] = [
  {
    name: 'orders: maximal sizes, every value wrong',
    method: 'POST',
    url: '/v1/orders',
    auth: 'key',
    body: maximalInvalidOrder(),
  },
  {
    name: 'orders: 10 MB of long strings, one bad quantity',
    method: 'POST',
    url: '/v1/orders',
    auth: 'key',
    body: largeOrderOfStrings(),
  },
  {
    name: 'admin shop-orders: 3.4 million {} items (10 MB)',
    method: 'POST',
    url: `/admin/v1/organizations/${org.id}/shop-orders`,
    auth: 'operator',
    body: bodies[0]!.body,
  },
]
try {
  for (const body of [...bodies, ...extra]) await measure(body.name, body, 1)
  await measure(`six at once: ${bodies[0]!.name}`, bodies[0]!, 6)
} finally {
  await poller.terminate()
  await app.close()
  await rateLimiter.close()
  await db.destroy()
  rmSync(files, { recursive: true, force: true })
}
console.log(
  failures
    ? `FAIL: ${failures} case(s) held the loop ${STALL_LIMIT_MS} ms or more, or were not answered 4xx`
    : 'PASS',
)
if (failures) process.exitCode = 1
