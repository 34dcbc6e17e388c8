import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createSecretBox } from '../../../../src/lib/secret-box.ts'
import { serviceSecret } from '../../../../src/lib/service-secrets.ts'
import { EVENT_TYPES } from '../../../../src/modules/webhooks/outbox/events.ts'
import { createTestApp, manualClock, orderBody, type TestApp, useTestApp } from '../../../helpers/app.ts'
import { useDispatcherApp } from '../../../helpers/dispatcher.ts'
import { assertError, assertValidation } from '../../../helpers/errors.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../../helpers/https-receiver.ts'
import { waitUntil } from '../../../helpers/wait.ts'
import {
  activeCount,
  createEndpoint,
  DELIVERY_KEYS,
  type Delivery,
  ENDPOINT_KEYS,
  type Endpoint,
  endpointRows,
  ISO_MS,
  listDeliveries,
  listEndpoints,
  NO_WEBHOOK_SCOPE,
  sleep,
  UNKNOWN_ID,
} from '../../../helpers/webhook-endpoints.ts'

/**
 * An organization's live and test endpoints beside another organization's,
 * and the (key, id) pairs that must answer 404: an unknown id, one that is no
 * id, the other organization's endpoint, and each own endpoint asked for with
 * the key of the other environment.
 */
async function ownAndForeignEndpoints(t: TestApp, names: { own?: string; other?: string } = {}) {
  const org = await t.tenant(names.own)
  const other = await t.tenant(names.other)
  const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/mine')
  const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
  const myTest = await createEndpoint(t, org.testKey, 'https://webhook.test/mine-test')
  const notFound = [
    [org.liveKey, UNKNOWN_ID],
    [org.liveKey, 'not-a-uuid'],
    [org.liveKey, theirs.endpoint.id],
    [org.liveKey, myTest.endpoint.id],
    [org.testKey, mine.endpoint.id],
  ] as const
  return { org, other, mine, theirs, myTest, notFound }
}

describe('create', () => {
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
})

describe('list and delete', () => {
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

    test("operator: an organization's endpoints of one environment (live by default) with filters and rotation; unknown organization 404", async () => {
      const org = await t.tenant('Operator sees endpoints')
      const other = await t.tenant('Someone else')
      const live = await createEndpoint(t, org.liveKey, 'https://webhook.test/live', 'live one')
      const test = await createEndpoint(t, org.testKey, 'https://webhook.test/test', 'test one')
      await createEndpoint(t, other.liveKey, 'https://webhook.test/other', 'not theirs')
      const patched = await t.api(org.liveKey, 'PATCH', `/v1/webhook-endpoints/${live.endpoint.id}`, {
        enabled_events: ['order.cancelled'],
      })
      assert.equal(patched.statusCode, 200, patched.body)
      const rotated = await t.api(
        org.liveKey,
        'POST',
        `/v1/webhook-endpoints/${live.endpoint.id}/rotate-secret`,
        {
          grace_period_seconds: 3600,
        },
      )
      assert.equal(rotated.statusCode, 200, rotated.body)

      const res = await t.admin('GET', `/admin/v1/organizations/${org.orgId}/webhook-endpoints`)
      assert.equal(res.statusCode, 200, res.body)
      const [listed, ...rest] = res.json().data as Endpoint[]
      assert.deepEqual(rest, [])
      assert.equal(listed!.id, live.endpoint.id)
      assert.deepEqual(listed!.enabled_events, ['order.cancelled'])
      assert.equal(listed!.secret_rotation_ends_at, rotated.json().data.endpoint.secret_rotation_ends_at)
      assert.ok(listed!.secret_rotation_ends_at)
      assert.deepEqual(Object.keys(listed!).sort(), [...ENDPOINT_KEYS].sort())

      const tests = await t.admin(
        'GET',
        `/admin/v1/organizations/${org.orgId}/webhook-endpoints?environment=test`,
      )
      assert.deepEqual(
        (tests.json().data as Endpoint[]).map((e) => e.id),
        [test.endpoint.id],
      )
      assertError(
        await t.admin('GET', `/admin/v1/organizations/${UNKNOWN_ID}/webhook-endpoints`),
        404,
        'not_found',
      )
      assertError(
        await t.admin('GET', `/admin/v1/organizations/${org.orgId}/webhook-endpoints?environment=staging`),
        422,
        'validation_failed',
      )
    })

    test('DELETE: 200 {id, is_active:false}, the same again; unknown, foreign and other-environment ids 404', async () => {
      const { org, mine, theirs, myTest, notFound } = await ownAndForeignEndpoints(t, {
        own: 'Deleter',
        other: 'Someone else',
      })
      for (const [key, id] of notFound) {
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
      const { org, other, mine, notFound } = await ownAndForeignEndpoints(t, {
        own: 'Pinger',
        other: 'Not me',
      })
      for (const [key, id] of notFound) {
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
})

describe('enabled_events', () => {
  const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

  const create = (key: string, body: Record<string, unknown>) =>
    t.api(key, 'POST', '/v1/webhook-endpoints', { url: 'https://webhook.test/filtered', ...body })
  const patch = (key: string | undefined, id: string, body: unknown) =>
    t.api(key, 'PATCH', `/v1/webhook-endpoints/${id}`, body)

  describe('enabled_events on POST /v1/webhook-endpoints', () => {
    test('default ["*"]; a list is stored and shown as given, a repeated type once', async () => {
      const org = await t.tenant()
      const all = await createEndpoint(t, org.liveKey, 'https://webhook.test/all')
      assert.deepEqual(Object.keys(all.endpoint).sort(), ENDPOINT_KEYS)
      assert.deepEqual(all.endpoint.enabled_events, ['*'])

      const res = await create(org.liveKey, {
        enabled_events: ['order.cancelled', 'order.received', 'order.cancelled'],
      })
      assert.equal(res.statusCode, 201, res.body)
      const some = res.json().data.endpoint as Endpoint
      assert.deepEqual(some.enabled_events, ['order.cancelled', 'order.received'])
      const star = await create(org.liveKey, { enabled_events: ['*', '*'] })
      assert.equal(star.statusCode, 201, star.body)
      assert.deepEqual(star.json().data.endpoint.enabled_events, ['*'])

      const rows = await endpointRows(t, org.orgId)
      assert.deepEqual(rows.find((r) => r.id === some.id)?.enabled_events, [
        'order.cancelled',
        'order.received',
      ])
      assert.deepEqual(rows.find((r) => r.id === all.endpoint.id)?.enabled_events, ['*'])
      const listed = await listEndpoints(t, org.liveKey)
      assert.deepEqual(
        listed.find((e) => e.id === some.id),
        some,
      )
    })

    test('unknown types, ping, "*" among types, an empty list: 422 naming each entry, nothing created', async () => {
      const org = await t.tenant()
      const cases: [unknown, [string, string][]][] = [
        [['order.received', 'order.shipped'], [['invalid_format', 'enabled_events[1]']]],
        [
          ['nope', 'order.received', 'Order.Cancelled'],
          [
            ['invalid_format', 'enabled_events[0]'],
            ['invalid_format', 'enabled_events[2]'],
          ],
        ],
        [['ping'], [['invalid_format', 'enabled_events[0]']]],
        [['order.received', '*'], [['invalid_format', 'enabled_events[1]']]],
        [[], [['too_few', 'enabled_events']]],
        [['order.received', 7], [['invalid_type', 'enabled_events.1']]],
        ['*', [['invalid_type', 'enabled_events']]],
        [Array(21).fill('order.received'), [['too_many', 'enabled_events']]],
      ]
      for (const [enabled_events, entries] of cases) {
        assertValidation(await create(org.liveKey, { enabled_events }), entries)
      }
      const unknown = assertValidation(await create(org.liveKey, { enabled_events: ['order.shipped'] }), [
        ['invalid_format', 'enabled_events[0]'],
      ])
      assert.match(unknown.errors[0].message, /^enabled_events\[0\] must be one of "\*", "order\.received", /)
      assert.doesNotMatch(unknown.errors[0].message, /ping/)
      const ping = assertValidation(await create(org.liveKey, { enabled_events: ['ping'] }), [
        ['invalid_format', 'enabled_events[0]'],
      ])
      assert.match(ping.errors[0].message, /ping.*always reaches the endpoint/)
      assert.deepEqual(await endpointRows(t, org.orgId), [])
    })

    test('the OpenAPI document lists as enum exactly what the service accepts, and answers tolerate more', async () => {
      const org = await t.tenant()
      const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/enum')
      const schemas = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json().components
        .schemas
      const accepted: string[] = schemas.WebhookEndpointRequest.properties.enabled_events.items.enum
      assert.deepEqual(schemas.WebhookEndpointUpdate.properties.enabled_events.items.enum, accepted)
      for (const type of accepted) {
        const res = await patch(org.liveKey, endpoint.id, { enabled_events: [type] })
        assert.equal(res.statusCode, 200, `${type}: ${res.body}`)
        assert.deepEqual(res.json().data.endpoint.enabled_events, [type])
      }
      // Every type an endpoint can receive is listed; ping (always sent) and unknown ones are refused.
      assert.deepEqual(
        [...EVENT_TYPES, '*'].filter((type) => !accepted.includes(type)),
        ['ping'],
      )
      for (const type of ['ping', 'order.shipped']) {
        assertValidation(await patch(org.liveKey, endpoint.id, { enabled_events: [type] }), [
          ['invalid_format', 'enabled_events[0]'],
        ])
      }
      const [known, any] = schemas.WebhookEndpoint.properties.enabled_events.items.anyOf
      assert.deepEqual([known.enum, any], [accepted, { type: 'string' }])
    })
  })

  describe('PATCH /v1/webhook-endpoints/{id}', () => {
    test('changes description and/or enabled_events; 200 with the endpoint, stored, nothing else moves', async () => {
      const org = await t.tenant()
      const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/p', 'first')
      const [before] = await endpointRows(t, org.orgId)

      let res = await patch(org.liveKey, endpoint.id, { enabled_events: ['order.production_completed'] })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(Object.keys(res.json()), ['data'])
      assert.deepEqual(Object.keys(res.json().data), ['endpoint'])
      assert.deepEqual(res.json().data.endpoint, {
        ...endpoint,
        enabled_events: ['order.production_completed'],
      })

      res = await patch(org.liveKey, endpoint.id, { description: 'second' })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.endpoint, {
        ...endpoint,
        description: 'second',
        enabled_events: ['order.production_completed'],
      })

      res = await patch(org.liveKey, endpoint.id, { description: '', enabled_events: ['*'] })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.endpoint, { ...endpoint, description: '', enabled_events: ['*'] })

      // An empty body changes nothing and answers the endpoint.
      res = await patch(org.liveKey, endpoint.id, {})
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.endpoint, { ...endpoint, description: '', enabled_events: ['*'] })

      const [after] = await endpointRows(t, org.orgId)
      assert.deepEqual(after, { ...before, description: '', enabled_events: ['*'] })
      assert.deepEqual(await listEndpoints(t, org.liveKey), [res.json().data.endpoint])
    })

    test('bad input is 422 and changes nothing: url, unknown fields, bad types, wrong JSON types', async () => {
      const org = await t.tenant()
      const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/keep', 'keep')
      await patch(org.liveKey, endpoint.id, { enabled_events: ['order.received'] })
      const before = await endpointRows(t, org.orgId)

      const url = assertValidation(
        await patch(org.liveKey, endpoint.id, { url: 'https://webhook.test/new' }),
        [['invalid_format', 'url']],
      )
      assert.match(url.errors[0].message, /register a new endpoint/)
      assert.match(url.message, /register a new endpoint/)
      // The same URL is no exception; with other mistakes, every entry at once.
      assertValidation(await patch(org.liveKey, endpoint.id, { url: endpoint.url, description: 'x' }), [
        ['invalid_format', 'url'],
      ])
      assertValidation(
        await patch(org.liveKey, endpoint.id, {
          url: endpoint.url,
          enabled_events: ['order.received', 'nope'],
        }),
        [
          ['invalid_format', 'url'],
          ['invalid_format', 'enabled_events[1]'],
        ],
      )
      assertValidation(
        await patch(org.liveKey, endpoint.id, {
          description: 'new',
          enabled_events: ['order.cancelled', 'x'],
        }),
        [['invalid_format', 'enabled_events[1]']],
      )
      assertValidation(await patch(org.liveKey, endpoint.id, { description: 'new', enabled_events: [] }), [
        ['too_few', 'enabled_events'],
      ])
      const unknown = assertValidation(await patch(org.liveKey, endpoint.id, { desciption: 'new' }), [
        ['unknown_field', 'desciption'],
      ])
      assert.match(unknown.errors[0].message, /did you mean `description`/)
      assertValidation(await patch(org.liveKey, endpoint.id, { is_active: true }), [
        ['unknown_field', 'is_active'],
      ])
      assertValidation(await patch(org.liveKey, endpoint.id, { description: 5 }), [
        ['invalid_type', 'description'],
      ])
      assertValidation(await patch(org.liveKey, endpoint.id, { description: 'x'.repeat(501) }), [
        ['too_long', 'description'],
      ])
      assertValidation(await patch(org.liveKey, endpoint.id, ['order.received']), [['invalid_type', 'body']])
      assertError(await patch(org.liveKey, endpoint.id, '{"description":'), 400, 'invalid_json')

      assert.deepEqual(await endpointRows(t, org.orgId), before)
    })

    test('unknown, foreign and other-environment ids 404; a deleted endpoint 422; the scope first', async () => {
      const { org, other, mine, theirs, notFound } = await ownAndForeignEndpoints(t)
      const body = { description: 'taken over' }
      for (const [key, id] of notFound) {
        assertError(await patch(key, id, body), 404, 'not_found')
      }
      // A 404 even when the body is also wrong: the endpoint is looked up first.
      assertError(
        await patch(org.liveKey, theirs.endpoint.id, { url: 'https://webhook.test/x' }),
        404,
        'not_found',
      )

      const narrow = await t.createKey(org.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
      assertError(await patch(narrow.key, theirs.endpoint.id, body), 403, 'insufficient_scope')
      assertError(await patch(narrow.key, mine.endpoint.id, body), 403, 'insufficient_scope')
      assertError(await patch(undefined, mine.endpoint.id, body), 401, 'invalid_api_key')

      assert.equal(
        (await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)).statusCode,
        200,
      )
      const before = await endpointRows(t, org.orgId)
      const gone = assertValidation(await patch(org.liveKey, mine.endpoint.id, body), [
        ['invalid_format', 'id'],
      ])
      assert.match(gone.message, /disabled/)
      assertValidation(await patch(org.liveKey, mine.endpoint.id, { enabled_events: ['order.received'] }), [
        ['invalid_format', 'id'],
      ])
      assert.deepEqual(await endpointRows(t, org.orgId), before)
      for (const row of [...before, ...(await endpointRows(t, other.orgId))]) {
        assert.notEqual(row.description, 'taken over')
      }
    })
  })
})

describe('fan-out by enabled_events', () => {
  const setup = useDispatcherApp()

  /** What each of the five endpoints subscribes to: only /received takes order.received. */
  const FILTERS: Record<string, string[]> = {
    '/received': ['order.received'],
    '/started': ['order.production_started'],
    '/cancelled': ['order.cancelled'],
    '/items': ['order_item.completed'],
    '/done': ['order.production_completed', 'order.production_failed'],
  }

  describe('fan-out by enabled_events', () => {
    test('an order burst to 5 endpoints, 4 of which filter order.received out: 1 delivery per event; ping reaches all', async (ctx) => {
      const s = await setup(ctx)
      const ids: Record<string, string> = {}
      for (const [path, enabled_events] of Object.entries(FILTERS)) {
        const res = await s.t.api(s.tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
          url: s.receiver.url(path),
          enabled_events,
        })
        assert.equal(res.statusCode, 201, res.body)
        ids[path] = res.json().data.endpoint.id
      }
      const pathOf = Object.fromEntries(Object.entries(ids).map(([path, id]) => [id, path]))
      /** What the receiver got, as "path event-id", each once (delivery is at least once), of the given type. */
      const received = (type = 'order.received') =>
        [
          ...new Set(
            s.receiver.received
              .filter((r) => r.headers['x-service-event-type'] === type)
              .map((r) => `${r.url} ${r.headers['x-service-event-id']}`),
          ),
        ].sort()

      const orders = await Promise.all(Array.from({ length: 20 }, () => s.order()))
      const events = await s.t.db
        .selectFrom('events')
        .select(['id', 'type', 'order_id'])
        .where('order_id', 'in', orders)
        .execute()
      assert.equal(events.length, 20)
      assert.ok(events.every((e) => e.type === 'order.received'))
      const eventIds = events.map((e) => e.id).sort()

      // Written with the events: exactly one delivery and one queued attempt each, all to /received.
      const written = await s.t.db
        .selectFrom('webhook_deliveries')
        .select(['event_id', 'endpoint_id'])
        .where('event_id', 'in', eventIds)
        .execute()
      assert.deepEqual(written.map((d) => d.event_id).sort(), eventIds)
      assert.ok(written.every((d) => d.endpoint_id === ids['/received']))
      const queued = await s.t.db.selectFrom('webhook_queue').select(['event_id', 'endpoint_id']).execute()
      assert.deepEqual(queued.map((q) => q.event_id).sort(), eventIds)
      assert.ok(queued.every((q) => q.endpoint_id === ids['/received']))

      // A retry would only add a duplicate: the first attempt gets time even on a busy machine.
      await s.dispatch({ timeoutMs: 10_000 })
      await waitUntil(
        async () =>
          (await s.deliveries(ids['/received']!)).filter((d) => d.status === 'succeeded').length === 20,
        'the burst to be delivered',
      )
      assert.deepEqual(received(), eventIds.map((id) => `/received ${id}`).sort())
      for (const path of Object.keys(FILTERS).filter((p) => p !== '/received')) {
        assert.deepEqual(await s.deliveries(ids[path]!), [], `nothing written for ${path}`)
      }

      // A production change reaches the one endpoint that lists its type.
      const order = (await s.t.admin('GET', `/admin/v1/orders/${orders[0]}`)).json().data.order
      const status = await s.t.admin(
        'POST',
        `/admin/v1/production-orders/${order.production_order.id}/status`,
        {
          status: 'in_progress',
        },
      )
      assert.equal(status.statusCode, 200, status.body)
      const [started] = await s.t.db
        .selectFrom('events')
        .select('id')
        .where('type', '=', 'order.production_started')
        .where('order_id', '=', orders[0]!)
        .execute()
      await waitUntil(
        () => received('order.production_started').length > 0,
        'order.production_started to arrive',
      )
      assert.deepEqual(received('order.production_started'), [`/started ${started!.id}`])

      // ping reaches every endpoint, whatever it lists.
      for (const id of Object.values(ids)) {
        const ping = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)
        assert.equal(ping.statusCode, 202, ping.body)
      }
      await waitUntil(() => received('ping').length === 5, 'the pings to arrive')
      assert.deepEqual(
        received('ping').map((r) => r.split(' ')[0]),
        Object.keys(FILTERS).sort(),
      )

      // After a PATCH, the next order reaches the endpoints that now take order.received, and only those.
      const widened = await s.t.api(s.tenant.liveKey, 'PATCH', `/v1/webhook-endpoints/${ids['/items']}`, {
        enabled_events: ['order_item.completed', 'order.received'],
      })
      assert.equal(widened.statusCode, 200, widened.body)
      const star = await s.t.api(s.tenant.liveKey, 'PATCH', `/v1/webhook-endpoints/${ids['/done']}`, {
        enabled_events: ['*'],
      })
      assert.equal(star.statusCode, 200, star.body)
      const next = await s.order()
      const rows = await s.t.db
        .selectFrom('webhook_deliveries')
        .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
        .select(['webhook_deliveries.endpoint_id', 'events.id'])
        .where('events.order_id', '=', next)
        .execute()
      assert.deepEqual(rows.map((r) => pathOf[r.endpoint_id]).sort(), ['/done', '/items', '/received'])
      const nextId = rows[0]!.id
      await waitUntil(() => received().length === 23, 'the next order.received to arrive three times')
      assert.deepEqual(
        received().filter((r) => r.endsWith(nextId)),
        ['/done', '/items', '/received'].map((path) => `${path} ${nextId}`),
      )
    })
  })
})

describe('rotate-secret', () => {
  const clock = manualClock(new Date('2026-11-26T08:00:00.000Z'))
  const t = useTestApp({ clock, resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

  const DAY_MS = 86_400_000
  const rotatePath = (id: string) => `/v1/webhook-endpoints/${id}/rotate-secret`

  interface Rotated {
    endpoint: Endpoint
    secret: string
    previous_secret_expires_at: string
  }

  async function rotate(key: string, id: string, body?: unknown): Promise<Rotated> {
    const res = await t.api(key, 'POST', rotatePath(id), body)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(Object.keys(res.json()), ['data'])
    const data = res.json().data as Rotated
    assert.deepEqual(Object.keys(data).sort(), ['endpoint', 'previous_secret_expires_at', 'secret'])
    assert.deepEqual(Object.keys(data.endpoint).sort(), ENDPOINT_KEYS)
    return data
  }

  const endpointRow = async (app: TestApp, id: string) =>
    app.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

  /** Opens a sealed secret with the service's key: what the worker signs with. */
  async function open(sealed: string | null): Promise<string | null> {
    if (sealed === null) return null
    return createSecretBox(await serviceSecret(t.db, 'webhook_secret_key')).open(sealed)
  }

  describe('POST /v1/webhook-endpoints/{id}/rotate-secret', () => {
    test('a new secret, shown once; the old one signs beside it for 24 hours by default', async () => {
      const org = await t.tenant('Rotator')
      const created = await createEndpoint(t, org.liveKey, 'https://webhook.test/rotate')
      assert.equal(created.endpoint.secret_rotation_ends_at, null)
      const before = await endpointRow(t, created.endpoint.id)

      const now = clock.now()
      // No body at all (no Content-Type either) takes the defaults.
      const rotated = await rotate(org.liveKey, created.endpoint.id)
      const ends = new Date(now.getTime() + DAY_MS).toISOString()
      assert.match(rotated.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
      assert.notEqual(rotated.secret, created.secret)
      assert.equal(rotated.previous_secret_expires_at, ends)
      assert.deepEqual(rotated.endpoint, { ...created.endpoint, secret_rotation_ends_at: ends })

      // Both sealed at rest: the row holds neither secret in the clear.
      const row = await endpointRow(t, created.endpoint.id)
      assert.equal(row.previous_secret_encrypted, before.secret_encrypted)
      assert.notEqual(row.secret_encrypted, before.secret_encrypted)
      assert.equal(row.previous_secret_expires_at?.toISOString(), ends)
      assert.equal(await open(row.secret_encrypted), rotated.secret)
      assert.equal(await open(row.previous_secret_encrypted), created.secret)
      const stored = JSON.stringify(row)
      for (const secret of [rotated.secret, created.secret]) {
        assert.equal(stored.includes(secret.slice('whsec_'.length)), false)
      }

      // Never returned again: the list shows the rotation's end, not a secret.
      const list = await t.api(org.liveKey, 'GET', '/v1/webhook-endpoints')
      assert.equal(list.statusCode, 200)
      assert.deepEqual(list.json().data, [rotated.endpoint])
      for (const secret of [rotated.secret, created.secret]) {
        assert.equal(list.body.includes(secret.slice('whsec_'.length)), false)
      }

      // Once the grace period is over, nothing is in progress.
      clock.advance(DAY_MS - 1)
      assert.equal((await listEndpoints(t, org.liveKey))[0]!.secret_rotation_ends_at, ends)
      clock.advance(1)
      assert.equal((await listEndpoints(t, org.liveKey))[0]!.secret_rotation_ends_at, null)
    })

    test('grace_period_seconds: 0 cuts over at once, 604800 (7 days) is the most, {} is the default', async () => {
      const org = await t.tenant('Grace periods')
      const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/grace')
      const now = clock.now().getTime()

      const cut = await rotate(org.liveKey, endpoint.id, { grace_period_seconds: 0 })
      assert.equal(cut.previous_secret_expires_at, new Date(now).toISOString())
      assert.equal(cut.endpoint.secret_rotation_ends_at, null)
      let row = await endpointRow(t, endpoint.id)
      assert.equal(row.previous_secret_encrypted, null)
      assert.equal(row.previous_secret_expires_at, null)
      assert.equal(await open(row.secret_encrypted), cut.secret)

      const week = await rotate(org.liveKey, endpoint.id, { grace_period_seconds: 604_800 })
      assert.equal(week.endpoint.secret_rotation_ends_at, new Date(now + 7 * DAY_MS).toISOString())
      row = await endpointRow(t, endpoint.id)
      assert.equal(await open(row.previous_secret_encrypted), cut.secret)

      const minute = await rotate(org.liveKey, endpoint.id, { grace_period_seconds: 60 })
      assert.equal(minute.previous_secret_expires_at, new Date(now + 60_000).toISOString())

      const plain = await rotate(org.liveKey, endpoint.id, {})
      assert.equal(plain.previous_secret_expires_at, new Date(now + DAY_MS).toISOString())
    })

    test('a second rotation during a grace period: the current secret becomes the previous one, the older stops', async () => {
      const org = await t.tenant('Rotating twice')
      const first = await createEndpoint(t, org.liveKey, 'https://webhook.test/twice')
      const second = await rotate(org.liveKey, first.endpoint.id, { grace_period_seconds: 3600 })
      clock.advance(60_000)
      const third = await rotate(org.liveKey, first.endpoint.id, { grace_period_seconds: 600 })
      assert.equal(
        third.endpoint.secret_rotation_ends_at,
        new Date(clock.now().getTime() + 600_000).toISOString(),
      )
      const row = await endpointRow(t, first.endpoint.id)
      assert.equal(await open(row.secret_encrypted), third.secret)
      assert.equal(await open(row.previous_secret_encrypted), second.secret)
      assert.equal(new Set([first.secret, second.secret, third.secret]).size, 3)
    })

    test('two rotations at once: one after the other, each secret returned once', async () => {
      const org = await t.tenant('Rotating at once')
      const created = await createEndpoint(t, org.liveKey, 'https://webhook.test/at-once')
      const [a, b] = await Promise.all([
        rotate(org.liveKey, created.endpoint.id, { grace_period_seconds: 60 }),
        rotate(org.liveKey, created.endpoint.id, { grace_period_seconds: 60 }),
      ])
      const row = await endpointRow(t, created.endpoint.id)
      const current = await open(row.secret_encrypted)
      const previous = await open(row.previous_secret_encrypted)
      assert.deepEqual([current, previous].sort(), [a!.secret, b!.secret].sort())
    })

    test('bad input: 422 or 400 naming the problem, and nothing changes', async () => {
      const org = await t.tenant('Bad rotations')
      const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/bad')
      const before = await endpointRows(t, org.orgId)
      const cases: [body: unknown, code: string][] = [
        [{ grace_period_seconds: 604_801 }, 'too_large'],
        [{ grace_period_seconds: -1 }, 'too_small'],
        [{ grace_period_seconds: 1.5 }, 'invalid_type'],
        [{ grace_period_seconds: '60' }, 'invalid_type'],
        [{ grace_period_seconds: null }, 'invalid_type'],
        [{ grace_period_seconds: true }, 'invalid_type'],
      ]
      for (const [body, code] of cases) {
        const res = await t.api(org.liveKey, 'POST', rotatePath(endpoint.id), body)
        assertValidation(res, [[code, 'grace_period_seconds']])
      }
      const unknown = await t.api(org.liveKey, 'POST', rotatePath(endpoint.id), { grace_period: 60 })
      assertValidation(unknown, [['unknown_field', 'grace_period']])
      assertError(await t.api(org.liveKey, 'POST', rotatePath(endpoint.id), 'null'), 422, 'validation_failed')
      assertError(await t.api(org.liveKey, 'POST', rotatePath(endpoint.id), '[60]'), 422, 'validation_failed')
      assertError(await t.api(org.liveKey, 'POST', rotatePath(endpoint.id), '{"grace'), 400, 'invalid_json')
      // An empty application/json body is no body, accepted: test/http/input.once.test.ts.
      const textPlain = await t.app.inject({
        method: 'POST',
        url: rotatePath(endpoint.id),
        headers: { authorization: `Bearer ${org.liveKey}`, 'content-type': 'text/plain' },
        payload: '{"grace_period_seconds":60}',
      })
      assertError(textPlain, 400, 'invalid_json')
      const noType = await t.app.inject({
        method: 'POST',
        url: rotatePath(endpoint.id),
        headers: { authorization: `Bearer ${org.liveKey}` },
        payload: '{"grace_period_seconds":60}',
      })
      assertError(noType, 400, 'invalid_json')
      assert.deepEqual(await endpointRows(t, org.orgId), before)
    })

    test('unknown, foreign and other-environment ids: 404; a disabled endpoint: 422; nothing changes', async () => {
      const { org, other, mine, theirs, notFound } = await ownAndForeignEndpoints(t, {
        own: 'Own endpoints',
        other: 'Other endpoints',
      })
      const gone = await createEndpoint(t, org.liveKey, 'https://webhook.test/gone')
      assert.equal(
        (await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${gone.endpoint.id}`)).statusCode,
        200,
      )
      const before = [...(await endpointRows(t, org.orgId)), ...(await endpointRows(t, other.orgId))]

      for (const [key, id] of notFound) {
        assertError(
          await t.api(key, 'POST', rotatePath(id), { grace_period_seconds: 60 }),
          404,
          'not_found',
          id,
        )
      }
      const disabled = await t.api(org.liveKey, 'POST', rotatePath(gone.endpoint.id))
      const error = assertError(disabled, 422, 'validation_failed')
      assert.deepEqual(
        error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
        [['invalid_format', 'id']],
      )

      // The scope check comes first: 403 even for a foreign id; no key: 401.
      const narrow = await t.createKey(org.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
      for (const id of [mine.endpoint.id, theirs.endpoint.id, UNKNOWN_ID]) {
        assertError(await t.api(narrow.key, 'POST', rotatePath(id)), 403, 'insufficient_scope')
      }
      assertError(await t.api(undefined, 'POST', rotatePath(mine.endpoint.id)), 401, 'invalid_api_key')

      assert.deepEqual(
        [...(await endpointRows(t, org.orgId)), ...(await endpointRows(t, other.orgId))],
        before,
      )
    })
  })
})

describe('deliveries to an HTTPS receiver', () => {
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
})
