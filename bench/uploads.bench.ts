// Upload benchmark (issue 3). Not part of npm test.
//
//   npm run bench:uploads                       # embedded database and storage
//   npm run bench:uploads -- --rounds=3 --orders=3
//
// 1. PUT of a 50 MB file through the signed upload URL, against a plain fs stream
//    copy of the same bytes measured in the same run: the ratio is copy time /
//    PUT time (target >= 0.5). The service's peak RSS is reset before each PUT
//    (/proc/<pid>/clear_refs) and its growth over the RSS before the PUT is
//    reported (target < 64 MB): the body must stream to disk, never be buffered.
// 2. Accepting an order that references 10 freshly uploaded 50 MB files: p50
//    over several orders (target < 100 ms). Detection reads only the first bytes.
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { benchArgs } from './lib/args.ts'
import { percentile, type Service, startService, tenant } from './lib/service.ts'

const { rounds, orders, flags } = benchArgs({ rounds: 5, orders: 5 }, { 'pg-url': { type: 'string' } })
const SIZE = 52_428_800
const MB = 1024 * 1024

const work = mkdtempSync(join(tmpdir(), 'bench-uploads-'))
const source = join(work, 'source.png')

/** A 50 MB file that detects as PNG (signature + IHDR), the rest filler. */
function writeSource() {
  const head = Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001080600000039', 'hex')
  const out = Buffer.alloc(SIZE, 0x5a)
  head.copy(out)
  writeFileSync(source, out)
}

async function fsCopy(): Promise<number> {
  const target = join(work, 'copy.bin')
  const started = performance.now()
  await pipeline(createReadStream(source), createWriteStream(target))
  const ms = performance.now() - started
  rmSync(target)
  return ms
}

async function put(url: string): Promise<number> {
  const target = new URL(url)
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'content-length': statSync(source).size },
      },
      (res) => {
        res.resume()
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT ${res.statusCode}`))))
      },
    )
    req.on('error', reject)
    createReadStream(source).pipe(req)
  })
  return performance.now() - started
}

async function slot(service: Service, key: string, name: string): Promise<{ id: string; url: string }> {
  const res = await fetch(`${service.base}/v1/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ filename: name }),
  })
  const body = (await res.json()) as { data: { upload_id: string; upload_url: string } }
  // The service signs URLs with PUBLIC_BASE_URL; send them to the port it listens on.
  const url = new URL(body.data.upload_url)
  return { id: body.data.upload_id, url: `${service.base}${url.pathname}${url.search}` }
}

async function main() {
  writeSource()
  const dataDir = join(work, 'data')
  const service = await startService({
    DATA_DIR: dataDir,
    ...(flags['pg-url'] ? { DATABASE_URL: flags['pg-url'] } : {}),
  })
  try {
    const { key } = await tenant(service)

    // Warm both paths once.
    await fsCopy()
    await put((await slot(service, key, 'warm.png')).url)

    const copies: number[] = []
    const puts: number[] = []
    const growth: number[] = []
    for (let i = 0; i < rounds; i++) {
      copies.push(await fsCopy())
      const target = await slot(service, key, `round-${i}.png`)
      const before = service.memory().rss
      service.resetPeak()
      puts.push(await put(target.url))
      growth.push(service.memory().peak - before)
    }

    const accept: number[] = []
    for (let n = 0; n < orders; n++) {
      const files: { upload_id: string; role: string }[] = []
      for (let f = 0; f < 10; f++) {
        const s = await slot(service, key, `order-${n}-file-${f}.png`)
        await put(s.url)
        files.push({ upload_id: s.id, role: `side ${f}` })
      }
      const body = JSON.stringify({
        external_order_id: `BENCH-FILES-${Date.now()}-${n}`,
        customer: { name: 'Bench' },
        items: [{ sku: 'POSTER', name: 'Poster', quantity: 1, files }],
      })
      const started = performance.now()
      const res = await fetch(`${service.base}/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      })
      await res.arrayBuffer()
      accept.push(performance.now() - started)
      if (res.status !== 201) throw new Error(`order with files: ${res.status}`)
    }

    const copyMs = percentile(copies, 50)
    const putMs = percentile(puts, 50)
    const ratio = copyMs / putMs
    const peakGrowth = Math.max(...growth) / MB
    const acceptP50 = percentile(accept, 50)
    const line = (name: string, value: string) => console.log(`${name.padEnd(44)} ${value}`)
    console.log(
      `\nuploads benchmark: ${rounds} rounds of 50 MB, ${orders} orders x 10 files of 50 MB, node ${process.version}`,
    )
    line(
      'fs stream copy of 50 MB, p50',
      `${copyMs.toFixed(0)} ms (${((SIZE / MB / copyMs) * 1000).toFixed(0)} MB/s)`,
    )
    line(
      'PUT of 50 MB through the signed URL, p50',
      `${putMs.toFixed(0)} ms (${((SIZE / MB / putMs) * 1000).toFixed(0)} MB/s)`,
    )
    line('ratio copy time / PUT time', ratio.toFixed(2))
    line('service peak RSS growth during a PUT (max)', `${peakGrowth.toFixed(1)} MB`)
    line(
      'accept order with 10 x 50 MB files, p50',
      `${acceptP50.toFixed(1)} ms (p99 ${percentile(accept, 99).toFixed(1)} ms)`,
    )
    console.log()
    const verdict = (ok: boolean, text: string) => console.log(`${ok ? 'PASS' : 'FAIL'}  ${text}`)
    verdict(ratio >= 0.5, `PUT throughput / fs copy >= 0.5: ${ratio.toFixed(2)}`)
    verdict(peakGrowth < 64, `peak RSS growth < 64 MB: ${peakGrowth.toFixed(1)} MB`)
    verdict(
      acceptP50 < 100,
      `order with 10 x 50 MB files accepted in < 100 ms p50: ${acceptP50.toFixed(1)} ms`,
    )
  } finally {
    await service.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
