// Preflight throughput and memory (issue 48). Not part of npm test.
//
//   npm run bench:preflight                      # embedded database, then PostgreSQL
//   npm run bench:preflight -- --only=embedded   # or --only=pg
//   npm run bench:preflight -- --scale=2         # twice the files of each case
//
// Each database gets a fresh service (src/main.ts, its own runner and its
// measuring process). A product with an A2 print spec; per case, that many
// distinct files of one format and size are uploaded, then one order per file
// is created, all at once. Reported per case: files checked a second, from
// the last order accepted until every order's verdict is stored (the order
// fold, measuring, thumbnails and the check: what a person waits for), and
// the peak RSS of the measuring process and of the service over the case.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { PDFDocument } from '@cantoo/pdf-lib'
import sharp from 'sharp'
import { benchArgs } from './lib/args.ts'
import { freshDatabase, PG_URL_OPTION } from './lib/postgres.ts'
import { type Service, signIn, startService, tenant, v1 } from './lib/service.ts'

const { scale, flags } = benchArgs(
  { scale: 1 },
  {
    only: { type: 'string' },
    'pg-url': PG_URL_OPTION,
  },
)

const noise = (width: number, height: number) =>
  sharp({
    create: {
      width,
      height,
      channels: 3,
      background: 'black',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })

const CASES: { name: string; count: number; type: string; file: (n: number) => Promise<Buffer> }[] = [
  { name: 'PNG 1000 × 1000 (1 MP)', count: 40, type: 'png', file: () => noise(1000, 1000).png().toBuffer() },
  { name: 'PNG 4000 × 4000 (16 MP)', count: 8, type: 'png', file: () => noise(4000, 4000).png().toBuffer() },
  {
    name: 'JPEG 6000 × 4000 (24 MP)',
    count: 8,
    type: 'jpg',
    file: () => noise(6000, 4000).jpeg({ quality: 90 }).toBuffer(),
  },
  {
    name: 'PDF of 1 page',
    count: 40,
    type: 'pdf',
    file: async (n) => {
      const doc = await PDFDocument.create()
      doc.addPage([1190, 1684]).drawText(`Poster ${n}`)
      return Buffer.from(await doc.save())
    },
  },
  {
    name: 'PDF of 200 pages',
    count: 8,
    type: 'pdf',
    file: async (n) => {
      const doc = await PDFDocument.create()
      for (let p = 0; p < 200; p++) doc.addPage([595, 842]).drawText(`Book ${n}, page ${p}`)
      return Buffer.from(await doc.save())
    },
  },
  {
    name: 'SVG, 2 000 shapes',
    count: 40,
    type: 'svg',
    file: async (n) =>
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="420mm" height="594mm" viewBox="0 0 420 594">${Array.from(
          { length: 2000 },
          (_, i) =>
            `<rect x="${i % 400}" y="${(i * 7 + n) % 580}" width="10" height="10" fill="#${(i * 4099).toString(16).slice(-6).padStart(6, '0')}"/>`,
        ).join('')}</svg>`,
      ),
  },
]

/** Peak RSS (VmHWM) of a process, in MB; its peak is reset first with `reset`. */
const peakMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5')

/** The service's measuring process (src/modules/preflight/facts.worker.ts), once it runs. */
function measuringPid(service: Service): number | undefined {
  const found = spawnSync('pgrep', ['-P', String(service.child.pid), '-f', 'facts.worker'], {
    encoding: 'utf8',
  })
  const pid = Number(found.stdout.trim().split('\n')[0])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

async function put(service: Service, key: string, name: string, bytes: Buffer): Promise<string> {
  const slot = await v1(service, key, 'POST', '/uploads', { filename: name })
  if (slot.status !== 201) throw new Error(`upload slot: ${slot.status} ${JSON.stringify(slot.json)}`)
  const url = new URL(slot.json.data.upload_url)
  const res = await fetch(`${service.base}${url.pathname}${url.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  })
  if (res.status !== 200) throw new Error(`PUT: ${res.status} ${await res.text()}`)
  return slot.json.data.upload_id
}

async function runDatabase(label: string, env: Record<string, string>) {
  const work = mkdtempSync(join(tmpdir(), 'bench-preflight-'))
  const service = await startService({ DATA_DIR: join(work, 'data'), ...env })
  const rows: string[] = []
  try {
    const { orgId, key } = await tenant(service, `Preflight ${label}`)
    const cookie = await signIn(service, orgId, 'owner')
    const session = await fetch(`${service.base}/dashboard/api/session`, { headers: { cookie } })
    const csrf = ((await session.json()) as { data: { csrf_token: string } }).data.csrf_token
    const dashboard = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${service.base}/dashboard/api${path}`, {
        method,
        headers: {
          cookie,
          origin: service.base,
          'x-csrf-token': csrf,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      return { status: res.status, json: (await res.json()) as { data: Record<string, unknown> } }
    }
    const product = await dashboard('POST', '/products', { sku: 'POSTER-A2', name: 'Poster A2' })
    const productId = (product.json.data.product as { id: string }).id
    const spec = await dashboard('PUT', `/products/${productId}/print-spec`, {
      print_spec: { default: { width_mm: 420, height_mm: 594, pages: 1 } },
    })
    if (spec.status !== 200) throw new Error(`print spec: ${spec.status} ${JSON.stringify(spec.json)}`)

    for (const c of CASES) {
      const count = Math.max(1, Math.round(c.count * scale))
      const uploads: string[] = []
      let bytes = 0
      for (let n = 0; n < count; n++) {
        const file = await c.file(n)
        bytes += file.length
        uploads.push(await put(service, key, `file-${n}.${c.type}`, file))
      }
      const measuring = measuringPid(service)
      if (measuring) resetPeak(measuring)
      resetPeak(service.child.pid!)
      const orders = await Promise.all(
        uploads.map(async (uploadId, n) => {
          const res = await v1(service, key, 'POST', '/orders', {
            external_order_id: `BENCH-PF-${label}-${c.type}-${Date.now()}-${n}`,
            customer: { name: 'Bench' },
            items: [{ sku: 'POSTER-A2', name: 'Poster', quantity: 1, files: [{ upload_id: uploadId }] }],
          })
          if (res.status !== 201) throw new Error(`order: ${res.status} ${JSON.stringify(res.json)}`)
          return res.json.data.order.id as string
        }),
      )
      // From the last order's answer: accepting SVGs sanitizes them, which is not preflight.
      const started = performance.now()
      // Orders are checked in the order they were queued: the last one waits longest.
      let left = [...orders]
      while (left.length > 0) {
        const still: string[] = []
        for (const id of left) {
          const res = await dashboard('GET', `/orders/${id}/preflight`)
          if ((res.json.data as { status: string }).status === 'pending') still.push(id)
        }
        left = still
        if (left.length > 0) await sleep(100)
      }
      const seconds = (performance.now() - started) / 1000
      const worker = measuringPid(service) ?? measuring
      rows.push(
        `| ${label} | ${c.name} | ${count} | ${(bytes / count / 1024 / 1024).toFixed(2)} MB | ${(count / seconds).toFixed(1)} | ${worker ? peakMb(worker).toFixed(0) : '-'} MB | ${peakMb(service.child.pid!).toFixed(0)} MB |`,
      )
      console.log(rows.at(-1))
    }
  } finally {
    await service.stop()
    rmSync(work, { recursive: true, force: true })
  }
  return rows
}

const rows: string[] = []
if (flags.only !== 'pg') rows.push(...(await runDatabase('embedded', {})))
if (flags.only !== 'embedded') {
  const database = await freshDatabase(flags['pg-url'], 'bench_preflight')
  try {
    rows.push(...(await runDatabase('PostgreSQL', { DATABASE_URL: database.url })))
  } finally {
    await database.drop()
  }
}
console.log(
  '\n| Database | Files | Count | Size each | Files/s | Measuring peak RSS | Service peak RSS |\n|---|---|---|---|---|---|---|',
)
for (const row of rows) console.log(row)
