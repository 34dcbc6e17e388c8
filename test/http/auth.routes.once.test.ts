import assert from 'node:assert/strict'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import diagnostics from 'node:diagnostics_channel'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import {
  ALL_SCOPES,
  createTestApp,
  manualClock,
  OPERATOR_TOKEN,
  orderBody,
  type TestApp,
} from '../helpers/app.ts'
import { type ApiError, assertError } from '../helpers/errors.ts'

/**
 * Generated authentication tests (Unkey style): the route table is read from the
 * app itself, and every route gets the same cases from one helper, so a new route
 * is covered the moment it is registered.
 *
 * The table is collected with an onRoute hook attached through Fastify's
 * `fastify.initialization` diagnostics channel, which fires when the instance is
 * created, before buildApp registers any route.
 *
 * No real route needs two scopes yet, so one probe route is added the same way:
 * it declares two scopes and no `auth` (the default must be an API key). It runs
 * through the app's own hooks and gets the same generated cases as every route.
 */
const PROBE_URL = '/v1/__auth_probe/two-scopes'
const PROBE_SCOPES = ['orders:read', 'files:write'] as const
interface RouteEntry {
  method: string
  url: string
  auth: 'key' | 'operator' | 'none'
  scopes: string[]
}

const collected: RouteEntry[] = []
const onInit = (message: unknown) => {
  const { fastify } = message as { fastify: FastifyInstance }
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const config = (route.config ?? {}) as { auth?: RouteEntry['auth']; scopes?: string[] }
    for (const method of methods) {
      // HEAD routes are Fastify's automatic mirrors of the GET routes.
      if (method === 'HEAD') continue
      collected.push({ method, url: route.url, auth: config.auth ?? 'key', scopes: config.scopes ?? [] })
    }
  })
  fastify.get(
    PROBE_URL,
    {
      config: { scopes: [...PROBE_SCOPES] },
      // Registered before buildApp sets its error handler: hand errors to whatever
      // the root's handler is when the request arrives.
      errorHandler: (error, request, reply) => fastify.errorHandler(error, request, reply),
    },
    async () => ({ data: { ok: true } }),
  )
}
diagnostics.subscribe('fastify.initialization', onInit)
const clock = manualClock(new Date())
const t: TestApp = await createTestApp({ clock })
diagnostics.unsubscribe('fastify.initialization', onInit)

const routes = [...new Map(collected.map((r) => [`${r.method} ${r.url}`, r])).values()]
const keyRoutes = routes.filter((r) => r.auth === 'key')
const operatorRoutes = routes.filter((r) => r.auth === 'operator')
const openRoutes = routes.filter((r) => r.auth === 'none')
const label = (r: RouteEntry) => `${r.method} ${r.url}`
const appRoutes = routes.filter((r) => r.url !== PROBE_URL)

after(() => t.close())

/** A concrete URL for a route: every path parameter becomes a random UUID. */
function urlFor(route: RouteEntry): string {
  return route.url.replace(/:[A-Za-z_]+/g, () => randomUUID())
}

const hasBody = (method: string) => ['POST', 'PUT', 'PATCH'].includes(method)

/** Calls a route with exactly the given headers (JSON `{}` body for methods that take one). */
function call(
  route: RouteEntry,
  headers: Record<string, string>,
  url = urlFor(route),
): Promise<LightMyRequestResponse> {
  return t.app
    .inject({
      method: route.method as 'GET',
      url,
      headers: hasBody(route.method) ? { ...headers, 'content-type': 'application/json' } : headers,
      ...(hasBody(route.method) ? { payload: '{}' } : {}),
      // A stream never ends: its answer is judged by status and headers, then it is closed.
      payloadAsStream: true,
    })
    .then(async (res) => {
      const stream = res.stream()
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        stream.destroy()
        return Object.assign(res, { body: '', payload: '' })
      }
      const chunks: Buffer[] = []
      for await (const chunk of stream) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks).toString('utf8')
      return Object.assign(res, { body, payload: body, json: () => JSON.parse(body) })
    })
}

function rateLimitHeaderNames(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter((h) => h.toLowerCase().startsWith('x-ratelimit'))
}

function assertRateLimitHeaders(res: LightMyRequestResponse, context: string): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.match(String(res.headers[name]), /^\d+$/, `${context}: ${name} present and numeric`)
  }
  const reset = Number(res.headers['x-ratelimit-reset'])
  assert.ok(reset >= 1 && reset <= 60, `${context}: X-RateLimit-Reset ${reset} within the 60 s window`)
}

const randomSecret = () => {
  const chars = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
  return Array.from(randomBytes(43), (b) => chars[b % 62]).join('')
}

describe('route table', () => {
  test('is read from the app and holds the public routes', () => {
    assert.ok(appRoutes.length > 0)
    for (const expected of ['GET /v1/ping', 'POST /v1/orders', 'GET /v1/orders', 'GET /v1/orders/:id']) {
      const route = routes.find((r) => label(r) === expected)
      assert.ok(route, `${expected} is in the route table`)
      assert.equal(route.auth, 'key', `${expected} needs an API key`)
    }
    assert.deepEqual(routes.find((r) => label(r) === 'GET /v1/ping')!.scopes, [])
    assert.deepEqual(routes.find((r) => label(r) === 'POST /v1/orders')!.scopes, ['orders:write'])
    assert.deepEqual(routes.find((r) => label(r) === 'GET /v1/orders')!.scopes, ['orders:read'])
    assert.deepEqual(routes.find((r) => label(r) === 'GET /v1/orders/:id')!.scopes, ['orders:read'])
    assert.ok(operatorRoutes.length > 0, 'operator routes are in the table')
  })

  test('every /admin/v1 route needs the operator token and every operator route is under /admin/v1', () => {
    // GET /metrics is where Prometheus looks; it takes the operator token too.
    const operatorOnly = (route: RouteEntry) =>
      route.url.startsWith('/admin/v1/') || label(route) === 'GET /metrics'
    for (const route of routes) {
      assert.equal(operatorOnly(route), route.auth === 'operator', label(route))
    }
  })

  test('every public route declares only known scopes', () => {
    for (const route of keyRoutes) {
      for (const scope of route.scopes) assert.ok(ALL_SCOPES.includes(scope), `${label(route)}: ${scope}`)
    }
  })

  test('only the documented routes are open without a key', () => {
    // DECISIONS: no key only for the OpenAPI document, the error pages, health,
    // readiness and the signed upload PUT; /docs shows that same document and the
    // guides (docs/operations.md says why it is public).
    const allowed = (r: RouteEntry) =>
      ['GET /v1/openapi.json', 'GET /developers/errors', 'GET /developers/errors/:code'].includes(label(r)) ||
      (r.method === 'GET' && (r.url === '/docs' || r.url.startsWith('/docs/'))) ||
      ['GET /healthz', 'GET /readyz'].includes(label(r)) ||
      (r.method === 'PUT' && /upload/i.test(r.url)) ||
      // The dashboard's files, and its session, sign-in, invitation and password reset calls
      // (the rest of /dashboard/api needs a session: dashboard.auth.test.ts).
      (r.method === 'GET' &&
        (r.url === '/dashboard' ||
          (r.url.startsWith('/dashboard/') && !r.url.startsWith('/dashboard/api/')))) ||
      [
        'GET /dashboard/api/openapi.json',
        'GET /dashboard/api/session',
        'POST /dashboard/api/sign-in',
        'POST /dashboard/api/invitations/lookup',
        'POST /dashboard/api/invitations/accept',
        'POST /dashboard/api/password-resets/lookup',
        'POST /dashboard/api/password-resets/use',
      ].includes(label(r))
    for (const route of openRoutes) assert.ok(allowed(route), `${label(route)} must not be open`)
  })

  test('the open GET routes answer without a key', async () => {
    for (const route of openRoutes.filter((r) => r.method === 'GET' && !/[:*]/.test(r.url))) {
      const res = await call(route, {})
      assert.equal(res.statusCode, 200, `${label(route)}: ${res.body}`)
    }
    const page = await t.app.inject({ method: 'GET', url: '/developers/errors/invalid_api_key' })
    assert.equal(page.statusCode, 200)
  })
})

describe('public routes: bad keys get one identical 401', () => {
  let reference: { code: string; message: string; doc_url: string }
  const badAuthorizations: [string, () => Record<string, string>, string?, string?][] = []
  let orgName: string
  let testKey: string

  before(async () => {
    orgName = `Auth Org ${randomBytes(3).toString('hex')}`
    const org = await t.createOrganization(orgName)
    testKey = (await t.createKey(org.id, { environment: 'test' })).key

    const revoked = await t.createKey(org.id, { environment: 'live' })
    assert.equal((await t.api(revoked.key, 'GET', '/v1/ping')).statusCode, 200)
    const revoke = await t.admin('DELETE', `/admin/v1/api-keys/${revoked.id}`)
    assert.equal(revoke.statusCode, 200, revoke.body)

    // Expires in one hour; the clock then moves two hours on.
    const expiring = await t.createKey(org.id, {
      environment: 'test',
      expires_at: new Date(clock.now().getTime() + 3_600_000).toISOString(),
    })
    assert.equal((await t.api(expiring.key, 'GET', '/v1/ping')).statusCode, 200)
    clock.advance(2 * 3_600_000)

    const unknown = await t.api(`svc_test_${randomSecret()}`, 'GET', '/v1/ping')
    reference = assertError(unknown, 401, 'invalid_api_key', 'reference 401')
    assert.deepEqual(Object.keys(reference).sort(), ['code', 'doc_url', 'message'])

    const bearer = (key: string) => () => ({ authorization: `Bearer ${key}` })
    // [case, headers, query, hint]: a header of the wrong form gets a hint after
    // the same message; well-formed keys (unknown, revoked, expired) get exactly it.
    badAuthorizations.push(
      ['no Authorization header', () => ({}), undefined, 'No Authorization header was sent.'],
      ['Bearer nope', () => ({ authorization: 'Bearer nope' }), undefined, 'API keys start with'],
      ['Basic x', () => ({ authorization: 'Basic x' }), undefined, 'uses the scheme `Basic`'],
      ['Bearer svc_live_short', () => ({ authorization: 'Bearer svc_live_short' })],
      ['empty Bearer', () => ({ authorization: 'Bearer ' }), undefined, 'holds `Bearer` without a key'],
      [
        'a valid key without the Bearer scheme',
        () => ({ authorization: testKey }),
        undefined,
        'no `Bearer `',
      ],
      [
        'a valid key under the Basic scheme',
        () => ({ authorization: `Basic ${testKey}` }),
        undefined,
        'uses the scheme `Basic`',
      ],
      [
        'a valid key followed by junk',
        () => ({ authorization: `Bearer ${testKey} junk` }),
        undefined,
        'nothing after it',
      ],
      ['a valid key in the query string only', () => ({}), `api_key=${testKey}`, 'No Authorization header'],
      ['the operator token', bearer(OPERATOR_TOKEN), undefined, 'API keys start with'],
      ['unknown well-formed test key', () => bearer(`svc_test_${randomSecret()}`)()],
      ['unknown well-formed live key', () => bearer(`svc_live_${randomSecret()}`)()],
      [
        'a test key with its prefix changed to live',
        () => bearer(testKey.replace(/^svc_test_/, 'svc_live_'))(),
      ],
      [
        'an unknown environment prefix',
        () => bearer(testKey.replace(/^svc_test_/, 'svc_prod_'))(),
        undefined,
        'API keys start with',
      ],
      ['revoked key', bearer(revoked.key)],
      ['expired key', bearer(expiring.key)],
    )
  })

  for (const route of keyRoutes) {
    test(`${label(route)}: missing, malformed, unknown, revoked and expired keys`, async () => {
      assert.ok(badAuthorizations.length > 0)
      for (const [name, headers, query, hint] of badAuthorizations) {
        const url = query ? `${urlFor(route)}?${query}` : urlFor(route)
        const res = await call(route, headers(), url)
        const error = assertError(res, 401, 'invalid_api_key', `${label(route)} with ${name}`)
        if (hint) {
          assert.equal(error.doc_url, reference.doc_url)
          assert.ok(error.message.startsWith(`${reference.message} `), `${name}: ${error.message}`)
          assert.ok(error.message.includes(hint), `${name}: ${error.message}`)
        } else assert.deepEqual(error, reference, `${label(route)} with ${name}: identical 401 body`)
        assert.deepEqual(rateLimitHeaderNames(res), [], `${label(route)} with ${name}: no rate-limit headers`)
        assert.equal(res.headers['retry-after'], undefined)
      }
    })
  }

  test('the valid key used above still works (the cases fail for the key, not the setup)', async () => {
    const res = await t.api(testKey, 'GET', '/v1/ping')
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().data.organization.name, orgName)
  })

  test('an unknown path with an invalid key is 404 not_found without rate-limit headers', async () => {
    for (const authorization of [undefined, 'Bearer nope', `Bearer svc_test_${randomSecret()}`]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v1/nope',
        headers: authorization ? { authorization } : {},
      })
      assertError(res, 404, 'not_found', `unknown path with ${authorization}`)
      assert.deepEqual(rateLimitHeaderNames(res), [])
    }
  })
})

describe('public routes: scopes', () => {
  let orgId: string
  /** scope set (sorted, joined) -> key */
  const keys = new Map<string, string>()
  async function keyWith(scopes: string[]): Promise<string> {
    const id = [...scopes].sort().join(',')
    let key = keys.get(id)
    if (!key) {
      key = (await t.createKey(orgId, { environment: 'test', scopes })).key
      keys.set(id, key)
    }
    return key
  }

  before(async () => {
    orgId = (await t.createOrganization('Scope Org')).id
  })

  for (const route of keyRoutes.filter((r) => r.scopes.length > 0)) {
    for (const scope of route.scopes) {
      test(`${label(route)}: a key with every scope except ${scope} gets 403 naming it`, async () => {
        const res = await call(route, {
          authorization: `Bearer ${await keyWith(ALL_SCOPES.filter((s) => s !== scope))}`,
        })
        const error = assertError(res, 403, 'insufficient_scope', label(route))
        assert.ok(error.message.includes(scope), `message names ${scope}: ${error.message}`)
        for (const other of ALL_SCOPES.filter((s) => s !== scope)) {
          assert.ok(!error.message.includes(other), `message does not name ${other}: ${error.message}`)
        }
        assertRateLimitHeaders(res, `${label(route)} 403`)
      })
    }

    test(`${label(route)}: a key without scopes gets 403 naming every missing scope`, async () => {
      const res = await call(route, { authorization: `Bearer ${await keyWith([])}` })
      const error = assertError(res, 403, 'insufficient_scope', label(route))
      for (const scope of route.scopes) {
        assert.ok(error.message.includes(scope), `message names ${scope}: ${error.message}`)
      }
    })

    test(`${label(route)}: a key with exactly its scopes passes authentication`, async () => {
      const res = await call(route, { authorization: `Bearer ${await keyWith(route.scopes)}` })
      assert.ok(![401, 403].includes(res.statusCode), `${label(route)}: ${res.statusCode} ${res.body}`)
      assertRateLimitHeaders(res, label(route))
    })
  }

  test('a route needing two scopes names both for a key with neither, and only the missing one otherwise', async () => {
    const probe = keyRoutes.find((r) => r.url === PROBE_URL)
    assert.deepEqual(probe?.scopes, [...PROBE_SCOPES], 'the probe route is in the generated table')
    const neither = await t.api(await keyWith(['orders:write']), 'GET', PROBE_URL)
    const both = assertError(neither, 403, 'insufficient_scope', 'neither scope')
    for (const scope of PROBE_SCOPES) assert.ok(both.message.includes(scope), both.message)
    const one = await t.api(await keyWith(['files:write']), 'GET', PROBE_URL)
    const single = assertError(one, 403, 'insufficient_scope', 'one scope')
    assert.ok(
      single.message.includes('orders:read') && !single.message.includes('files:write'),
      single.message,
    )
    const ok = await t.api(await keyWith([...PROBE_SCOPES]), 'GET', PROBE_URL)
    assert.equal(ok.statusCode, 200, ok.body)
    assert.deepEqual(ok.json(), { data: { ok: true } })
    assertError(await t.api(undefined, 'GET', PROBE_URL), 401, 'invalid_api_key', 'probe without key')
  })

  test('a scope never implies another: webhooks:manage alone does not read orders', async () => {
    const res = await t.api(await keyWith(['webhooks:manage']), 'GET', '/v1/orders')
    const error = assertError(res, 403, 'insufficient_scope', 'webhooks:manage only')
    assert.match(error.message, /orders:read/)
  })

  test('scope check comes before the resource lookup', async () => {
    const withoutRead = await keyWith(['orders:write', 'files:write', 'webhooks:manage'])
    const withRead = await keyWith(['orders:read'])
    // A random id and an id of another organization's order.
    const other = await t.tenant('Other Org')
    const created = await t.api(other.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(created.statusCode, 201)
    for (const id of [randomUUID(), created.json().data.order.id as string]) {
      const denied = await t.api(withoutRead, 'GET', `/v1/orders/${id}`)
      assertError(denied, 403, 'insufficient_scope', `GET /v1/orders/${id} without orders:read`)
      const missing = await t.api(withRead, 'GET', `/v1/orders/${id}`)
      assertError(missing, 404, 'not_found', `GET /v1/orders/${id} with orders:read`)
    }
  })
})

describe('GET /v1/ping', () => {
  test('works with a key that has no scopes and describes the key', async () => {
    const orgName = `Ping Org ${randomBytes(3).toString('hex')}`
    const org = await t.createOrganization(orgName)
    const { key } = await t.createKey(org.id, { environment: 'test', scopes: [] })
    const res = await t.api(key, 'GET', '/v1/ping')
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.deepEqual(data.organization, { name: orgName })
    assert.equal(data.environment, 'test')
    assert.deepEqual(data.scopes, [])
    assert.equal(data.api_version, 'v1')
    assert.equal(typeof data.key_prefix, 'string')
    assert.ok(key.startsWith(data.key_prefix), `${data.key_prefix} is a leading part of the key`)
    assert.ok(data.key_prefix.length > 'svc_test_'.length && data.key_prefix.length < key.length)
    assertRateLimitHeaders(res, 'ping')
  })

  test('a live key reports environment live and its scopes', async () => {
    const org = await t.createOrganization('Ping Live Org')
    const scopes = ['orders:read', 'webhooks:manage']
    const { key } = await t.createKey(org.id, { environment: 'live', scopes })
    const res = await t.api(key, 'GET', '/v1/ping')
    assert.equal(res.statusCode, 200, res.body)
    const { data } = res.json()
    assert.equal(data.environment, 'live')
    assert.deepEqual([...data.scopes].sort(), scopes)
    assert.equal(data.organization.name, 'Ping Live Org')
    assert.ok(key.startsWith(data.key_prefix))
    assert.ok(data.key_prefix.startsWith('svc_live_'))
  })
})

describe('API keys at rest', () => {
  for (const environment of ['test', 'live'] as const) {
    test(`a ${environment} key has the documented format and only its SHA-256 is stored`, async () => {
      const org = await t.createOrganization()
      const res = await t.admin('POST', `/admin/v1/organizations/${org.id}/api-keys`, {
        environment,
        scopes: ['orders:read'],
        name: 'ERP',
      })
      assert.equal(res.statusCode, 201, res.body)
      const { key, api_key } = res.json().data
      assert.match(key, new RegExp(`^svc_${environment}_[0-9A-Za-z]{32,}$`))
      assert.equal(api_key.environment, environment)
      assert.ok(key.startsWith(api_key.key_prefix))

      const row = await t.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', api_key.id)
        .executeTakeFirst()
      assert.ok(row)
      assert.equal(row.key_hash, createHash('sha256').update(key, 'utf8').digest('hex'))
      assert.equal(row.environment, environment)
      const secret = key.slice(`svc_${environment}_`.length)
      for (const [column, value] of Object.entries(row)) {
        const text = value instanceof Date ? value.toISOString() : JSON.stringify(value)
        assert.ok(!text?.includes(key), `api_keys.${column} does not hold the key`)
        assert.ok(!text?.includes(secret), `api_keys.${column} does not hold the secret part`)
      }

      const ping = await t.api(key, 'GET', '/v1/ping')
      assert.equal(ping.statusCode, 200)
      assert.equal(ping.json().data.environment, environment)
    })
  }

  test('a key stops working at its expires_at (manual clock)', async () => {
    const ownClock = manualClock()
    const other = await createTestApp({ clock: ownClock })
    try {
      const org = await other.createOrganization()
      const { key } = await other.createKey(org.id, {
        expires_at: new Date(ownClock.now().getTime() + 60_000).toISOString(),
      })
      assert.equal((await other.api(key, 'GET', '/v1/ping')).statusCode, 200)
      ownClock.advance(59_999)
      assert.equal((await other.api(key, 'GET', '/v1/ping')).statusCode, 200)
      ownClock.advance(1)
      const res = await other.api(key, 'GET', '/v1/ping')
      assertError(res, 401, 'invalid_api_key', 'expired')
      assert.deepEqual(rateLimitHeaderNames(res), [])
    } finally {
      await other.close()
    }
  })
})

describe('operator routes: the operator token', () => {
  let apiKey: string
  before(async () => {
    apiKey = (await t.tenant('Operator Auth Org')).liveKey
  })

  for (const route of operatorRoutes) {
    test(`${label(route)}: no token and wrong tokens get 401 invalid_operator_token`, async () => {
      // Wrong tokens get one identical body; a header of the wrong form gets a hint after the same message.
      const cases: [string, Record<string, string>, boolean?][] = [
        ['a wrong token', { authorization: 'Bearer op_wrong_token' }],
        ['the token with a character appended', { authorization: `Bearer ${OPERATOR_TOKEN}x` }],
        ['a prefix of the token', { authorization: `Bearer ${OPERATOR_TOKEN.slice(0, -1)}` }],
        ['a valid API key', { authorization: `Bearer ${apiKey}` }],
        ['no token', {}, true],
        ['the token under the Basic scheme', { authorization: `Basic ${OPERATOR_TOKEN}` }, true],
        ['the token without a scheme', { authorization: OPERATOR_TOKEN }, true],
      ]
      let first: ApiError | undefined
      for (const [name, headers, hinted] of cases) {
        const res = await call(route, headers)
        const error = assertError(res, 401, 'invalid_operator_token', `${label(route)} with ${name}`)
        first ??= error
        if (hinted) {
          assert.equal(error.doc_url, first.doc_url)
          assert.ok(error.message.startsWith(`${first.message} `), `${name}: ${error.message}`)
          assert.ok(error.message.endsWith('Send `Authorization: Bearer <OPERATOR_TOKEN>`.'), error.message)
        } else assert.deepEqual(error, first, `${label(route)} with ${name}: identical body`)
        assert.deepEqual(rateLimitHeaderNames(res), [])
      }
    })
  }

  test('the operator API is not rate limited: no rate-limit headers on success', async () => {
    const res = await t.admin('GET', '/admin/v1/organizations')
    assert.equal(res.statusCode, 200)
    assert.deepEqual(rateLimitHeaderNames(res), [])
  })
})

describe('rate-limit headers on every response to a valid key', () => {
  test('success, 403, 404 (unknown path and unknown id) and 422 all carry them; each request counts', async () => {
    const org = await t.createOrganization('Headers Org')
    const { key } = await t.createKey(org.id, { environment: 'test', scopes: ['orders:write'] })
    const responses: [string, LightMyRequestResponse, number][] = [
      ['GET /v1/ping', await t.api(key, 'GET', '/v1/ping'), 200],
      ['GET /v1/orders (403)', await t.api(key, 'GET', '/v1/orders'), 403],
      ['GET /v1/nope', await t.api(key, 'GET', '/v1/nope'), 404],
      ['POST /v1/orders {}', await t.api(key, 'POST', '/v1/orders', {}), 422],
      ['POST /v1/orders', await t.api(key, 'POST', '/v1/orders', orderBody()), 201],
    ]
    const limit = Number(responses[0]![1].headers['x-ratelimit-limit'])
    assert.ok(limit > 0)
    responses.forEach(([name, res, status], n) => {
      assert.equal(res.statusCode, status, `${name}: ${res.body}`)
      assertRateLimitHeaders(res, name)
      assert.equal(Number(res.headers['x-ratelimit-limit']), limit, `${name}: limit`)
      assert.equal(Number(res.headers['x-ratelimit-remaining']), limit - (n + 1), `${name}: remaining`)
    })
    assert.equal(responses[2]![1].json().error.code, 'not_found')
    assert.equal(responses[3]![1].json().error.code, 'validation_failed')

    const unknownId = await t.api(
      await t.createKey(org.id, { scopes: ['orders:read'] }).then((k) => k.key),
      'GET',
      `/v1/orders/${randomUUID()}`,
    )
    assertError(unknownId, 404, 'not_found', 'unknown order id')
    assertRateLimitHeaders(unknownId, 'unknown order id')
  })
})
