// A 200-item order with 50 personalization fields per item: sequential p50
// against the target of 50 ms, and CPU per order.
import { randomBytes } from 'node:crypto'
import { cpuMs } from '../lib/cpu.ts'
import { percentile } from '../lib/service.ts'
import { bigOrder } from './bodies.ts'
import { cpuOf, type LoadResult, type Target } from './load.ts'
import { log, opts } from './options.ts'
import { checks, rows } from './report.ts'
import { timed } from './service.ts'

export async function bigOrders(database: string, to: Target, key: string): Promise<void> {
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
