// Large orders and the polling list. Not part of npm test.
//
//   npm run bench:orders-pages                  # embedded database
//   npm run bench:orders-pages -- --pg-url=postgres://postgres@127.0.0.1:5432/test
//   npm run bench:orders-pages -- --orders=20   # fewer large orders
//
// Starts the real service, creates --orders orders of about 9 MB each (every
// one within the documented limits), then reads them back the way a poller
// does: GET /v1/orders?limit=100 and ?limit=50, and a walk over every page of
// limit=100 following next_cursor. Reports each answer's status, size and
// time, the number of pages, and how far the service's resident memory rose
// above where it stood before the request (its peak, from /proc). Exits
// non-zero when an answer is not 200 or the walk does not return every order
// exactly once.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { benchArgs } from './lib/args.ts'
import { startService, tenant } from './lib/service.ts'

const { orders: ORDER_COUNT, flags } = benchArgs({ orders: 60 }, { 'pg-url': { type: 'string' } })
const MB = 1024 * 1024

/** An order of about 9.5 MB: 38 items with 50 personalization fields of 5000 characters. */
function largeOrder(n: number) {
  const text = 'x'.repeat(4990)
  return {
    external_order_id: `large-${n}-${randomBytes(4).toString('hex')}`,
    customer: { name: 'Bench' },
    items: Array.from({ length: 38 }, (_, i) => ({
      sku: `SKU-${i}`,
      name: `Item ${i}`,
      quantity: 1,
      personalization: Object.fromEntries(
        Array.from({ length: 50 }, (_, k) => [`field_${k}`, `${k}`.padEnd(10, '-') + text]),
      ),
    })),
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-pages-'))
  let schema: string | undefined
  const env: Record<string, string> = { DATA_DIR: dataDir, WEBHOOK_WORKER: 'off' }
  if (flags['pg-url']) {
    schema = `bench_pages_${randomBytes(4).toString('hex')}`
    const admin = new pg.Client({ connectionString: flags['pg-url'] })
    await admin.connect()
    await admin.query(`create schema ${schema}`)
    await admin.end()
    const url = new URL(flags['pg-url'])
    url.searchParams.set('options', `-c search_path=${schema}`)
    env.DATABASE_URL = url.toString()
  }
  const service = await startService(env)
  let failed = false
  try {
    const { key } = await tenant(service)
    // fetch asks for gzip on its own; the pages are measured as sent uncompressed.
    const headers = { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' }
    const body = JSON.stringify(largeOrder(0))
    console.log(`creating ${ORDER_COUNT} orders of ${(body.length / MB).toFixed(1)} MB each`)
    const created = new Set<string>()
    for (let n = 0; n < ORDER_COUNT; n++) {
      const res = await fetch(`${service.base}/v1/orders`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(largeOrder(n)),
      })
      const json = (await res.json()) as { data?: { order: { id: string } } }
      if (res.status !== 201)
        throw new Error(`order ${n}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`)
      created.add(json.data!.order.id)
    }

    const get = async (query: string) => {
      service.resetPeak()
      const before = service.memory().rss
      const started = performance.now()
      const res = await fetch(`${service.base}/v1/orders?${query}`, { headers })
      const text = await res.text()
      const ms = performance.now() - started
      const json = JSON.parse(text) as {
        data?: { id: string }[]
        next_cursor?: string | null
        error?: { code: string; message: string }
      }
      return { res, text, ms, json, peak: service.memory().peak - before }
    }
    const line = (label: string, r: Awaited<ReturnType<typeof get>>) =>
      console.log(
        `${label.padEnd(22)} ${r.res.status} ${r.json.error ? `${r.json.error.code} (${r.json.error.message})` : `${r.json.data!.length} orders`}` +
          `  ${(r.text.length / MB).toFixed(1)} MB  ${r.ms.toFixed(0)} ms  RSS +${(r.peak / MB).toFixed(0)} MB`,
      )

    for (const limit of [100, 50]) {
      const r = await get(`limit=${limit}`)
      line(`GET limit=${limit}`, r)
      if (r.res.status !== 200) failed = true
    }

    let cursor: string | null | undefined
    let pages = 0
    let biggest = 0
    let peak = 0
    let worst = 0
    const seen: string[] = []
    do {
      const r = await get(`limit=100${cursor ? `&cursor=${cursor}` : ''}`)
      if (r.res.status !== 200) {
        line(`page ${pages + 1}`, r)
        failed = true
        break
      }
      pages++
      biggest = Math.max(biggest, r.text.length)
      peak = Math.max(peak, r.peak)
      worst = Math.max(worst, r.ms)
      seen.push(...r.json.data!.map((o) => o.id))
      cursor = r.json.next_cursor
    } while (cursor)
    const complete = seen.length === created.size && new Set(seen).size === seen.length
    console.log(
      `walk limit=100          ${pages} pages, ${seen.length} of ${created.size} orders${complete ? '' : ' (INCOMPLETE)'}` +
        `, largest page ${(biggest / MB).toFixed(1)} MB, slowest ${worst.toFixed(0)} ms, RSS at most +${(peak / MB).toFixed(0)} MB per page`,
    )
    if (!complete) failed = true
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
    if (schema && flags['pg-url']) {
      const admin = new pg.Client({ connectionString: flags['pg-url'] })
      await admin.connect()
      await admin.query(`drop schema ${schema} cascade`)
      await admin.end()
    }
  }
  if (failed) process.exitCode = 1
}

await main()
