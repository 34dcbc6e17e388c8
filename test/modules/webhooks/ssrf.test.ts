import assert from 'node:assert/strict'
import { createServer as createHttpsServer } from 'node:https'
import { createServer, type Server, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { TLSSocket } from 'node:tls'
import { isBlockedAddress, parseCidrs, type Resolver } from '../../../src/modules/webhooks/ssrf.ts'
import {
  createTestApp,
  createTestDatabase,
  orderBody,
  type TestApp,
  type TestDatabase,
} from '../../helpers/app.ts'
import { testCertificate } from '../../helpers/https-receiver.ts'

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** One database for the file (a fresh embedded one is slow to build); each app on it has its own config. */
let testDb: TestDatabase
before(async () => {
  testDb = await createTestDatabase()
})
after(() => testDb.close())

/** Creates a webhook endpoint for `url` (201 expected); the addresses stored as its pinned ones. */
async function pinnedAddresses(t: TestApp, key: string, url: string): Promise<string[]> {
  const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url })
  assert.equal(res.statusCode, 201, res.body)
  const row = await t.db
    .selectFrom('webhook_endpoints')
    .select('pinned_addresses')
    .where('id', '=', res.json().data.endpoint.id)
    .executeTakeFirstOrThrow()
  return row.pinned_addresses
}

describe('isBlockedAddress', () => {
  const none = parseCidrs([])
  const cases: [string, string[]][] = [
    ['IPv4 "this network" 0.0.0.0/8', ['0.0.0.0', '0.1.2.3']],
    ['IPv4 RFC 1918', ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.0.1']],
    ['IPv4 CGNAT 100.64.0.0/10', ['100.64.0.1', '100.127.255.254']],
    ['IPv4 loopback', ['127.0.0.1', '127.255.255.254']],
    ['IPv4 link-local and cloud metadata', ['169.254.0.1', '169.254.169.254']],
    [
      'IPv4 special purpose and documentation',
      ['192.0.0.1', '192.0.2.1', '198.18.0.1', '198.19.255.254', '198.51.100.1', '203.0.113.1'],
    ],
    ['IPv4 multicast', ['224.0.0.1', '239.255.255.250']],
    ['IPv4 reserved and broadcast', ['240.0.0.1', '255.255.255.255']],
    ['IPv6 unspecified and loopback', ['::', '::1', '0:0:0:0:0:0:0:1']],
    ['IPv6 link-local', ['fe80::1', 'febf::1']],
    ['IPv6 unique-local', ['fc00::1', 'fd00::1', 'fdff:ffff::1']],
    ['IPv6 site-local (deprecated)', ['fec0::1']],
    ['IPv6 multicast', ['ff02::1', 'ff0e::1']],
    [
      'IPv4-mapped IPv6 of private addresses',
      ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0.0.0.0'],
    ],
    ['IPv4-compatible IPv6 (::/96, reserved)', ['::127.0.0.1', '::7f00:1', '::a00:1']],
    ['IPv4-translated IPv6 (RFC 6145)', ['::ffff:0:7f00:1', '::ffff:0:a00:1']],
    ['NAT64 64:ff9b::/96 of private addresses', ['64:ff9b::7f00:1', '64:ff9b::a00:1', '64:ff9b::a9fe:a9fe']],
    ['6to4 2002::/16 of private addresses', ['2002:7f00:1::1', '2002:a00:1::', '2002:c0a8:101::1']],
    ['IPv6 documentation and discard', ['2001:db8::1', '100::1']],
    ['not an address at all', ['not-an-address', '', '1.2.3.4.5', 'fe80::1::2']],
  ]
  for (const [name, addresses] of cases) {
    test(`blocks ${name}`, () => {
      for (const address of addresses) assert.equal(isBlockedAddress(address, none), true, address)
    })
  }

  test('lets public unicast addresses through, right next to the blocked ranges', () => {
    for (const address of [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.1',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.1',
      '169.253.255.255',
      '172.15.255.255',
      '172.32.0.1',
      '192.167.255.255',
      '192.169.0.1',
      '223.255.255.254',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2a00:1450:4001:81c::200e',
    ]) {
      assert.equal(isBlockedAddress(address, none), false, address)
    }
  })

  test('WEBHOOK_ALLOW_PRIVATE_CIDRS exempts exactly its ranges', () => {
    const loopback = parseCidrs(['127.0.0.0/8'])
    for (const address of ['127.0.0.1', '127.1.2.3', '::ffff:127.0.0.1']) {
      assert.equal(isBlockedAddress(address, loopback), false, address)
    }
    for (const address of ['10.0.0.1', '::1', '169.254.169.254', '0.0.0.0']) {
      assert.equal(isBlockedAddress(address, loopback), true, address)
    }

    const mixed = parseCidrs(['10.0.0.0/8', 'fd00::/8'])
    for (const address of ['10.1.2.3', '10.255.255.255', 'fd12::1']) {
      assert.equal(isBlockedAddress(address, mixed), false, address)
    }
    for (const address of ['192.168.0.1', '172.16.0.1', 'fc00::1', 'fe80::1', '127.0.0.1']) {
      assert.equal(isBlockedAddress(address, mixed), true, address)
    }

    const single = parseCidrs(['169.254.169.254/32'])
    assert.equal(isBlockedAddress('169.254.169.254', single), false)
    assert.equal(isBlockedAddress('169.254.169.253', single), true)

    assert.throws(() => parseCidrs(['nope']), /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
    assert.throws(() => parseCidrs(['10.0.0.0/33']), /WEBHOOK_ALLOW_PRIVATE_CIDRS/)
  })
})

describe('SSRF: a refused target never sees a connection', () => {
  /** Every connection a loopback listener saw, on 127.0.0.1 or [::1]. */
  const connections: string[] = []
  const servers: Server[] = []
  let port: number
  const answers = new Map<string, string[]>()
  const resolverCalls: string[] = []
  const resolver: Resolver = async (host) => {
    resolverCalls.push(host)
    const answer = answers.get(host)
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answer
  }
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>

  before(async () => {
    const record = (socket: Socket) => {
      connections.push(`${socket.localAddress}:${socket.localPort}`)
      socket.destroy()
    }
    const v4 = createServer(record)
    await listen(v4, 0, '127.0.0.1')
    port = (v4.address() as { port: number }).port
    const v6 = createServer(record)
    await listen(v6, port, '::1')
    servers.push(v4, v6)
    // No allow-list: every private or reserved address is refused.
    t = await createTestApp({ testDb, resolver })
    tenant = await t.tenant()
    // A worker runs throughout, so anything stored would be attempted.
    await t.startDispatcher({ retryDelaysMs: [10], pollIntervalMs: 20 })
  })
  after(async () => {
    await t.close()
    for (const server of servers) server.close()
  })

  async function assertBlocked(url: string) {
    const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url })
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
    assert.equal(res.json().error.code, 'webhook_target_blocked', `${url}: ${res.body}`)
  }

  test('the listener works (a control connection is seen)', async () => {
    const { connect } = await import('node:net')
    for (const host of ['127.0.0.1', '::1']) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect({ host, port }, () => {
          socket.destroy()
          resolve()
        })
        socket.on('error', reject)
      })
    }
    await sleep(50)
    assert.equal(connections.length, 2)
    connections.length = 0
  })

  test('host names resolving to private or reserved addresses: 422 webhook_target_blocked, no connection', async () => {
    const battery: Record<string, string[]> = {
      'loopback4.test': ['127.0.0.1'],
      'loopback6.test': ['::1'],
      'rfc1918-a.test': ['10.0.0.1'],
      'rfc1918-b.test': ['172.16.0.1'],
      'rfc1918-c.test': ['192.168.0.1'],
      'metadata.test': ['169.254.169.254'],
      'cgnat.test': ['100.64.0.1'],
      'ula.test': ['fd00::1'],
      'linklocal6.test': ['fe80::1'],
      'zoned.test': ['fe80::1%lo'],
      'mapped.test': ['::ffff:127.0.0.1'],
      'compat.test': ['::127.0.0.1'],
      'nat64.test': ['64:ff9b::7f00:1'],
      'zero.test': ['0.0.0.0'],
      'unspecified6.test': ['::'],
      'multicast.test': ['224.0.0.1'],
      'mixed4.test': ['93.184.216.34', '10.0.0.1'],
      'mixed6.test': ['2606:4700:4700::1111', '::1'],
      'mixed-loopback.test': ['8.8.8.8', '127.0.0.1'],
    }
    for (const [host, addresses] of Object.entries(battery)) answers.set(host, addresses)
    for (const host of Object.keys(battery)) await assertBlocked(`https://${host}:${port}/hook`)
    assert.deepEqual(resolverCalls.filter((h) => h in battery).sort(), Object.keys(battery).sort())

    // Nothing stored, so an event has nowhere to go.
    const order = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(order.statusCode, 201)
    await sleep(300)
    assert.deepEqual(connections, [])
    assert.equal(
      (
        await t.db
          .selectFrom('webhook_endpoints')
          .select('id')
          .where('organization_id', '=', tenant.orgId)
          .execute()
      ).length,
      0,
    )
    assert.equal(
      (
        await t.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('organization_id', '=', tenant.orgId)
          .execute()
      ).length,
      0,
    )
  })

  test('IP-literal URLs in every spelling: 422 webhook_target_blocked, no connection, no DNS', async () => {
    const callsBefore = resolverCalls.length
    for (const host of [
      '127.0.0.1',
      '127.1',
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '0.0.0.0',
      '0',
      '[::1]',
      '[0:0:0:0:0:0:0:1]',
      '[::]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[::127.0.0.1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::1]',
      '169.254.169.254',
      '10.0.0.1',
      '[fd00::1]',
      '[fe80::1]',
      '224.0.0.1',
    ]) {
      await assertBlocked(`https://${host}:${port}/hook`)
    }
    await assertBlocked('https://169.254.169.254/latest/meta-data/')
    assert.equal(resolverCalls.length, callsBefore, 'IP literals are checked without DNS')
    await sleep(200)
    assert.deepEqual(connections, [])
  })

  test('a public address is accepted (the battery is not refusing everything)', async () => {
    answers.set('public.test', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'])
    // In the test environment: test endpoints get pings only, so nothing is sent.
    assert.deepEqual(await pinnedAddresses(t, tenant.testKey, 'https://public.test/hook'), [
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
    ])
  })
})

describe('with WEBHOOK_ALLOW_PRIVATE_CIDRS=127.0.0.0/8', () => {
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  let mode: 'first' | 'moved' | 'broken' = 'first'
  let resolverCalls = 0
  const others = new Map<string, string[]>([
    ['allowed.test', ['127.0.0.5']],
    ['half-allowed.test', ['127.0.0.1', '10.0.0.1']],
    ['v6-loopback.test', ['::1']],
  ])
  const resolver: Resolver = async (host) => {
    if (others.has(host)) return others.get(host)!
    resolverCalls++
    assert.equal(host, 'hooks.example.test')
    if (mode === 'broken') throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' })
    return mode === 'first' ? ['127.0.0.1'] : ['127.0.0.2']
  }
  /** The pinned target (127.0.0.1) and where DNS later points (127.0.0.2), on one port. */
  const pinned: { servername: string | false | null; host: string | undefined; eventId: string }[] = []
  const moved: string[] = []
  let port: number
  let ca: string
  const servers: Server[] = []

  before(async () => {
    const certificate = await testCertificate()
    ca = certificate.cert
    const https = createHttpsServer(certificate, (req, res) => {
      req.resume()
      req.on('end', () => {
        pinned.push({
          servername: (req.socket as TLSSocket).servername,
          host: req.headers.host,
          eventId: String(req.headers['x-service-event-id']),
        })
        res.writeHead(200).end()
      })
    })
    await listen(https, 0, '127.0.0.1')
    port = (https.address() as { port: number }).port
    const trap = createServer((socket) => {
      moved.push(`${socket.localAddress}:${socket.localPort}`)
      socket.destroy()
    })
    await listen(trap, port, '127.0.0.2')
    servers.push(https, trap)
    t = await createTestApp({ testDb, resolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    tenant = await t.tenant()
  })
  after(async () => {
    await t.close()
    for (const server of servers) {
      ;(server as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
      server.close()
    }
  })

  test('an address inside the allow-list passes; any address outside it still refuses the URL', async () => {
    const ok = await t.api(tenant.testKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://allowed.test/hook',
    })
    assert.equal(ok.statusCode, 201, ok.body)
    for (const host of ['half-allowed.test', 'v6-loopback.test', '[::1]', '10.0.0.1']) {
      const res = await t.api(tenant.testKey, 'POST', '/v1/webhook-endpoints', {
        url: `https://${host}/hook`,
      })
      assert.equal(res.statusCode, 422, `${host}: ${res.body}`)
      assert.equal(res.json().error.code, 'webhook_target_blocked')
    }
  })

  test('DNS pinning: deliveries go to the address resolved at creation, whatever DNS says later; the worker never resolves', async () => {
    assert.deepEqual(await pinnedAddresses(t, tenant.liveKey, `https://hooks.example.test:${port}/pinned`), [
      '127.0.0.1',
    ])
    assert.equal(resolverCalls, 1)

    // DNS now points elsewhere.
    mode = 'moved'
    assert.deepEqual(await resolver('hooks.example.test'), ['127.0.0.2'])
    resolverCalls = 0
    await t.startDispatcher({ ca })
    const deadline = Date.now() + 10_000
    const order = async () => {
      const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(created.statusCode, 201)
    }
    await order()
    while (pinned.length < 1 && Date.now() < deadline) await sleep(20)
    assert.equal(pinned.length, 1, 'delivered to the pinned address')

    // DNS now fails outright.
    mode = 'broken'
    await order()
    while (pinned.length < 2 && Date.now() < deadline) await sleep(20)
    assert.equal(pinned.length, 2, 'delivered to the pinned address with DNS down')

    await sleep(200)
    assert.deepEqual(moved, [], 'the address DNS moved to saw no connection')
    assert.equal(resolverCalls, 0, 'the worker never calls the resolver')
    for (const request of pinned) {
      assert.equal(request.servername, 'hooks.example.test', 'SNI carries the host name')
      assert.equal(request.host, `hooks.example.test:${port}`, 'so does the Host header')
    }
    const deliveries = await t.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'event_id'])
      .where('organization_id', '=', tenant.orgId)
      .execute()
    assert.deepEqual(
      deliveries.map((d) => d.status),
      ['succeeded', 'succeeded'],
    )
    assert.deepEqual(deliveries.map((d) => d.event_id).sort(), pinned.map((p) => p.eventId).sort())
  })

  test('a host that resolved to several addresses keeps them all pinned, and deliveries reach it', async () => {
    others.set('webhook.test', ['127.0.0.1', '127.0.0.3'])
    assert.deepEqual(await pinnedAddresses(t, tenant.liveKey, `https://webhook.test:${port}/several`), [
      '127.0.0.1',
      '127.0.0.3',
    ])
    await t.startDispatcher({ ca })
    const created = await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(created.statusCode, 201)
    const deadline = Date.now() + 10_000
    const reached = () => pinned.filter((p) => p.host === `webhook.test:${port}`)
    while (reached().length < 1 && Date.now() < deadline) await sleep(20)
    assert.equal(reached().length, 1, 'delivered through the pinned addresses')
    assert.equal(reached()[0]!.servername, 'webhook.test')
    assert.deepEqual(moved, [], 'no connection went anywhere DNS did not answer at creation')
  })
})

describe('a range allowed when an endpoint was created and no longer', () => {
  const requests: string[] = []
  let port: number
  let ca: string
  let server: Server
  const resolver: Resolver = async () => ['127.0.0.1']

  before(async () => {
    const certificate = await testCertificate()
    ca = certificate.cert
    const https = createHttpsServer(certificate, (req, res) => {
      requests.push(String(req.url))
      req.resume()
      res.writeHead(200).end()
    })
    await listen(https, 0, '127.0.0.1')
    port = (https.address() as { port: number }).port
    server = https
  })
  after(() => {
    ;(server as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
    server.close()
  })

  test('each attempt checks the pinned addresses against the settings of now: a failed attempt that says why, and no connection', async () => {
    // Created while the service allowed 127.0.0.0/8 (its worker delivers there)...
    const lenient = await createTestApp({ testDb, resolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    const tenant = await lenient.tenant()
    let endpointId: string
    try {
      const created = await lenient.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: `https://hooks.example.test:${port}/withdrawn`,
      })
      assert.equal(created.statusCode, 201, created.body)
      endpointId = created.json().data.endpoint.id
      await lenient.startDispatcher({ ca })
      assert.equal((await lenient.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      const deadline = Date.now() + 10_000
      while (requests.length < 1 && Date.now() < deadline) await sleep(20)
      assert.deepEqual(requests, ['/withdrawn'], 'delivered while the range was allowed')
    } finally {
      await lenient.close()
    }
    // ...then served by a service whose settings no longer allow it.
    const strict = await createTestApp({ testDb, resolver })
    try {
      await strict.startDispatcher({ ca, retryDelaysMs: [60_000] })
      const order = await strict.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())
      assert.equal(order.statusCode, 201, order.body)
      const query = `/v1/webhook-deliveries?endpoint_id=${endpointId}&status=pending`
      let delivery: Record<string, unknown> | undefined
      const deadline = Date.now() + 10_000
      while (Date.now() < deadline) {
        const res = await strict.api(tenant.liveKey, 'GET', query)
        assert.equal(res.statusCode, 200, res.body)
        delivery = res.json().data[0]
        if (delivery && delivery.attempts === 1) break
        await sleep(20)
      }
      assert.ok(delivery, 'a delivery was logged')
      assert.equal(delivery.status, 'pending', 'an ordinary failed attempt: retried on the schedule')
      assert.equal(delivery.attempts, 1)
      assert.equal(delivery.error_code, 'connection_error', JSON.stringify(delivery))
      assert.equal(delivery.response_status, null)
      assert.match(String(delivery.error_message), /127\.0\.0\.1.*no longer allowed/)
      await sleep(200)
      assert.deepEqual(requests, ['/withdrawn'], 'the refused address saw no second request')
      const one = await strict.api(tenant.liveKey, 'GET', `/v1/webhook-deliveries/${delivery.id}`)
      assert.equal(one.statusCode, 200, one.body)
      const attempts = one.json().data.attempts as Record<string, unknown>[]
      assert.deepEqual(
        attempts.map((a) => [a.error_code, a.response_status]),
        [['connection_error', null]],
      )
      assert.match(String(attempts[0]!.error_message), /no longer allowed/)
      const endpoint = await strict.db
        .selectFrom('webhook_endpoints')
        .select(['consecutive_failures', 'is_active'])
        .where('id', '=', endpointId)
        .executeTakeFirstOrThrow()
      assert.deepEqual(endpoint, { consecutive_failures: 1, is_active: true }, 'it counts as a failure')
    } finally {
      await strict.close()
    }
  })
})
