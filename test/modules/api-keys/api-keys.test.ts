import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { createApiKeyService } from '../../../src/modules/api-keys/api-keys.service.ts'
import { createOrganizationService } from '../../../src/modules/organizations/organizations.service.ts'
import {
  createTestApp,
  manualClock,
  orderBody,
  rowCounts,
  type TestApp,
  useTestApp,
} from '../../helpers/app.ts'
import { type DashboardClient, memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { uploadFile } from '../../helpers/order-files.ts'
import { png } from '../../helpers/uploads.ts'
import { waitUntil } from '../../helpers/wait.ts'

describe('instances', () => {
  /**
   * Two instances on one database keep keys in memory. A key revoked through one
   * stops working on the other at its very next request: the other checks a key
   * from memory in the database (for POST /v1/orders, in the order's own
   * statement) and answers exactly as for any bad key.
   */
  describe('a key revoked on another instance', () => {
    let a: TestApp
    let b: TestApp
    before(async () => {
      a = await createTestApp()
      b = await createTestApp({ db: a.db, testDb: a.testDb })
    })
    after(async () => {
      await b.app.close()
      await a.close()
    })

    /** A key of a new organization, used once on b (so b holds it in memory), then revoked on a. */
    async function revokedOnA(environment: 'test' | 'live' = 'live') {
      const org = await a.createOrganization()
      const { key, id } = await a.createKey(org.id, { environment })
      const warm = await b.api(key, 'POST', '/v1/orders', orderBody({ external_order_id: `warm-${id}` }))
      assert.equal(warm.statusCode, 201, warm.body)
      assert.equal((await b.api(key, 'GET', '/v1/ping')).statusCode, 200)
      assert.equal((await a.admin('DELETE', `/admin/v1/api-keys/${id}`)).statusCode, 200)
      return key
    }

    const UNKNOWN = 'svc_live_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG'

    test('POST /v1/orders: 401 invalid_api_key as for an unknown key, no rate-limit headers, nothing written', async () => {
      const key = await revokedOnA()
      const before = await rowCounts(a.db)
      const res = await b.api(key, 'POST', '/v1/orders', orderBody({ external_order_id: 'after-revoke' }))
      const unknown = await b.api(
        UNKNOWN,
        'POST',
        '/v1/orders',
        orderBody({ external_order_id: 'after-revoke' }),
      )
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'invalid_api_key')
      const { request_id: _r1, ...body } = res.json().error
      const { request_id: _r2, ...unknownBody } = unknown.json().error
      assert.deepEqual(body, unknownBody)
      assert.equal(res.headers['x-ratelimit-limit'], undefined)
      assert.equal(res.headers['x-ratelimit-remaining'], undefined)
      assert.deepEqual(await rowCounts(a.db), before)
      // Forgotten: the next request asks the database again.
      assert.equal((await b.api(key, 'POST', '/v1/orders', orderBody())).statusCode, 401)
      assert.deepEqual(await rowCounts(a.db), before)
    })

    test('a repeat of an order the key created: 401, not the stored order', async () => {
      const org = await a.createOrganization()
      const { key, id } = await a.createKey(org.id, { environment: 'live' })
      const body = orderBody({ external_order_id: 'repeat-after-revoke' })
      assert.equal((await b.api(key, 'POST', '/v1/orders', body)).statusCode, 201)
      assert.equal((await a.admin('DELETE', `/admin/v1/api-keys/${id}`)).statusCode, 200)
      const res = await b.api(key, 'POST', '/v1/orders', body)
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'invalid_api_key')
    })

    test('an order with files: 401 before any file is looked at', async () => {
      const org = await a.createOrganization()
      const { key, id } = await a.createKey(org.id, {
        environment: 'live',
        scopes: ['orders:write', 'files:write'],
      })
      const uploadId = await uploadFile(b, key, png(), 'art.png')
      assert.equal((await a.admin('DELETE', `/admin/v1/api-keys/${id}`)).statusCode, 200)
      const items = [{ name: 'Poster', quantity: 1, files: [{ upload_id: uploadId }] }]
      const res = await b.api(
        key,
        'POST',
        '/v1/orders',
        orderBody({ external_order_id: 'files-after-revoke', items }),
      )
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'invalid_api_key')
    })

    test('POST /v1/orders failing before its statement (bad body, missing scope): still the 401 of a bad key', async () => {
      const key = await revokedOnA()
      const invalid = await b.api(key, 'POST', '/v1/orders', { external_order_id: '' })
      assert.equal(invalid.statusCode, 401, invalid.body)
      assert.equal(invalid.json().error.code, 'invalid_api_key')
      assert.equal(invalid.headers['x-ratelimit-limit'], undefined)

      const org = await a.createOrganization()
      const { key: readOnly, id } = await a.createKey(org.id, {
        environment: 'live',
        scopes: ['orders:read'],
      })
      assert.equal((await b.api(readOnly, 'GET', '/v1/ping')).statusCode, 200)
      assert.equal((await b.api(readOnly, 'POST', '/v1/orders', orderBody())).statusCode, 403)
      assert.equal((await a.admin('DELETE', `/admin/v1/api-keys/${id}`)).statusCode, 200)
      const scoped = await b.api(readOnly, 'POST', '/v1/orders', orderBody())
      assert.equal(scoped.statusCode, 401, scoped.body)
      assert.equal(scoped.json().error.code, 'invalid_api_key')
    })

    test('every other route checks the key first: GET /v1/orders, GET /v1/ping', async () => {
      const key = await revokedOnA('test')
      for (const url of ['/v1/orders', '/v1/ping']) {
        const res = await b.api(key, 'GET', url)
        assert.equal(res.statusCode, 401, url)
        assert.equal(res.json().error.code, 'invalid_api_key')
        assert.equal(res.headers['x-ratelimit-limit'], undefined)
      }
    })
  })
})

describe('cache', () => {
  // The embedded database caches keys in memory; the cache must never outlive a
  // revocation or an expiry.
  describe('API key cache (embedded database)', () => {
    let t: TestApp
    const clock = manualClock()
    before(async () => {
      t = await createTestApp({ cacheApiKeys: true, clock })
    })
    after(() => t.close())

    test('a revoked key gets 401 on the very next request', async () => {
      const org = await t.createOrganization()
      const { key, id } = await t.createKey(org.id)
      assert.equal((await t.api(key, 'GET', '/v1/ping')).statusCode, 200)
      assert.equal((await t.api(key, 'GET', '/v1/ping')).statusCode, 200)
      assert.equal((await t.admin('DELETE', `/admin/v1/api-keys/${id}`)).statusCode, 200)
      const res = await t.api(key, 'GET', '/v1/ping')
      assert.equal(res.statusCode, 401)
      assert.equal(res.json().error.code, 'invalid_api_key')
    })

    test('a cached key expires on time', async () => {
      const org = await t.createOrganization()
      const expiresAt = new Date(clock.now().getTime() + 60_000)
      const { key } = await t.createKey(org.id, { expires_at: expiresAt.toISOString() })
      assert.equal((await t.api(key, 'GET', '/v1/ping')).statusCode, 200)
      clock.set(expiresAt)
      assert.equal((await t.api(key, 'GET', '/v1/ping')).statusCode, 401)
    })

    test('unknown keys are not cached as valid', async () => {
      const res = await t.api('svc_test_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG', 'GET', '/v1/ping')
      assert.equal(res.statusCode, 401)
    })
  })
})

describe('API keys', () => {
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })

  interface AuditEntry {
    actor: string
    action: string
    subject: string
    details: Record<string, unknown>
  }
  async function auditLog(client: DashboardClient): Promise<AuditEntry[]> {
    const res = await client.call('GET', '/audit-log')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  const keyRow = (id: string) =>
    t.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  /** The row version: PostgreSQL gives an updated row a new xmin, an unchanged one keeps it. */
  const rowVersion = async (id: string) =>
    (await sql<{ v: string }>`select xmin::text as v from api_keys where id = ${id}`.execute(t.db)).rows[0]!.v

  describe('dashboard API keys', () => {
    let orgId: string
    let developer: Awaited<ReturnType<typeof memberOf>>
    let viewer: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      orgId = (await t.createOrganization('Keys Org')).id
      developer = await memberOf(t, orgId, 'developer')
      viewer = await memberOf(t, orgId, 'viewer')
    })

    test('a viewer lists keys but gets 403 role_required creating or revoking one', async () => {
      const { id } = await t.createKey(orgId)
      assert.equal((await viewer.client.call('GET', '/api-keys')).statusCode, 200)
      const created = await viewer.client.call('POST', '/api-keys', {
        environment: 'live',
        scopes: ['orders:read'],
      })
      assertError(created, 403, 'role_required')
      assertError(await viewer.client.call('DELETE', `/api-keys/${id}`), 403, 'role_required')
      assert.equal((await keyRow(id)).revoked_at, null)
    })

    test('a developer creates a key: the plaintext appears once, it works, the audit names the member', async () => {
      const res = await developer.client.call('POST', '/api-keys', {
        environment: 'live',
        scopes: ['orders:read', 'orders:write'],
        expires_at: new Date(clock.now().getTime() + 30 * 86_400_000).toISOString(),
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.match(key, /^svc_live_[0-9A-Za-z]{43}$/)
      assert.ok(key.startsWith(api_key.key_prefix))
      assert.equal(api_key.created_by, developer.email)
      assert.equal(api_key.last_used_at, null)
      assert.deepEqual(api_key.scopes, ['orders:read', 'orders:write'])

      const list = await developer.client.call('GET', '/api-keys')
      assert.ok(!list.body.includes(key), 'the list never shows the key')
      const listed = list.json().data.find((k: { id: string }) => k.id === api_key.id)
      assert.equal(listed.created_by, developer.email)
      assert.equal(listed.expires_at, api_key.expires_at)

      assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)

      const log = await auditLog(developer.client)
      assert.ok(!JSON.stringify(log).includes(key), 'the audit log never holds the key')
      const entry = log.find((e) => e.action === 'api_key.created' && e.details.key_id === api_key.id)
      assert.ok(entry, 'api_key.created recorded')
      assert.equal(entry.actor, developer.email)
      assert.equal(entry.subject, api_key.key_prefix)
      assert.deepEqual(entry.details.scopes, ['orders:read', 'orders:write'])
    })

    test('revoking: the key stops working, one audit entry, another organization gets 404', async () => {
      const { key, id } = await t.createKey(orgId, { environment: 'live' })
      const stranger = await memberOf(t, (await t.createOrganization('Other Keys Org')).id, 'owner')
      assertError(await stranger.client.call('DELETE', `/api-keys/${id}`), 404, 'not_found')
      assert.equal((await keyRow(id)).revoked_at, null)

      const res = await developer.client.call('DELETE', `/api-keys/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      const revokedAt = res.json().data.api_key.revoked_at
      assert.ok(revokedAt)
      assertError(await t.api(key, 'GET', '/v1/orders'), 401, 'invalid_api_key')
      clock.advance(1000)
      const again = await developer.client.call('DELETE', `/api-keys/${id}`)
      assert.equal(
        again.json().data.api_key.revoked_at,
        revokedAt,
        'a second revocation keeps the first time',
      )
      const entries = (await auditLog(developer.client)).filter(
        (e) => e.action === 'api_key.revoked' && e.details.key_id === id,
      )
      assert.equal(entries.length, 1)
      assert.equal(entries[0]!.actor, developer.email)
    })

    test('the operator API records its keys as created by operator', async () => {
      const { id } = await t.createKey(orgId)
      const listed = (await developer.client.call('GET', '/api-keys'))
        .json()
        .data.find((k: { id: string }) => k.id === id)
      assert.equal(listed.created_by, 'operator token')
      const entry = (await auditLog(developer.client)).find(
        (e) => e.action === 'api_key.created' && e.details.key_id === id,
      )
      assert.equal(entry?.actor, 'operator token')
    })

    test('last used: 100 requests in a minute write the row once; the next minute writes again', async () => {
      const { key, id } = await t.createKey(orgId)
      const minuteStart = Math.ceil(clock.now().getTime() / 60_000) * 60_000
      clock.set(new Date(minuteStart))
      for (let i = 0; i < 100; i++) {
        assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)
        clock.advance(100) // 10 s in all
      }
      // Written after the answer, by the first request of the minute.
      const written = await waitUntil(async () => (await keyRow(id)).last_used_at, 'last_used_at written')
      assert.equal(written.getTime(), minuteStart)
      const version = await rowVersion(id)

      // A second instance (its own memory) in the same minute: its write changes nothing.
      clock.set(new Date(minuteStart + 59_000))
      const second = await createTestApp({ clock, db: t.db, testDb: t.testDb })
      try {
        assert.equal((await second.api(key, 'GET', '/v1/orders')).statusCode, 200)
      } finally {
        await second.close() // waits for its pending write
      }
      assert.equal(await rowVersion(id), version, 'another instance changed nothing in the same minute')
      assert.equal((await keyRow(id)).last_used_at?.getTime(), minuteStart)

      clock.set(new Date(minuteStart + 61_000))
      assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)
      await waitUntil(
        async () => (await keyRow(id)).last_used_at?.getTime() === minuteStart + 61_000,
        'the next minute written',
      )
      const listed = (await developer.client.call('GET', '/api-keys'))
        .json()
        .data.find((k: { id: string }) => k.id === id)
      assert.equal(listed.last_used_at, new Date(minuteStart + 61_000).toISOString())
    })
  })

  describe('last used, counted', () => {
    test('one service, 100 authentications of one key in a minute: one UPDATE', async () => {
      let updates = 0
      const counting = t.db.withPlugin({
        transformQuery: (args) => {
          if (args.node.kind === 'UpdateQueryNode') updates++
          return args.node
        },
        transformResult: async (args) => args.result,
      })
      const keyClock = manualClock(new Date('2026-11-26T10:00:00.000Z'))
      const service = createApiKeyService({
        db: counting,
        clock: keyClock,
        cacheKeys: true,
        organizations: createOrganizationService({ db: t.db, clock: keyClock }),
      })
      const orgId = (await t.createOrganization('Counted Org')).id
      const { key, apiKey } = await service.create({
        organizationId: orgId,
        environment: 'test',
        scopes: ['orders:read'],
      })
      for (let i = 0; i < 100; i++) {
        assert.ok(await service.authenticate(key))
        keyClock.advance(500) // 50 s in all
      }
      await service.flushUsage()
      assert.equal(updates, 1)
      assert.equal((await keyRow(apiKey.id)).last_used_at?.toISOString(), '2026-11-26T10:00:00.000Z')

      keyClock.set(new Date('2026-11-26T10:01:00.000Z'))
      assert.ok(await service.authenticate(key))
      await service.flushUsage()
      assert.equal(updates, 2, 'the next minute writes again')
    })
  })
})
