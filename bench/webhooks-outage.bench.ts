// Webhook outage benchmark (issue 29, item 1). Not part of npm test.
//
//   npm run bench:webhooks-outage
//   npm run bench:webhooks-outage -- --outage=10 --rate=10 --pg-url=postgres://postgres@127.0.0.1:5432/test
//
// One service (API and worker, the reference's retry schedule unless
// --delays is given, e.g. --delays=5s,30s) with one live endpoint on a local
// HTTPS receiver. Orders arrive at --rate a second (10). After --warmup
// seconds (5) the receiver goes down (its port refuses connections) for
// --outage seconds (60), then comes back on the same port; orders go on for
// --after seconds (5) more. The run then waits, at most --drain-limit seconds
// (200), until every order's event has arrived.
// Reported: orders sent, events delivered, the endpoint's most consecutive
// failures seen and whether it was disabled, and the time from the receiver's
// return until the backlog (as many events as orders sent by then) and until
// the last event arrived.
// Target: nothing lost, nothing disabled. Embedded database unless --pg-url.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { benchArgs } from './lib/args.ts'
import { certificate } from './lib/https.ts'
import { freshDatabase } from './lib/postgres.ts'
import { type Service, startService, v1 } from './lib/service.ts'

const {
  outage: OUTAGE_S,
  rate: RATE,
  warmup: WARMUP_S,
  after: AFTER_S,
  'drain-limit': DRAIN_LIMIT_S,
  flags,
} = benchArgs(
  { outage: 60, rate: 10, warmup: 5, after: 5, 'drain-limit': 200 },
  { 'pg-url': { type: 'string' }, delays: { type: 'string' } },
)
const work = mkdtempSync(join(tmpdir(), 'bench-outage-'))

/** Answers 200 at once and records the event ids it received; down() refuses connections until up(). */
async function receiver(tls: { key: string; cert: string }) {
  const events = new Set<string>()
  /** When each event's first attempt arrived, in arrival order. */
  const arrivals: number[] = []
  let lastAt = 0
  let requests = 0
  let server: Server | undefined
  let port = 0
  const open = async () => {
    server = createServer(tls, (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        requests++
        res.end()
        const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: string }).id
        lastAt = Date.now()
        if (!events.has(id)) arrivals.push(lastAt)
        events.add(id)
      })
    })
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
  }
  await open()
  return {
    events,
    arrivals,
    get port() {
      return port
    },
    get lastAt() {
      return lastAt
    },
    get requests() {
      return requests
    },
    async down() {
      server!.closeAllConnections()
      await new Promise((resolve) => server!.close(resolve))
    },
    up: open,
    close() {
      server?.closeAllConnections()
      server?.close()
    },
  }
}

async function main() {
  const tls = await certificate(work)
  const rx = await receiver(tls)
  const database = flags['pg-url'] ? await freshDatabase(flags['pg-url'], 'bench_outage') : undefined
  let service: Service | undefined
  let sending = true
  try {
    service = await startService({
      ...(database ? { DATABASE_URL: database.url } : {}),
      DATA_DIR: join(work, 'data'),
      NODE_EXTRA_CA_CERTS: join(work, 'cert.pem'),
      WEBHOOK_ALLOW_PRIVATE_CIDRS: '127.0.0.0/8',
      ...(flags.delays ? { WEBHOOK_RETRY_DELAYS: flags.delays } : {}),
    })
    const s = service
    const org = (await s.admin('POST', '/organizations', { name: 'Outage' })).data.organization
    const key = (
      await s.admin('POST', `/organizations/${org.id}/api-keys`, {
        environment: 'live',
        scopes: ['orders:write', 'webhooks:manage'],
      })
    ).data.key as string
    const created = await v1(s, key, 'POST', '/webhook-endpoints', {
      url: `https://127.0.0.1:${rx.port}/hook`,
    })
    if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${JSON.stringify(created.json)}`)
    const endpointId = created.json.data.endpoint.id as string

    let sent = 0
    let refused = 0
    const inFlight = new Set<Promise<void>>()
    const orders = (async () => {
      const start = Date.now()
      for (let n = 0; sending; n++) {
        await sleep(Math.max(0, start + (n * 1000) / RATE - Date.now()))
        const p = v1(s, key, 'POST', '/orders', {
          external_order_id: `OUT-${n}-${randomBytes(3).toString('hex')}`,
          customer: { name: 'Outage' },
          items: [{ name: 'x', quantity: 1 }],
        }).then((res) => {
          if (res.status === 201) sent++
          else refused++
        })
        inFlight.add(p)
        void p.finally(() => inFlight.delete(p))
      }
      await Promise.all(inFlight)
    })()

    let mostFailures = 0
    let disabled = false
    let finished = false
    const endpoint = async () => {
      const res = await v1(s, key, 'GET', '/webhook-endpoints')
      const e = res.json.data.find((x: { id: string }) => x.id === endpointId)
      mostFailures = Math.max(mostFailures, e.consecutive_failures)
      disabled ||= !e.is_active
    }
    const watch = (async () => {
      while (!finished) {
        await endpoint()
        await sleep(500)
      }
    })()

    await sleep(WARMUP_S * 1000)
    const beforeOutage = rx.events.size
    await rx.down()
    const downAt = Date.now()
    console.log(`receiver down after ${WARMUP_S} s (${beforeOutage} events delivered)`)
    await sleep(OUTAGE_S * 1000)
    await rx.up()
    const upAt = Date.now()
    const sentByReturn = sent
    console.log(`receiver back after ${((upAt - downAt) / 1000).toFixed(1)} s down; ${sent} orders so far`)
    await sleep(AFTER_S * 1000)
    sending = false
    await orders
    const deadline = Date.now() + DRAIN_LIMIT_S * 1000
    let lastReport = Date.now()
    while (rx.events.size < sent && !disabled && Date.now() < deadline) {
      await sleep(250)
      if (Date.now() - lastReport >= 10_000) {
        lastReport = Date.now()
        console.log(
          `${((Date.now() - upAt) / 1000).toFixed(0).padStart(3)} s after the return: ${rx.events.size} of ${sent} events delivered, most consecutive failures ${mostFailures}`,
        )
      }
    }
    finished = true
    await watch
    await endpoint()
    const drained = rx.events.size >= sent
    const drainS = drained ? (rx.lastAt - upAt) / 1000 : Number.NaN
    const backlogAt = rx.arrivals[sentByReturn - 1]

    console.log(
      `\nwebhooks outage benchmark: ${database ? 'PostgreSQL' : 'embedded database'}, node ${process.version}, ${RATE} orders/s, receiver down ${OUTAGE_S} s, retry delays ${flags.delays ?? 'the reference schedule'}`,
    )
    console.log(`orders sent: ${sent}${refused > 0 ? ` (${refused} refused)` : ''}`)
    console.log(`events delivered: ${rx.events.size} of ${sent} (${rx.requests} requests answered)`)
    console.log(
      `endpoint: ${disabled ? 'DISABLED' : 'active'}, most consecutive failures seen ${mostFailures}`,
    )
    console.log(
      `time to drain: ${backlogAt === undefined ? 'never' : `${((backlogAt - upAt) / 1000).toFixed(1)} s`} from the receiver's return until as many events arrived as orders were sent by then (${sentByReturn}); ${drained ? `${drainS.toFixed(1)} s to the last event` : disabled ? 'never drained: the endpoint was disabled' : `not drained within ${DRAIN_LIMIT_S} s`}`,
    )
    const pass = drained && !disabled && refused === 0
    console.log(`${pass ? 'PASS' : 'FAIL'}  nothing lost, nothing disabled`)
    process.exitCode = pass ? 0 : 1
  } finally {
    sending = false
    await service?.stop()
    rx.close()
    await database?.drop()
    rmSync(work, { recursive: true, force: true })
  }
}

await main()
