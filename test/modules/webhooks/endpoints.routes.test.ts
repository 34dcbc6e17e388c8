import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const ENDPOINT_KEYS = [
  'consecutive_failures',
  'created_at',
  'description',
  'disabled_reason',
  'id',
  'is_active',
  'last_failure_at',
  'last_success_at',
  'url',
]
const DELIVERY_KEYS = [
  'attempts',
  'created_at',
  'endpoint_id',
  'error_code',
  'event_id',
  'event_type',
  'id',
  'last_attempt_at',
  'next_attempt_at',
  'response_snippet',
  'response_status',
  'status',
]
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000'
const NO_WEBHOOK_SCOPE = ['orders:read', 'orders:write', 'files:write']

interface Endpoint {
  id: string
  url: string
  description: string
  is_active: boolean
  disabled_reason: string | null
  consecutive_failures: number
  last_success_at: string | null
  last_failure_at: string | null
  created_at: string
}

interface Delivery {
  id: string
  endpoint_id: string
  event_id: string
  event_type: string
  status: string
  attempts: number
  next_attempt_at: string | null
  last_attempt_at: string | null
  response_status: number | null
  response_snippet: string | null
  error_code: string | null
  created_at: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function createEndpoint(t: TestApp, key: string, url: string, description?: string) {
  const res = await t.api(key, 'POST', '/v1/webhook-endpoints', {
    url,
    ...(description === undefined ? {} : { description }),
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data as { endpoint: Endpoint; secret: string }
}

async function listEndpoints(t: TestApp, key: string): Promise<Endpoint[]> {
  const res = await t.api(key, 'GET', '/v1/webhook-endpoints')
  assert.equal(res.statusCode, 200, res.body)
  assert.deepEqual(Object.keys(res.json()), ['data'])
  return res.json().data
}

async function listDeliveries(t: TestApp, key: string, query = ''): Promise<Delivery[]> {
  const res = await t.api(key, 'GET', `/v1/webhook-deliveries${query}`)
  assert.equal(res.statusCode, 200, res.body)
  const data = res.json().data as Delivery[]
  for (const d of data) assert.deepEqual(Object.keys(d).sort(), DELIVERY_KEYS)
  return data
}

async function activeCount(t: TestApp, orgId: string, environment: 'test' | 'live') {
  const { n } = await t.db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', orgId)
    .where('environment', '=', environment)
    .where('is_active', '=', true)
    .executeTakeFirstOrThrow()
  return Number(n)
}

async function endpointRows(t: TestApp, orgId: string) {
  return t.db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', orgId).execute()
}

describe('POST /v1/webhook-endpoints', () => {
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    tenant = await t.tenant()
  })
  after(() => t.close())

  test('201 with exactly the endpoint fields and a whsec_ secret returned once, stored sealed', async () => {
    const url = 'https://webhook.test:8443/hooks/orders?source=svc'
    const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url,
      description: 'ERP production feed',
    })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['data'])
    assert.deepEqual(Object.keys(body.data).sort(), ['endpoint', 'secret'])
    const { endpoint, secret } = body.data as { endpoint: Endpoint; secret: string }
    assert.deepEqual(Object.keys(endpoint).sort(), ENDPOINT_KEYS)
    assert.match(endpoint.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    assert.equal(endpoint.url, url)
    assert.equal(endpoint.description, 'ERP production feed')
    assert.equal(endpoint.is_active, true)
    assert.equal(endpoint.disabled_reason, null)
    assert.equal(endpoint.consecutive_failures, 0)
    assert.equal(endpoint.last_success_at, null)
    assert.equal(endpoint.last_failure_at, null)
    assert.match(endpoint.created_at, ISO_MS)

    // whsec_ plus at least 32 random bytes' worth of characters.
    assert.ok(secret.startsWith('whsec_'), secret)
    const random = secret.slice('whsec_'.length)
    const bitsPerChar = /^[0-9a-f]+$/.test(random) ? 4 : /^[A-Za-z0-9_-]+$/.test(random) ? 6 : 0
    assert.ok(bitsPerChar > 0, `unexpected secret alphabet: ${secret}`)
    assert.ok(random.length * bitsPerChar >= 256, `secret too short: ${secret}`)

    // Not stored in plaintext: no column of the row holds it (or its random part).
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow()
    const stored = JSON.stringify(row)
    assert.equal(stored.includes(random), false)
    assert.equal(stored.includes(Buffer.from(random).toString('base64')), false)
    assert.equal(row.organization_id, tenant.orgId)
    assert.equal(row.environment, 'live')
    assert.deepEqual(row.pinned_addresses, ['127.0.0.1'])

    // Never retrievable later.
    const list = await t.api(tenant.liveKey, 'GET', '/v1/webhook-endpoints')
    assert.equal(list.statusCode, 200)
    assert.equal(list.body.includes(random), false)
    const listed = (list.json().data as Endpoint[]).find((e) => e.id === endpoint.id)
    assert.deepEqual(listed, endpoint)

    // Each endpoint gets a secret of its own.
    const second = await createEndpoint(t, tenant.liveKey, url)
    assert.notEqual(second.secret, secret)
    for (const e of await listEndpoints(t, tenant.liveKey)) {
      await t.api(tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${e.id}`)
    }
  })

  test('description is optional and defaults to ""', async () => {
    const { endpoint } = await createEndpoint(t, tenant.testKey, 'https://webhook.test/hook')
    assert.equal(endpoint.description, '')
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .select(['description', 'environment'])
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow()
    assert.deepEqual(row, { description: '', environment: 'test' })
    const del = await t.api(tenant.testKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    assert.equal(del.statusCode, 200)
  })

  test('not https, credentials, not a URL, a host that does not resolve: 422 webhook_url_invalid, nothing stored', async () => {
    const org = await t.tenant('Invalid URLs')
    for (const url of [
      'http://webhook.test/hook',
      'ftp://webhook.test/hook',
      'https://user:pass@webhook.test/hook',
      'https://user@webhook.test/hook',
      'https://:secret@webhook.test/hook',
      'not a url',
      'webhook.test/hook',
      '',
      'https://nowhere.invalid/hook',
      'https://does-not-resolve.example.test/hook',
    ]) {
      const res = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', { url })
      assertError(res, 422, 'webhook_url_invalid')
    }
    // Schema violations are validation_failed.
    for (const body of [{}, { url: 42 }, { url: 'https://webhook.test/', unknown: 1 }]) {
      const res = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', body)
      assertError(res, 422, 'validation_failed')
    }
    assert.deepEqual(await endpointRows(t, org.orgId), [])
  })

  test('WEBHOOK_ALLOW_PRIVATE_CIDRS lets its ranges through, and only those', async () => {
    const org = await t.tenant('Allow list')
    const literal = await createEndpoint(t, org.liveKey, 'https://127.0.0.1:8443/hook')
    assert.equal(literal.endpoint.url, 'https://127.0.0.1:8443/hook')
    const named = await createEndpoint(t, org.liveKey, 'https://webhook.test/hook')
    const rows = await endpointRows(t, org.orgId)
    assert.deepEqual(
      rows.map((r) => [r.id, r.pinned_addresses]).sort(),
      [
        [literal.endpoint.id, ['127.0.0.1']],
        [named.endpoint.id, ['127.0.0.1']],
      ].sort(),
    )
    for (const url of [
      'https://10.0.0.1/',
      'https://169.254.169.254/',
      'https://[::1]/',
      'https://192.168.1.1/',
    ]) {
      const res = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', { url })
      assertError(res, 422, 'webhook_target_blocked')
    }
    assert.equal((await endpointRows(t, org.orgId)).length, 2)
  })

  test('at most 5 active per organization and environment; deleting one frees a place', async () => {
    const org = await t.tenant('Limit')
    const live: Endpoint[] = []
    for (let n = 0; n < 5; n++)
      live.push((await createEndpoint(t, org.liveKey, `https://webhook.test/l${n}`)).endpoint)
    const sixth = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: 'https://webhook.test/l6',
    })
    assertError(sixth, 422, 'webhook_limit_reached')
    assert.equal(await activeCount(t, org.orgId, 'live'), 5)
    assert.equal((await endpointRows(t, org.orgId)).length, 5)

    // The test environment counts separately.
    for (let n = 0; n < 5; n++) await createEndpoint(t, org.testKey, `https://webhook.test/t${n}`)
    assertError(
      await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url: 'https://webhook.test/t6' }),
      422,
      'webhook_limit_reached',
    )
    // So does another organization.
    const other = await t.tenant('Limit other')
    await createEndpoint(t, other.liveKey, 'https://webhook.test/o')

    const del = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${live[2]!.id}`)
    assert.equal(del.statusCode, 200)
    await createEndpoint(t, org.liveKey, 'https://webhook.test/l-again')
    assertError(
      await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', { url: 'https://webhook.test/l7' }),
      422,
      'webhook_limit_reached',
    )
    assert.equal(await activeCount(t, org.orgId, 'live'), 5)
    assert.equal(await activeCount(t, org.orgId, 'test'), 5)
    // Deleted endpoints stay listed.
    assert.equal((await listEndpoints(t, org.liveKey)).length, 6)
  })

  test('6 simultaneous creates never exceed 5 active', async () => {
    const org = await t.tenant('Race')
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', { url: `https://webhook.test/r${n}` }),
      ),
    )
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 201, 201, 201, 201, 422])
    const refused = results.find((r) => r.statusCode === 422)!
    assert.equal(refused.json().error.code, 'webhook_limit_reached')
    assert.equal(await activeCount(t, org.orgId, 'live'), 5)

    // Two places free, four simultaneous creates: exactly two succeed.
    const listed = await listEndpoints(t, org.liveKey)
    for (const e of listed.slice(0, 2)) {
      assert.equal((await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${e.id}`)).statusCode, 200)
    }
    const again = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', { url: `https://webhook.test/s${n}` }),
      ),
    )
    assert.deepEqual(again.map((r) => r.statusCode).sort(), [201, 201, 422, 422])
    assert.equal(await activeCount(t, org.orgId, 'live'), 5)
  })

  test('webhooks:manage is required (403 before any lookup); no key is 401', async () => {
    const org = await t.tenant('Scopes')
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/scoped')
    const narrow = await t.createKey(org.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
    const calls: [string, string, unknown][] = [
      ['POST', '/v1/webhook-endpoints', { url: 'https://webhook.test/x' }],
      ['GET', '/v1/webhook-endpoints', undefined],
      ['DELETE', `/v1/webhook-endpoints/${endpoint.id}`, undefined],
      ['DELETE', `/v1/webhook-endpoints/${UNKNOWN_ID}`, undefined],
      ['POST', `/v1/webhook-endpoints/${endpoint.id}/test`, undefined],
      ['POST', `/v1/webhook-endpoints/${UNKNOWN_ID}/test`, undefined],
      ['GET', '/v1/webhook-deliveries', undefined],
      ['GET', `/v1/webhook-deliveries?endpoint_id=${UNKNOWN_ID}`, undefined],
    ]
    for (const [method, url, body] of calls) {
      const res = await t.api(narrow.key, method as 'GET', url, body)
      assertError(res, 403, 'insufficient_scope')
      assert.match(res.json().error.message, /webhooks:manage/)
      assertError(await t.api(undefined, method as 'GET', url, body), 401, 'invalid_api_key')
    }
    const rows = await endpointRows(t, org.orgId)
    assert.deepEqual(
      rows.map((r) => [r.id, r.is_active]),
      [[endpoint.id, true]],
    )
    assert.deepEqual(
      await t.db.selectFrom('events').select('id').where('organization_id', '=', org.orgId).execute(),
      [],
    )
  })
})

describe('private and reserved webhook targets (no allow-list)', () => {
  const dns: Record<string, string[]> = {
    'private.test': ['10.1.2.3'],
    'rfc1918-b.test': ['172.16.5.4'],
    'rfc1918-c.test': ['192.168.0.10'],
    'metadata.test': ['169.254.169.254'],
    'cgnat.test': ['100.64.0.1'],
    'loopback.test': ['127.0.0.1', '::1'],
    'mixed.test': ['93.184.216.34', '192.168.0.10'],
    'v6-ula.test': ['2606:4700:4700::1111', 'fd12:3456::1'],
    'v6-mapped.test': ['::ffff:10.0.0.1'],
    'public.test': ['93.184.216.34', '2606:4700:4700::1111'],
    'empty.test': [],
  }
  const resolver = async (host: string) => {
    const answer = dns[host]
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return answer
  }
  let t: TestApp
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  before(async () => {
    t = await createTestApp({ resolver })
    tenant = await t.tenant()
  })
  after(() => t.close())

  test('IP literals and names resolving to private or reserved addresses: 422 webhook_target_blocked', async () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://127.0.0.1:8443/hook',
      'https://127.1/',
      'https://2130706433/',
      'https://0x7f000001/',
      'https://[::1]/',
      'https://169.254.169.254/latest/meta-data/',
      'https://10.0.0.1/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://[::]/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://[ff02::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:169.254.169.254]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://private.test/hook',
      'https://rfc1918-b.test/hook',
      'https://rfc1918-c.test/hook',
      'https://metadata.test/hook',
      'https://cgnat.test/hook',
      'https://loopback.test/hook',
      'https://mixed.test/hook',
      'https://v6-ula.test/hook',
      'https://v6-mapped.test/hook',
    ]) {
      const res = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url })
      assert.equal(res.statusCode, 422, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'webhook_target_blocked', `${url}: ${res.body}`)
    }
    assert.deepEqual(await endpointRows(t, tenant.orgId), [])
  })

  test('a name with no address is webhook_url_invalid; public targets are accepted and pinned', async () => {
    for (const url of ['https://empty.test/', 'https://unknown.test/']) {
      assertError(
        await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', { url }),
        422,
        'webhook_url_invalid',
      )
    }
    const named = await createEndpoint(t, tenant.liveKey, 'https://public.test/hook')
    const literal = await createEndpoint(t, tenant.liveKey, 'https://93.184.216.34/hook')
    const pinned = Object.fromEntries(
      (await endpointRows(t, tenant.orgId)).map((r) => [r.id, [...r.pinned_addresses].sort()]),
    )
    assert.deepEqual(pinned, {
      [named.endpoint.id]: ['2606:4700:4700::1111', '93.184.216.34'],
      [literal.endpoint.id]: ['93.184.216.34'],
    })
  })
})

describe('GET and DELETE /v1/webhook-endpoints, and the delivery log without a worker', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  test('the list: newest first, at most 50, deleted endpoints with is_active false and no secret', async () => {
    const org = await t.tenant('Many endpoints')
    const created: { endpoint: Endpoint; secret: string }[] = []
    for (let n = 0; n < 52; n++) {
      const c = await createEndpoint(t, org.liveKey, `https://webhook.test/e${n}`, `endpoint ${n}`)
      created.push(c)
      if (n < 50) {
        const del = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${c.endpoint.id}`)
        assert.equal(del.statusCode, 200)
      }
    }
    const list = await t.api(org.liveKey, 'GET', '/v1/webhook-endpoints')
    assert.equal(list.statusCode, 200)
    const data = list.json().data as Endpoint[]
    assert.equal(data.length, 50)
    assert.deepEqual(
      data.map((e) => e.id),
      created
        .slice(2)
        .reverse()
        .map((c) => c.endpoint.id),
    )
    for (const e of data) {
      assert.deepEqual(Object.keys(e).sort(), ENDPOINT_KEYS)
      assert.equal(e.disabled_reason, null)
    }
    assert.deepEqual(
      data.slice(0, 3).map((e) => [e.description, e.is_active]),
      [
        ['endpoint 51', true],
        ['endpoint 50', true],
        ['endpoint 49', false],
      ],
    )
    for (const c of created) assert.equal(list.body.includes(c.secret.slice(6)), false)
    // Other organizations and the other environment see none of them.
    assert.deepEqual(await listEndpoints(t, org.testKey), [])
    const other = await t.tenant('Other')
    assert.deepEqual(await listEndpoints(t, other.liveKey), [])
  })

  test('DELETE: 200 {id, is_active:false}, the same again; unknown, foreign and other-environment ids 404', async () => {
    const org = await t.tenant('Deleter')
    const other = await t.tenant('Someone else')
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/mine')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    const myTest = await createEndpoint(t, org.testKey, 'https://webhook.test/mine-test')

    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'not-a-uuid'],
      [org.liveKey, theirs.endpoint.id],
      [org.liveKey, myTest.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
      assertError(await t.api(key, 'DELETE', `/v1/webhook-endpoints/${id}`), 404, 'not_found')
    }
    assert.deepEqual(
      (await t.db.selectFrom('webhook_endpoints').select(['id', 'is_active']).execute())
        .filter((r) => [mine.endpoint.id, theirs.endpoint.id, myTest.endpoint.id].includes(r.id))
        .every((r) => r.is_active),
      true,
    )

    const first = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json(), { data: { id: mine.endpoint.id, is_active: false } })
    const second = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)
    assert.equal(second.statusCode, 200, second.body)
    assert.deepEqual(second.json(), first.json())

    const listed = (await listEndpoints(t, org.liveKey)).find((e) => e.id === mine.endpoint.id)!
    assert.equal(listed.is_active, false)
    assert.equal(listed.disabled_reason, null)
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', mine.endpoint.id)
      .executeTakeFirstOrThrow()
    assert.equal(row.is_active, false)
    assert.equal(row.disabled_reason, null)
    // No way back: the test operation refuses it.
    assertError(
      await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${mine.endpoint.id}/test`),
      422,
      'validation_failed',
    )
  })

  test('POST /:id/test: 202 {queued:true}; 404 for unknown, foreign and other-environment ids', async () => {
    const org = await t.tenant('Pinger')
    const other = await t.tenant('Not me')
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/ping')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'nope'],
      [org.liveKey, theirs.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
      assertError(await t.api(key, 'POST', `/v1/webhook-endpoints/${id}/test`), 404, 'not_found')
    }
    const res = await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${mine.endpoint.id}/test`)
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { data: { queued: true } })

    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', org.orgId)
      .execute()
    assert.deepEqual(
      events.map((e) => [e.type, e.environment, e.order_id, Object.keys(e.data)]),
      [['ping', 'live', null, ['message']]],
    )
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.event_id, events[0]!.id)
    assert.equal(delivery!.endpoint_id, mine.endpoint.id)
    // Only the named endpoint; nothing for other organizations.
    assert.deepEqual(await listDeliveries(t, other.liveKey), [])
  })

  test('pending deliveries: next_attempt_at set; deleting the endpoint fails them with endpoint_disabled, log stays readable', async () => {
    const org = await t.tenant('Pending')
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/pending')
    const kept = await createEndpoint(t, org.liveKey, 'https://webhook.test/kept')
    for (const id of [endpoint.id, endpoint.id, kept.endpoint.id]) {
      assert.equal((await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)).statusCode, 202)
      await sleep(2)
    }
    const pending = await listDeliveries(t, org.liveKey)
    assert.equal(pending.length, 3)
    for (const d of pending) {
      assert.equal(d.status, 'pending')
      assert.equal(d.event_type, 'ping')
      assert.equal(d.attempts, 0)
      assert.match(d.next_attempt_at!, ISO_MS)
      assert.match(d.created_at, ISO_MS)
      assert.equal(d.last_attempt_at, null)
      assert.equal(d.response_status, null)
      assert.equal(d.response_snippet, null)
      assert.equal(d.error_code, null)
    }

    const del = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    assert.equal(del.statusCode, 200)
    const afterDelete = await listDeliveries(t, org.liveKey)
    assert.deepEqual(
      afterDelete.map((d) => d.id),
      pending.map((d) => d.id),
    )
    for (const d of afterDelete) {
      if (d.endpoint_id === endpoint.id) {
        assert.equal(d.status, 'failed')
        assert.equal(d.error_code, 'endpoint_disabled')
        assert.equal(d.next_attempt_at, null)
        assert.equal(d.attempts, 0)
      } else {
        assert.equal(d.status, 'pending')
        assert.notEqual(d.next_attempt_at, null)
      }
    }
    // The deleted endpoint's log stays readable through the filter.
    const filtered = await listDeliveries(t, org.liveKey, `?endpoint_id=${endpoint.id}`)
    assert.equal(filtered.length, 2)
    assert.ok(filtered.every((d) => d.endpoint_id === endpoint.id && d.status === 'failed'))
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'error_code'])
      .where('endpoint_id', '=', endpoint.id)
      .execute()
    assert.deepEqual(rows, [
      { status: 'failed', error_code: 'endpoint_disabled' },
      { status: 'failed', error_code: 'endpoint_disabled' },
    ])
  })

  test('GET /v1/webhook-deliveries: newest first, limit 1..100 default 25, endpoint_id filter, 404 for foreign endpoints', async () => {
    const org = await t.tenant('Log')
    const other = await t.tenant('Other log')
    const a = await createEndpoint(t, org.liveKey, 'https://webhook.test/log-a')
    const b = await createEndpoint(t, org.liveKey, 'https://webhook.test/log-b')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/log-theirs')
    const testEnv = await createEndpoint(t, org.testKey, 'https://webhook.test/log-test')
    await t.api(other.liveKey, 'POST', `/v1/webhook-endpoints/${theirs.endpoint.id}/test`)
    await t.api(org.testKey, 'POST', `/v1/webhook-endpoints/${testEnv.endpoint.id}/test`)
    for (let n = 0; n < 30; n++) {
      const id = n % 3 === 0 ? b.endpoint.id : a.endpoint.id
      assert.equal((await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)).statusCode, 202)
      await sleep(2)
    }
    const stored = await t.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('organization_id', '=', org.orgId)
      .where('environment', '=', 'live')
      .orderBy('created_at', 'desc')
      .execute()
    assert.equal(stored.length, 30)

    const firstPage = await listDeliveries(t, org.liveKey)
    assert.equal(firstPage.length, 25)
    assert.deepEqual(
      firstPage.map((d) => d.id),
      stored.slice(0, 25).map((d) => d.id),
    )
    const all = await listDeliveries(t, org.liveKey, '?limit=100')
    assert.deepEqual(
      all.map((d) => d.id),
      stored.map((d) => d.id),
    )
    for (let n = 1; n < all.length; n++) assert.ok(all[n - 1]!.created_at >= all[n]!.created_at)
    assert.deepEqual(
      (await listDeliveries(t, org.liveKey, '?limit=1')).map((d) => d.id),
      [stored[0]!.id],
    )
    for (const limit of ['0', '101', '-1', '1.5', 'abc']) {
      const res = await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries?limit=${limit}`)
      assertError(res, 422, 'validation_failed')
    }

    const onlyB = await listDeliveries(t, org.liveKey, `?endpoint_id=${b.endpoint.id}&limit=100`)
    assert.deepEqual(
      onlyB.map((d) => d.id),
      stored.filter((d) => d.endpoint_id === b.endpoint.id).map((d) => d.id),
    )
    assert.equal(onlyB.length, 10)
    for (const id of [theirs.endpoint.id, testEnv.endpoint.id, UNKNOWN_ID, 'not-a-uuid']) {
      assertError(
        await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${id}`),
        404,
        'not_found',
      )
    }
    // Each environment sees its own log only.
    const testLog = await listDeliveries(t, org.testKey)
    assert.deepEqual(
      testLog.map((d) => d.endpoint_id),
      [testEnv.endpoint.id],
    )
  })
})

describe('deliveries to a local HTTPS receiver', () => {
  let t: TestApp
  let receiver: Receiver
  const LONG_BODY = Array.from({ length: 3000 }, (_, n) => (n % 10 === 0 ? 'ü' : String(n % 10))).join('')
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    receiver = await startReceiver((req) => {
      if (req.url.startsWith('/long')) return { status: 200, body: LONG_BODY }
      if (req.url.startsWith('/fail')) return { status: 500, body: 'nope' }
      return { status: 200 }
    })
    await t.startDispatcher({ ca: receiver.ca, retryDelaysMs: [10] })
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  const at = (path: string) => receiver.received.filter((r) => r.url === path)
  const envelopeOf = (r: { body: Buffer }) => JSON.parse(r.body.toString('utf8'))

  /** Waits until no delivery of the organization is pending. */
  async function settle(orgId: string) {
    const deadline = Date.now() + 10_000
    for (;;) {
      const rows = await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('organization_id', '=', orgId)
        .where('status', '=', 'pending')
        .execute()
      if (rows.length === 0) return
      if (Date.now() > deadline) throw new Error(`${rows.length} deliveries still pending`)
      await sleep(20)
    }
  }

  async function ping(key: string, endpointId: string) {
    const res = await t.api(key, 'POST', `/v1/webhook-endpoints/${endpointId}/test`)
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { data: { queued: true } })
  }

  test('the test operation delivers a signed ping with only a message, to that endpoint only', async () => {
    const org = await t.tenant('Ping')
    const target = await createEndpoint(t, org.liveKey, receiver.url('/ping-target'))
    await createEndpoint(t, org.liveKey, receiver.url('/ping-bystander'))
    await ping(org.liveKey, target.endpoint.id)
    await settle(org.orgId)

    const got = at('/ping-target')
    assert.equal(got.length, 1)
    assert.equal(at('/ping-bystander').length, 0)
    const req = got[0]!
    const envelope = envelopeOf(req)
    assert.deepEqual(Object.keys(envelope).sort(), ['api_version', 'created_at', 'data', 'id', 'type'])
    assert.equal(envelope.type, 'ping')
    assert.equal(envelope.api_version, 'v1')
    assert.match(envelope.created_at, ISO_MS)
    assert.deepEqual(Object.keys(envelope.data), ['message'])
    assert.equal(typeof envelope.data.message, 'string')
    assert.ok(envelope.data.message.length > 0)
    assert.equal(req.method, 'POST')
    assert.equal(req.headers['x-service-event-id'], envelope.id)
    assert.equal(req.headers['x-service-event-type'], 'ping')
    assert.equal(req.headers['user-agent'], 'Service-Webhooks/1.0')
    assert.equal(String(req.headers['content-type']).split(';')[0], 'application/json')
    assert.equal(req.headers.host, `webhook.test:${receiver.port}`)

    // Signed with the secret returned at creation, over the raw bytes.
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-service-signature']))
    assert.ok(match, String(req.headers['x-service-signature']))
    const expected = createHmac('sha256', target.secret)
      .update(Buffer.concat([Buffer.from(`${match[1]}.`), req.body]))
      .digest()
    assert.ok(timingSafeEqual(expected, Buffer.from(match[2]!, 'hex')))
    assert.ok(Math.abs(Number(match[1]) - Date.now() / 1000) < 300)

    const event = await t.db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', envelope.id)
      .executeTakeFirstOrThrow()
    assert.equal(event.created_at.toISOString(), envelope.created_at)
    assert.deepEqual(event.data, envelope.data)

    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.event_id, envelope.id)
    assert.equal(delivery!.endpoint_id, target.endpoint.id)
    assert.equal(delivery!.event_type, 'ping')
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.attempts, 1)
    assert.equal(delivery!.next_attempt_at, null)
    assert.match(delivery!.last_attempt_at!, ISO_MS)
    assert.equal(delivery!.response_status, 200)
    assert.equal(delivery!.response_snippet, null)
    assert.equal(delivery!.error_code, null)
    const listed = (await listEndpoints(t, org.liveKey)).find((e) => e.id === target.endpoint.id)!
    assert.equal(listed.consecutive_failures, 0)
    assert.match(listed.last_success_at!, ISO_MS)
    assert.equal(listed.last_failure_at, null)
  })

  test('response_snippet holds the first 1024 characters of the response body', async () => {
    const org = await t.tenant('Snippet')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/long'))
    await ping(org.liveKey, endpoint.id)
    await settle(org.orgId)
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.status, 'succeeded')
    assert.equal(delivery!.response_status, 200)
    assert.equal(delivery!.response_snippet, LONG_BODY.slice(0, 1024))
  })

  test('a receiver answering 500: retried, then failed with http_error; next_attempt_at null', async () => {
    const org = await t.tenant('Failing')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/fail-once'))
    await ping(org.liveKey, endpoint.id)
    await settle(org.orgId)
    assert.equal(at('/fail-once').length, 2)
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.status, 'failed')
    assert.equal(delivery!.attempts, 2)
    assert.equal(delivery!.error_code, 'http_error')
    assert.equal(delivery!.response_status, 500)
    assert.equal(delivery!.response_snippet, 'nope')
    assert.equal(delivery!.next_attempt_at, null)
    assert.match(delivery!.last_attempt_at!, ISO_MS)
    const listed = (await listEndpoints(t, org.liveKey))[0]!
    assert.equal(listed.consecutive_failures, 2)
    assert.match(listed.last_failure_at!, ISO_MS)
    assert.equal(listed.is_active, true)
  })

  test('an endpoint disabled after 25 failures is listed inactive and refuses the test operation', async () => {
    const org = await t.tenant('Disabled')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/fail-always'))
    // Two attempts per ping (one retry): the 13th ping's first attempt is the 25th failure.
    for (let n = 0; n < 13; n++) {
      await ping(org.liveKey, endpoint.id)
      await settle(org.orgId)
    }
    assert.equal(at('/fail-always').length, 25)
    const listed = (await listEndpoints(t, org.liveKey))[0]!
    assert.equal(listed.id, endpoint.id)
    assert.equal(listed.is_active, false)
    assert.equal(listed.disabled_reason, 'too_many_failures')
    assert.equal(listed.consecutive_failures, 25)
    const [last] = await listDeliveries(t, org.liveKey)
    assert.equal(last!.status, 'failed')
    assert.equal(last!.error_code, 'endpoint_disabled')
    assert.equal(last!.next_attempt_at, null)
    assertError(
      await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`),
      422,
      'validation_failed',
    )
    // Its place is free again.
    assert.equal(await activeCount(t, org.orgId, 'live'), 0)
  })

  test('test endpoints receive pings only; order events reach only live endpoints of the order’s organization', async () => {
    const org = await t.tenant('Environments')
    const other = await t.tenant('Bystander')
    const testEp = await createEndpoint(t, org.testKey, receiver.url('/env-test'))
    const liveEp = await createEndpoint(t, org.liveKey, receiver.url('/env-live'))
    await createEndpoint(t, other.liveKey, receiver.url('/env-other'))

    const liveOrder = await t.api(org.liveKey, 'POST', '/v1/orders', orderBody())
    assert.equal(liveOrder.statusCode, 201)
    const testOrder = await t.api(org.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(testOrder.statusCode, 201)
    await ping(org.testKey, testEp.endpoint.id)
    await settle(org.orgId)
    await settle(other.orgId)

    assert.deepEqual(
      at('/env-test').map((r) => envelopeOf(r).type),
      ['ping'],
    )
    const live = at('/env-live').map(envelopeOf)
    assert.deepEqual(
      live.map((e) => [e.type, e.data.order_id]),
      [['order.received', liveOrder.json().data.order.id]],
    )
    assert.equal(at('/env-other').length, 0)
    assert.deepEqual(
      await t.db
        .selectFrom('events')
        .select('type')
        .where('organization_id', '=', org.orgId)
        .where('environment', '=', 'test')
        .execute(),
      [{ type: 'ping' }],
    )
    assert.deepEqual(
      (await listDeliveries(t, org.testKey)).map((d) => [d.endpoint_id, d.event_type, d.status]),
      [[testEp.endpoint.id, 'ping', 'succeeded']],
    )
    assert.deepEqual(
      (await listDeliveries(t, org.liveKey)).map((d) => [d.endpoint_id, d.event_type, d.status]),
      [[liveEp.endpoint.id, 'order.received', 'succeeded']],
    )
    assert.deepEqual(await listDeliveries(t, other.liveKey), [])
  })

  test('operator: the delivery log across organizations and a manual redelivery of the same event', async () => {
    const org = await t.tenant('Redeliver')
    const other = await t.tenant('Redeliver other')
    const { endpoint } = await createEndpoint(t, org.liveKey, receiver.url('/redeliver'))
    const second = await createEndpoint(t, org.liveKey, receiver.url('/redeliver-2'))
    const theirs = await createEndpoint(t, other.liveKey, receiver.url('/redeliver-other'))
    await ping(org.liveKey, endpoint.id)
    await ping(org.liveKey, second.endpoint.id)
    await ping(other.liveKey, theirs.endpoint.id)
    await settle(org.orgId)
    await settle(other.orgId)

    const list = await t.admin('GET', `/admin/v1/webhook-deliveries?organization_id=${org.orgId}`)
    assert.equal(list.statusCode, 200, list.body)
    const entries = list.json().data as (Delivery & { organization_id?: string })[]
    assert.equal(entries.length, 2)
    for (const e of entries) {
      for (const key of DELIVERY_KEYS) assert.ok(key in e, key)
      if ('organization_id' in e) assert.equal(e.organization_id, org.orgId)
    }
    assert.deepEqual(entries.map((e) => e.endpoint_id).sort(), [endpoint.id, second.endpoint.id].sort())
    const byEndpoint = await t.admin('GET', `/admin/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.equal(byEndpoint.statusCode, 200)
    const [original] = byEndpoint.json().data as Delivery[]
    assert.equal(byEndpoint.json().data.length, 1)
    assert.equal(original!.status, 'succeeded')
    const limited = await t.admin('GET', '/admin/v1/webhook-deliveries?limit=1')
    assert.equal(limited.statusCode, 200)
    assert.equal(limited.json().data.length, 1)

    const res = await t.admin('POST', `/admin/v1/webhook-deliveries/${original!.id}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    const redelivery = res.json().data.delivery as Delivery
    assert.notEqual(redelivery.id, original!.id)
    assert.equal(redelivery.event_id, original!.event_id)
    assert.equal(redelivery.endpoint_id, endpoint.id)
    assert.equal(redelivery.event_type, 'ping')
    assert.equal(redelivery.status, 'pending')
    assert.equal(redelivery.attempts, 0)
    await settle(org.orgId)

    const got = at('/redeliver')
    assert.equal(got.length, 2)
    assert.equal(got[0]!.headers['x-service-event-id'], original!.event_id)
    assert.equal(got[1]!.headers['x-service-event-id'], original!.event_id)
    assert.equal(got[1]!.body.toString('utf8'), got[0]!.body.toString('utf8'))
    assert.equal(at('/redeliver-2').length, 1)

    const log = await listDeliveries(t, org.liveKey, `?endpoint_id=${endpoint.id}`)
    assert.deepEqual(
      log.map((d) => [d.id, d.event_id, d.status, d.attempts]),
      [
        [redelivery.id, original!.event_id, 'succeeded', 1],
        [original!.id, original!.event_id, 'succeeded', 1],
      ],
    )

    assertError(
      await t.admin('POST', `/admin/v1/webhook-deliveries/${UNKNOWN_ID}/redeliver`),
      404,
      'not_found',
    )
  })
})
