import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import {
  activeCount,
  createEndpoint,
  ENDPOINT_KEYS,
  type Endpoint,
  endpointRows,
  ISO_MS,
  listEndpoints,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

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
