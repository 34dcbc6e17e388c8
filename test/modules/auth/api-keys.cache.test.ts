import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, manualClock, type TestApp } from '../../helpers/app.ts'

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
