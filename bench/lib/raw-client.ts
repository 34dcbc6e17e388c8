// The raw baseline of bench:webhooks in a fresh process, as each measured
// service is a fresh process: undici POSTs of signed event bodies with the
// worker's headers over kept-alive HTTPS, `warmup` requests first (not
// measured), then `requests` measured. Prints "rate <requests per second>", "cpu <CPU microseconds per
// measured request>" and "window <start> <end>" (epoch ms of the measured part).
//
//   node bench/lib/raw-client.ts <port> <ca.pem> <warmup> <requests> <concurrency>
import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Agent } from 'undici'
import { signatureHeader, signingKey } from '../../src/modules/webhooks/worker/signing.ts'

const [port, caFile, warmup, requests, concurrency] = process.argv.slice(2)
const agent = new Agent({
  connect: { ca: readFileSync(caFile!, 'utf8') },
  keepAliveTimeout: 30_000,
  connections: Number(concurrency),
})
// Keyed once, as the worker keys each endpoint once.
const key = signingKey(`whsec_${randomBytes(32).toString('base64url')}`)

async function run(total: number): Promise<number> {
  let sent = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (sent < total) {
        sent++
        const id = randomUUID()
        const body = JSON.stringify({
          id,
          type: 'order.received',
          created_at: new Date().toISOString(),
          api_version: 'v1',
          data: { order_id: randomUUID(), external_order_id: `RAW-${sent}` },
        })
        const res = await agent.request({
          origin: `https://localhost:${port}`,
          path: '/raw',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Service-Webhooks/1.0',
            'x-service-event-id': id,
            'x-service-event-type': 'order.received',
            'x-service-signature': signatureHeader(key, body, Math.floor(Date.now() / 1000)),
          },
          body,
        })
        await res.body.dump()
      }
    }),
  )
  return total / ((performance.now() - started) / 1000)
}

await run(Number(warmup))
const cpuBefore = process.cpuUsage()
const windowStart = Date.now()
const rate = await run(Number(requests))
const windowEnd = Date.now()
const cpu = process.cpuUsage(cpuBefore)
await agent.close()
process.stdout.write(
  `rate ${rate}\ncpu ${(cpu.user + cpu.system) / Number(requests)}\nwindow ${windowStart} ${windowEnd}\n`,
)
