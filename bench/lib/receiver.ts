// A bare HTTPS webhook receiver in its own process (so it does not share the
// load generator's event loop). Answers 200 with an empty body; prints
// "ready <port>" once listening and "count <n>" whenever asked on stdin.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'

const [keyFile, certFile] = process.argv.slice(2)
let count = 0
let first = 0
let last = 0
const eventIds = new Set<string>()
const server = createServer({ key: readFileSync(keyFile!), cert: readFileSync(certFile!) }, (req, res) => {
  req.on('data', () => {})
  req.on('end', () => {
    count++
    last = Date.now()
    if (count === 1) first = last
    const id = req.headers['x-service-event-id']
    if (typeof id === 'string') eventIds.add(id)
    res.writeHead(200)
    res.end()
  })
})
server.keepAliveTimeout = 60_000
let conns = 0
server.on('secureConnection', () => conns++)
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready ${(server.address() as AddressInfo).port}\n`)
})
process.stdin.setEncoding('utf8')
process.stdin.on('data', (line: string) => {
  if (line.startsWith('count')) {
    process.stdout.write(`count ${count} ${eventIds.size} ${first} ${last} ${conns}\n`)
  } else if (line.startsWith('reset')) {
    count = 0
    first = 0
    last = 0
    eventIds.clear()
    process.stdout.write('reset\n')
  }
})
process.stdin.on('end', () => server.close(() => process.exit(0)))
