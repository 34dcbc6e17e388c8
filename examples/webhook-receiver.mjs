// A small HTTPS webhook receiver for local testing: it checks each delivery's
// signature, answers at once, and prints one line per delivery. Plain
// JavaScript without dependencies, so any Node 20 or later runs it.
//
//   WEBHOOK_SECRET=whsec_... node examples/webhook-receiver.mjs \
//     --port 8443 --cert tmp/hook-cert.pem --key tmp/hook-key.pem
//
// Lines it prints:
//   <time> verified <type> <event id> <what the event says>
//   <time> duplicate <type> <event id> (already handled)    a redelivery or a retry
//   <time> rejected <reason>                                answered 401, nothing processed
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import { parseArgs } from 'node:util'

const TOLERANCE_S = 300

/**
 * True when `header` (the X-Service-Signature value) signs `rawBody` (the
 * request body exactly as received, a Buffer) with `secret` (the whole
 * whsec_... string). Any of several v1 values may match.
 */
function verifySignature(rawBody, header, secret, nowS = Math.floor(Date.now() / 1000)) {
  const parts = String(header ?? '')
    .split(',')
    .map((part) => part.trim().split('=', 2))
  const t = parts.find(([name]) => name === 't')?.[1] ?? ''
  const v1s = parts.filter(([name, value]) => name === 'v1' && /^[0-9a-f]{64}$/.test(value ?? ''))
  if (!/^\d+$/.test(t) || v1s.length === 0) return false
  if (Math.abs(nowS - Number(t)) > TOLERANCE_S) return false
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest()
  return v1s.some(([, v1]) => timingSafeEqual(expected, Buffer.from(v1, 'hex')))
}

/** One line about what an event says. */
function describe(event) {
  const d = event.data ?? {}
  if (event.type === 'ping') return d.message ?? ''
  const parts = [`order ${d.external_order_id}`]
  if (d.production_status) parts.push(`production ${d.production_status}`)
  if (d.name) parts.push(`item "${d.name}"`)
  if (d.produced_by_partner) parts.push('partner')
  return parts.join(', ')
}

function main() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8443' },
      host: { type: 'string', default: '127.0.0.1' },
      cert: { type: 'string', default: 'tmp/hook-cert.pem' },
      key: { type: 'string', default: 'tmp/hook-key.pem' },
    },
  })
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the endpoint secret (whsec_...) returned when it was created.')
    process.exit(1)
  }
  const log = (line) => console.log(`${new Date().toISOString()} ${line}`)
  // Deliveries are at least once: a retry or a redelivery repeats an event id.
  // A real receiver keeps the ids it handled in its database.
  const handled = new Set()

  const server = createServer(
    { cert: readFileSync(values.cert), key: readFileSync(values.key) },
    (req, res) => {
      const chunks = []
      req.on('data', (chunk) => chunks.push(chunk))
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks)
        if (req.method !== 'POST' || !verifySignature(rawBody, req.headers['x-service-signature'], secret)) {
          log(`rejected ${req.method} ${req.url}: missing or wrong signature`)
          res.writeHead(401).end()
          return
        }
        const event = JSON.parse(rawBody.toString('utf8'))
        // Answer first: the sender waits 10 s at most, and work belongs in a queue of your own.
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
        if (handled.has(event.id)) {
          log(`duplicate ${event.type} ${event.id} (already handled)`)
          return
        }
        handled.add(event.id)
        log(`verified ${event.type} ${event.id} ${describe(event)}`)
      })
    },
  )
  server.listen(Number(values.port), values.host, () => {
    log(`listening on https://${values.host}:${values.port}`)
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)))
}

main()
