// Hostile SVG files at order acceptance (issue 15, item 1). Not part of npm test.
//
//   npm run bench:svg                                   # embedded database
//   npm run bench:svg -- --pg-url=postgres://postgres@127.0.0.1:5432/test
//   npm run bench:svg -- --cases=nested,rect-5mb --timeout=120
//
// Each case gets a fresh service (src/main.ts, with hooks/event-loop.ts): one
// upload slot, the PUT of the file, then POST /v1/orders referencing it while
// GET /healthz is polled every 5 ms. Reported per case: the order's answer, the
// worst /healthz latency and the failed polls, the service's event-loop delay
// (monitorEventLoopDelay) over the acceptance, its peak RSS (VmHWM) and whether
// it died. Targets: the service survives every case, and /healthz answers
// within 100 ms throughout.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { nestedSvg, rectSvg, tracedSvg } from '../test/fixtures/svg-large.ts'
import { benchArgs } from './lib/args.ts'
import { ROOT, startService, tenant } from './lib/service.ts'

const CASES: Record<string, { title: string; file: () => Buffer }> = {
  'rect-20mb': { title: '20 MB, 500 000 <rect>', file: () => rectSvg(500_000) },
  'rect-5mb': { title: '5 MB, 125 000 <rect>', file: () => rectSvg(125_000) },
  nested: { title: '0.1 MB, 20 000 nested <g>', file: () => nestedSvg(20_000) },
  traced: { title: 'realistic trace, 10 000 paths', file: () => tracedSvg(10_000) },
}

const { timeout, flags } = benchArgs(
  { timeout: 180 },
  { cases: { type: 'string', default: Object.keys(CASES).join(',') }, 'pg-url': { type: 'string' } },
)
const timeoutMs = timeout * 1000
const MB = 1024 * 1024
const work = mkdtempSync(join(tmpdir(), 'bench-svg-'))

interface Result {
  name: string
  bytes: number
  answer: string
  acceptMs: number
  healthzWorstMs: number
  healthzFailed: number
  healthzPolls: number
  loopMaxMs: number | undefined
  peakRssMb: number
  died: string | undefined
}

/** The service's worst event-loop delay between two instants (hooks/event-loop.ts). */
async function eventLoopMax(log: string, from: number, to: number): Promise<number | undefined> {
  await sleep(1000) // the lines that cover `to` are written by then
  if (!existsSync(log)) return undefined
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  const maxima = lines
    .map((l) => JSON.parse(l) as { at: number; max: number })
    .filter((l) => l.at >= from && l.at <= to + 1000)
    .map((l) => l.max)
  return maxima.length ? Math.max(...maxima) : undefined
}

async function runCase(name: string): Promise<Result> {
  const file = CASES[name]!.file()
  const log = join(work, `${name}.loop.jsonl`)
  const hook = pathToFileURL(join(ROOT, 'bench', 'hooks', 'event-loop.ts')).href
  process.env.BENCH_SERVICE_ARGS = `--import ${hook} ${process.env.BENCH_SERVICE_ARGS ?? ''}`
  const service = await startService({
    DATA_DIR: join(work, `${name}-data`),
    EVENT_LOOP_LOG: log,
    ...(flags['pg-url'] ? { DATABASE_URL: flags['pg-url'] } : {}),
  })
  let stderr = ''
  service.child.stderr!.on('data', (d) => {
    stderr = (stderr + d).slice(-20_000)
  })
  let died: string | undefined
  service.child.once('exit', (code, signal) => {
    const oom = /heap out of memory/i.test(stderr) ? ': JavaScript heap out of memory' : ''
    died = `exit ${code ?? signal}${oom}`
  })
  try {
    const { key } = await tenant(service)
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    const slot = (await (
      await fetch(`${service.base}/v1/uploads`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ filename: `${name}.svg` }),
      })
    ).json()) as { data: { upload_id: string; upload_url: string } }
    const url = new URL(slot.data.upload_url)
    const put = await fetch(`${service.base}${url.pathname}${url.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'image/svg+xml' },
      body: new Uint8Array(file),
    })
    if (put.status !== 200) throw new Error(`PUT ${put.status}`)

    const from = Date.now()
    service.resetPeak()
    let peak = service.memory().peak
    // Sampled apart from the polls, which wait while the service is stalled.
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, service.memory().peak)
      } catch {}
    }, 50)
    let done = false
    const latencies: number[] = []
    let failed = 0
    const poller = (async () => {
      while (!done) {
        const started = performance.now()
        try {
          const res = await fetch(`${service.base}/healthz`, { signal: AbortSignal.timeout(timeoutMs) })
          await res.arrayBuffer()
          if (!res.ok) failed += 1
        } catch {
          failed += 1
        }
        const ms = performance.now() - started
        latencies.push(ms)
        await sleep(Math.max(0, 5 - ms))
      }
    })()

    const started = performance.now()
    let answer: string
    try {
      const res = await fetch(`${service.base}/v1/orders`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          external_order_id: `SVG-${name}-${Date.now()}`,
          customer: { name: 'Bench' },
          items: [{ name: 'Print', quantity: 1, files: [{ upload_id: slot.data.upload_id }] }],
        }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      const body = (await res.json()) as { error?: { code: string; errors?: { code: string }[] } }
      answer = body.error
        ? `${res.status} ${body.error.code}${body.error.errors ? ` [${body.error.errors.map((e) => e.code).join(',')}]` : ''}`
        : `${res.status}`
    } catch (err) {
      answer = `no answer (${(err as Error).name})`
    }
    const acceptMs = performance.now() - started
    done = true
    await poller
    clearInterval(sampler)
    const loopMax = await eventLoopMax(log, from, Date.now())
    // A service that died never wrote the line of its last stall.
    const loopMaxMs = died ? undefined : loopMax
    return {
      name,
      bytes: file.length,
      answer,
      acceptMs,
      healthzWorstMs: Math.max(...latencies),
      healthzFailed: failed,
      healthzPolls: latencies.length,
      loopMaxMs,
      peakRssMb: peak / MB,
      died,
    }
  } finally {
    if (!died) await service.stop()
  }
}

async function main() {
  const names = flags.cases.split(',').filter(Boolean)
  for (const name of names) if (!CASES[name]) throw new Error(`unknown case ${name}`)
  console.log(
    `\nhostile SVG benchmark: ${flags['pg-url'] ? 'PostgreSQL' : 'embedded database'}, node ${process.version}`,
  )
  const results: Result[] = []
  try {
    for (const name of names) {
      const r = await runCase(name)
      results.push(r)
      console.log(
        [
          `${CASES[name]!.title} (${(r.bytes / MB).toFixed(2)} MB)`,
          `  answer           ${r.answer} after ${(r.acceptMs / 1000).toFixed(2)} s`,
          `  /healthz         worst ${r.healthzWorstMs.toFixed(0)} ms, ${r.healthzFailed} failed of ${r.healthzPolls}`,
          `  event-loop delay max ${r.loopMaxMs === undefined ? 'n/a' : `${r.loopMaxMs.toFixed(0)} ms`}`,
          `  peak RSS         ${r.peakRssMb.toFixed(0)} MB`,
          `  service          ${r.died ? `DIED (${r.died})` : 'alive'}`,
        ].join('\n'),
      )
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log()
  for (const r of results) {
    const ok = !r.died && r.healthzFailed === 0 && r.healthzWorstMs < 100
    console.log(
      `${ok ? 'PASS' : 'FAIL'}  ${r.name}: ${r.died ? 'service died' : `answered ${r.answer}`}, /healthz worst ${r.healthzWorstMs.toFixed(0)} ms`,
    )
  }
}

await main()
