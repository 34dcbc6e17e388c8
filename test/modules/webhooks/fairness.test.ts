import assert from 'node:assert/strict'
import { createServer } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { claimDue } from '../../../src/modules/webhooks/outbox/claim.repo.ts'
import { releaseClaims } from '../../../src/modules/webhooks/outbox/release.repo.ts'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { loopbackResolver, startReceiver, testCertificate } from '../../helpers/https-receiver.ts'

/** An HTTPS receiver that reads every request and never answers. */
async function hangingReceiver() {
  const { key, cert } = await testCertificate()
  const stats = { received: 0, open: 0, ended: 0 }
  const sockets = new Set<Socket>()
  const server = createServer({ key, cert }, (req) => {
    req.resume()
    stats.received++
    stats.open++
    req.socket.once('close', () => {
      stats.open--
      stats.ended++
    })
  })
  server.on('connection', (socket: Socket) => sockets.add(socket))
  server.requestTimeout = 0
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    stats,
    ca: cert,
    url: (path: string) => `https://webhook.test:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

let t: TestApp
before(async () => {
  t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
})
after(() => t.close())

/** Registers endpoints on `url(path)` with `key` and queues `pings` test pings to each; their ids. */
async function pinged(key: string, paths: string[], url: (path: string) => string, pings: number) {
  const ids: string[] = []
  for (const path of paths) {
    const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: url(path) })
    assert.equal(res.statusCode, 201, res.body)
    const id = res.json().data.endpoint.id as string
    ids.push(id)
    for (let i = 0; i < pings; i++) {
      const ping = await t.api(key, 'POST', `/v1/webhook-endpoints/${id}/test`)
      assert.equal(ping.statusCode, 202, ping.body)
    }
  }
  return ids
}

describe('webhook dispatcher: slots shared fairly between organizations', () => {
  test("endpoints that never answer do not delay another organization's first attempt beyond a second", async (ctx) => {
    const hanging = await hangingReceiver()
    const healthy = await startReceiver()
    ctx.after(() => healthy.close())
    ctx.after(() => hanging.close())
    // Organization A: ten endpoints (five live, five test), 16 pings each.
    // Organization C: five more, 16 pings each. 240 attempts that hang, with
    // the default 128 slots and 16 attempts at once per endpoint.
    const a = await t.tenant('A')
    const c = await t.tenant('C')
    const five = (prefix: string) => Array.from({ length: 5 }, (_, i) => `/${prefix}-${i}`)
    await pinged(a.liveKey, five('a-live'), hanging.url, 16)
    await pinged(a.testKey, five('a-test'), hanging.url, 16)
    await pinged(c.liveKey, five('c-live'), hanging.url, 16)
    // A deadline longer than the setup may take on a busy machine, so that no
    // hanging attempt ends before B is served; no retry within the test.
    const worker = await t.startDispatcher({ ca: healthy.ca, timeoutMs: 20_000, retryDelaysMs: [60_000] })
    ctx.after(async () => {
      await worker.stop(100)
      await t.db.deleteFrom('webhook_queue').execute()
    })
    const deadline = Date.now() + 10_000
    while (hanging.stats.received < 128 && Date.now() < deadline) await sleep(10)
    assert.ok(hanging.stats.received >= 128, `${hanging.stats.received} hanging attempts sent`)

    // Organization B's healthy endpoint: its order's first attempt.
    const b = await t.tenant('B')
    const res = await t.api(b.liveKey, 'POST', '/v1/webhook-endpoints', { url: healthy.url('/b') })
    assert.equal(res.statusCode, 201, res.body)
    const started = Date.now()
    assert.equal((await t.api(b.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    await healthy.waitFor(1, 5000)
    const waited = healthy.received[0]!.at - started
    const { open, ended } = hanging.stats
    assert.ok(waited < 1000, `B's first attempt arrived ${waited} ms after its order`)
    assert.equal(ended, 0, 'every hanging attempt was still in flight when B was served')

    // Meanwhile every hanging attempt went out: no endpoint held more than its 16.
    const all = Date.now() + 5000
    while (hanging.stats.received < 240 && Date.now() < all) await sleep(10)
    assert.equal(hanging.stats.received, 240)
    assert.ok(open >= 128, `${open} hanging attempts in flight when B was served`)
  })

  test('a claim takes no more than its limit of a limited endpoint, all that is due of the others, and nothing of an excluded one', async (ctx) => {
    const tenant = await t.tenant('Claims')
    const url = (path: string) => `https://webhook.test:9${path}`
    const [limited, other, excluded] = await pinged(tenant.liveKey, ['/l', '/o', '/x'], url, 4)
    ctx.after(() => t.db.deleteFrom('webhook_queue').execute())
    const rows = await claimDue(t.db, {
      limit: 100,
      now: new Date(),
      leaseMs: 60_000,
      workerId: 'w',
      exclude: [excluded!],
      limits: new Map([[limited!, 2]]),
    })
    const count = (id: string) => rows.filter((r) => r.endpoint_id === id).length
    assert.deepEqual([count(limited!), count(other!), count(excluded!)], [2, 4, 0])
    assert.ok(rows.every((r) => r.organization_id === tenant.orgId && r.attempts === 1))
    await releaseClaims(
      t.db,
      rows.map((r) => r.id),
      'w',
    )
    // The limited endpoint's other two stayed in the queue, unclaimed.
    const again = await claimDue(t.db, { limit: 100, now: new Date(), leaseMs: 60_000, workerId: 'w' })
    assert.equal(again.length, 12)
  })

  test('a worker whose only attempt hangs does not claim again and again meanwhile', async (ctx) => {
    const hanging = await hangingReceiver()
    ctx.after(() => hanging.close())
    const tenant = await t.tenant('One hanging')
    await pinged(tenant.liveKey, ['/alone'], hanging.url, 1)
    let statements = 0
    const execute = t.db.executeQuery.bind(t.db)
    t.db.executeQuery = ((query: Parameters<typeof execute>[0]) => {
      statements++
      return execute(query)
    }) as typeof t.db.executeQuery
    ctx.after(() => {
      t.db.executeQuery = execute
    })
    const worker = await t.startDispatcher({
      ca: hanging.ca,
      timeoutMs: 5000,
      pollIntervalMs: 1000,
      retryDelaysMs: [60_000],
    })
    ctx.after(async () => {
      await worker.stop(100)
      await t.db.deleteFrom('webhook_queue').execute()
    })
    const deadline = Date.now() + 2000
    while (hanging.stats.received < 1 && Date.now() < deadline) await sleep(10)
    assert.equal(hanging.stats.received, 1)
    const before = statements
    await sleep(2000)
    // It polls once a second, and wakes on NOTIFY (on PostgreSQL also other
    // test files' notifications); a worker claiming in a loop ran hundreds.
    assert.ok(statements - before < 40, `${statements - before} statements in 2 s`)
  })
})
