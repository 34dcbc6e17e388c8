// Listen latency benchmark. Not part of npm test.
//
//   npm run bench:listen-latency
//   npm run bench:listen-latency -- --orders=200 --every=50 --only=pg --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// One service (default settings) per database: the embedded one on a fresh
// DATA_DIR, and one on a fresh PostgreSQL database. A live key opens
// GET /v1/webhook-events/stream; then --orders orders are created one after
// another, one every --every ms. Reported: for each order, the time from the
// moment its POST was answered to the moment its order.received event arrived
// on the stream (p50, p99, max). The stream reads new events on a 100 ms tick,
// so about 50 ms is expected on average. Target: p50 < 250 ms.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { benchArgs } from './lib/args.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { percentile, type Service, startService, tenant, v1 } from './lib/service.ts'
import { smallOrder } from './orders/bodies.ts'

const {
  orders: ORDERS,
  every: EVERY_MS,
  flags,
} = benchArgs({ orders: 200, every: 50 }, { 'pg-url': PG_URL_OPTION, only: { type: 'string' } })
const TARGET_P50_MS = 250

/** Reads the stream's server-sent events; calls onEvent(type, data) for each. */
async function openStream(service: Service, key: string, onEvent: (type: string, data: string) => void) {
  const controller = new AbortController()
  const res = await fetch(`${service.base}/v1/webhook-events/stream`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  })
  if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`)
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let ready!: () => void
  const isReady = new Promise<void>((resolve) => {
    ready = resolve
  })
  void (async () => {
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      buffer += value
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const type = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (type === 'ready') ready()
        else if (type && data) onEvent(type, data)
      }
    }
  })()
  await isReady
  return { close: () => controller.abort() }
}

async function measure(label: string, env: Record<string, string>): Promise<boolean> {
  const service = await startService(env)
  try {
    const { key } = await tenant(service, `Listen ${label}`)
    const answered = new Map<string, number>()
    const delays: number[] = []
    const arrived = new Map<string, number>()
    const stream = await openStream(service, key, (type, data) => {
      if (type !== 'order.received') return
      const now = performance.now()
      const orderId = (JSON.parse(data) as { data: { order_id: string } }).data.order_id
      arrived.set(orderId, now)
    })
    try {
      for (let n = 0; n < ORDERS; n++) {
        const res = await v1(service, key, 'POST', '/orders', smallOrder(`listen-${n}`))
        if (res.status !== 201) throw new Error(`POST /v1/orders: ${res.status} ${JSON.stringify(res.json)}`)
        answered.set(res.json.data.order.id, performance.now())
        await sleep(EVERY_MS)
      }
      const deadline = Date.now() + 5000
      while (arrived.size < ORDERS && Date.now() < deadline) await sleep(20)
    } finally {
      stream.close()
    }
    for (const [id, at] of answered) {
      const got = arrived.get(id)
      if (got !== undefined) delays.push(got - at)
    }
    const p50 = percentile(delays, 50)
    console.log(
      `${label}: ${delays.length} of ${ORDERS} events arrived; from the POST's answer to the event on the stream: ` +
        `p50 ${p50.toFixed(1)} ms, p99 ${percentile(delays, 99).toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms`,
    )
    const pass = delays.length === ORDERS && p50 < TARGET_P50_MS
    console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}: every event arrived, p50 < ${TARGET_P50_MS} ms`)
    return pass
  } finally {
    await service.stop()
  }
}

let ok = true
if (flags.only !== 'pg') {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-listen-'))
  try {
    ok = (await measure('embedded', { DATA_DIR: dataDir })) && ok
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
if (flags.only !== 'pglite') {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-listen-'))
  const database = await freshDatabase(flags['pg-url'], 'bench_listen')
  try {
    ok = (await measure('PostgreSQL', { DATA_DIR: dataDir, DATABASE_URL: database.url })) && ok
  } finally {
    await database.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
process.exit(ok ? 0 : 1)
