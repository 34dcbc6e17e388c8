import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { ALL_SCOPES, manualClock, orderBody, useTestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { count, hex, ISO_MS, UUID } from '../../helpers/operator.ts'

describe('organizations and their API keys', () => {
  const API_KEY_FIELDS = [
    'created_at',
    'created_by',
    'environment',
    'expires_at',
    'id',
    'key_prefix',
    'last_used_at',
    'name',
    'organization_id',
    'revoked_at',
    'scopes',
  ].sort()

  // A moving clock: a second revocation must keep the first time.
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })
  const tick = (ms = 1000) => clock.advance(ms)

  describe('organizations', () => {
    test('POST creates {id, name, created_at}; GET lists it', async () => {
      const name = `Org ${hex()}`
      const res = await t.admin('POST', '/admin/v1/organizations', { name })
      assert.equal(res.statusCode, 201, res.body)
      const { organization } = res.json().data
      assert.deepEqual(Object.keys(organization).sort(), ['created_at', 'id', 'name'])
      assert.match(organization.id, UUID)
      assert.equal(organization.name, name)
      assert.match(organization.created_at, ISO_MS)
      const row = await t.db
        .selectFrom('organizations')
        .selectAll()
        .where('id', '=', organization.id)
        .execute()
      assert.deepEqual(
        row.map((r) => r.name),
        [name],
      )

      const list = await t.admin('GET', '/admin/v1/organizations')
      assert.equal(list.statusCode, 200)
      assert.ok(Array.isArray(list.json().data))
      assert.deepEqual(
        list.json().data.find((o: { id: string }) => o.id === organization.id),
        organization,
      )
    })

    test('invalid bodies get 422 and store nothing', async () => {
      const before = await count(t, 'organizations')
      for (const [body, code, field] of [
        [{}, 'required', 'name'],
        [{ name: '' }, 'too_short', 'name'],
        [{ name: 42 }, 'invalid_type', 'name'],
        [{ name: 'Acme', plan: 'pro' }, 'unknown_field', 'plan'],
      ] as const) {
        const res = await t.admin('POST', '/admin/v1/organizations', body)
        const error = assertError(res, 422, 'validation_failed')
        assert.deepEqual(
          error.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
          [[code, field]],
          JSON.stringify(body),
        )
      }
      assert.equal(await count(t, 'organizations'), before)
    })
  })

  describe('API keys', () => {
    let orgId: string
    before(async () => {
      orgId = (await t.createOrganization('Key Org')).id
    })

    test('create returns the key once with its metadata; the list never shows the plaintext', async () => {
      const expiresAt = new Date(clock.now().getTime() + 86_400_000).toISOString()
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'live',
        scopes: ['orders:read', 'orders:write'],
        name: 'ERP',
        expires_at: expiresAt,
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.deepEqual(Object.keys(res.json().data).sort(), ['api_key', 'key'])
      assert.deepEqual(Object.keys(api_key).sort(), API_KEY_FIELDS)
      assert.match(api_key.id, UUID)
      assert.equal(api_key.organization_id, orgId)
      assert.equal(api_key.environment, 'live')
      assert.deepEqual([...api_key.scopes].sort(), ['orders:read', 'orders:write'])
      assert.equal(api_key.name, 'ERP')
      assert.equal(api_key.expires_at, expiresAt)
      assert.equal(api_key.created_by, 'operator token')
      assert.equal(api_key.last_used_at, null)
      assert.equal(api_key.revoked_at, null)
      assert.match(api_key.created_at, ISO_MS)
      assert.match(key, /^svc_live_[0-9A-Za-z]{32,}$/)
      assert.ok(key.startsWith(api_key.key_prefix))

      const ping = await t.api(key, 'GET', '/v1/ping')
      assert.equal(ping.statusCode, 200)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.statusCode, 200)
      const listed = list.json().data.find((k: { id: string }) => k.id === api_key.id)
      assert.deepEqual(listed, api_key)
      const secret = key.slice('svc_live_'.length)
      assert.ok(!list.body.includes(key), 'the list does not contain the plaintext key')
      assert.ok(!list.body.includes(secret), 'the list does not contain the secret part')
      for (const entry of list.json().data) assert.deepEqual(Object.keys(entry).sort(), API_KEY_FIELDS)
    })

    test('name and expires_at are optional; the list holds only the organization’s keys', async () => {
      const other = await t.createOrganization('Other Key Org')
      const otherKey = await t.createKey(other.id)
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: [],
      })
      assert.equal(res.statusCode, 201, res.body)
      const { api_key, key } = res.json().data
      assert.equal(api_key.name, null)
      assert.equal(api_key.expires_at, null)
      assert.deepEqual(api_key.scopes, [])
      assert.match(key, /^svc_test_/)
      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      const ids = list.json().data.map((k: { id: string }) => k.id)
      assert.ok(ids.includes(api_key.id))
      assert.ok(!ids.includes(otherKey.id))
      assert.ok(list.json().data.every((k: { organization_id: string }) => k.organization_id === orgId))
    })

    test('scopes and environment are validated; nothing is stored', async () => {
      const before = await count(t, 'api_keys')
      const bodies = [
        { environment: 'test', scopes: ['orders:delete'] },
        { environment: 'test', scopes: ['orders:read', 'admin'] },
        { environment: 'test', scopes: 'orders:read' },
        { environment: 'test' },
        { environment: 'prod', scopes: ['orders:read'] },
        { environment: 'TEST', scopes: ['orders:read'] },
        { scopes: ['orders:read'] },
        { environment: 'test', scopes: [], expires_at: 'tomorrow' },
        { environment: 'test', scopes: [], key: 'svc_test_chosen_by_me_0000000000000000000' },
      ]
      for (const body of bodies) {
        const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, body)
        const error = assertError(res, 422, 'validation_failed')
        assert.ok(error.errors.length > 0, JSON.stringify(body))
      }
      const unknownScope = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'test',
        scopes: ['orders:read', 'orders:delete'],
      })
      assert.deepEqual(
        assertError(unknownScope, 422, 'validation_failed').errors.map((e: { field: string }) => e.field),
        ['scopes.1'],
      )
      const badEnvironment = await t.admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        environment: 'prod',
        scopes: [],
      })
      assert.equal(assertError(badEnvironment, 422, 'validation_failed').field, 'environment')
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('an unknown organization is 404 not_found', async () => {
      const before = await count(t, 'api_keys')
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const created = await t.admin('POST', `/admin/v1/organizations/${id}/api-keys`, {
          environment: 'test',
          scopes: ALL_SCOPES,
        })
        assertError(created, 404, 'not_found')
        assertError(await t.admin('GET', `/admin/v1/organizations/${id}/api-keys`), 404, 'not_found')
      }
      assert.equal(await count(t, 'api_keys'), before)
    })

    test('revoke answers {id, revoked_at}; the key gets 401 from then on; a second revoke keeps the first time', async () => {
      const { key, id } = await t.createKey(orgId, { environment: 'live' })
      assert.equal((await t.api(key, 'GET', '/v1/orders')).statusCode, 200)

      tick()
      const revokedAt = clock.now().toISOString()
      const res = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { id, revoked_at: revokedAt } })

      for (const [method, url] of [
        ['GET', '/v1/ping'],
        ['GET', '/v1/orders'],
        ['GET', `/v1/orders/${randomUUID()}`],
      ] as const) {
        assertError(await t.api(key, method, url), 401, 'invalid_api_key')
      }
      assertError(await t.api(key, 'POST', '/v1/orders', orderBody()), 401, 'invalid_api_key')

      tick(60_000)
      const again = await t.admin('DELETE', `/admin/v1/api-keys/${id}`)
      assert.equal(again.statusCode, 200, again.body)
      assert.deepEqual(again.json(), { data: { id, revoked_at: revokedAt } })
      const row = await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', id)
        .executeTakeFirst()
      assert.equal(row?.revoked_at?.toISOString(), revokedAt)

      const list = await t.admin('GET', `/admin/v1/organizations/${orgId}/api-keys`)
      assert.equal(list.json().data.find((k: { id: string }) => k.id === id).revoked_at, revokedAt)
      assertError(await t.api(key, 'GET', '/v1/ping'), 401, 'invalid_api_key')
    })

    test('revoking an unknown key is 404 not_found', async () => {
      assertError(await t.admin('DELETE', `/admin/v1/api-keys/${randomUUID()}`), 404, 'not_found')
      assertError(await t.admin('DELETE', '/admin/v1/api-keys/not-a-uuid'), 404, 'not_found')
    })
  })
})
