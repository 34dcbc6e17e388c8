import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, manualClock, orderBody, rowCounts, type TestApp } from '../../helpers/app.ts'
import { uploadFile } from '../../helpers/order-files.ts'
import { png } from '../../helpers/uploads.ts'

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
