import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createSecretBox } from '../../../src/lib/secret-box.ts'
import { serviceSecret } from '../../../src/lib/service-secrets.ts'
import { manualClock, type TestApp, useTestApp } from '../../helpers/app.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import {
  createEndpoint,
  ENDPOINT_KEYS,
  type Endpoint,
  endpointRows,
  listEndpoints,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

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
    // An empty application/json body is no body, accepted: test/http/empty-json-body.test.ts.
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
    const org = await t.tenant('Own endpoints')
    const other = await t.tenant('Other endpoints')
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/mine')
    const mineTest = await createEndpoint(t, org.testKey, 'https://webhook.test/mine-test')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    const gone = await createEndpoint(t, org.liveKey, 'https://webhook.test/gone')
    assert.equal(
      (await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${gone.endpoint.id}`)).statusCode,
      200,
    )
    const before = [...(await endpointRows(t, org.orgId)), ...(await endpointRows(t, other.orgId))]

    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'not-a-uuid'],
      [org.liveKey, theirs.endpoint.id],
      [org.liveKey, mineTest.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
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

    assert.deepEqual([...(await endpointRows(t, org.orgId)), ...(await endpointRows(t, other.orgId))], before)
  })
})
