import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import diagnostics from 'node:diagnostics_channel'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { TrustProxy } from '../../src/config.ts'
import { SIGN_IN_LIMITS } from '../../src/modules/accounts/limits.ts'
import { foldOrderChanges } from '../../src/modules/orders/changes/changes.repo.ts'
import { createTestApp, orderBody, PUBLIC_BASE_URL, type TestApp, useTestApp } from '../helpers/app.ts'
import {
  cookieHeader,
  type DashboardClient,
  dashboardClient,
  memberOf,
  operatorOf,
  PASSWORD,
  uniqueEmail,
} from '../helpers/dashboard.ts'
import { assertError } from '../helpers/errors.ts'
import { loopbackResolver } from '../helpers/https-receiver.ts'
import { createOrder, png, uploadFile } from '../helpers/order-files.ts'

// First in the file: its app is made while the describe builds, and the route table it
// reads holds only that app's routes while no other app starts.
describe("the dashboard routes' authentication and CSRF, generated from the route table", async () => {
  /**
   * Generated authorization tests for the dashboard API, like the public
   * routes' (test/http/auth.routes.test.ts): the route table is read from the
   * app, and every route gets the same cases: no session, an ended session, an
   * expired session, a role below the route's, another organization's member,
   * and (for changes) a missing CSRF token or a foreign Origin.
   */
  interface RouteEntry {
    method: string
    url: string
    auth: string
    role: string | undefined
    csrf: boolean
    /** Which accounts a session route is for: member (the default), operator, or any. */
    accounts: string
  }
  const collected: RouteEntry[] = []
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance }
    fastify.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/dashboard/api/')) return
      const config = (route.config ?? {}) as {
        auth?: string
        role?: string
        csrf?: boolean
        accounts?: string
      }
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        if (method === 'HEAD') continue
        collected.push({
          method,
          url: route.url,
          auth: config.auth ?? 'key',
          role: config.role,
          csrf: !!config.csrf,
          accounts: config.accounts ?? 'member',
        })
      }
    })
  }
  diagnostics.subscribe('fastify.initialization', onInit)
  // Endpoints on loopback names (nothing receives: no dispatcher runs here).
  const t: TestApp = await createTestApp({
    resolver: loopbackResolver,
    webhookAllowPrivateCidrs: ['127.0.0.0/8'],
  })
  diagnostics.unsubscribe('fastify.initialization', onInit)
  after(() => t.close())

  const routes = collected
  const label = (r: RouteEntry) => `${r.method} ${r.url}`
  const path = (r: RouteEntry, ids: Record<string, string>) =>
    r.url.replace('/dashboard/api', '').replace(/:([A-Za-z_]+)/g, (_, name: string) => ids[name] ?? name)
  const sessionRoutes = routes.filter((r) => r.auth === 'session')
  /** Routes of an organization's members (and of any account): they name a least role. */
  const memberRoutes = sessionRoutes.filter((r) => r.accounts !== 'operator')
  const operatorRoutes = sessionRoutes.filter((r) => r.accounts === 'operator')
  const RANK: Record<string, number> = { viewer: 0, developer: 1, owner: 2 }

  /** The routes open without a session: its document, reading the session, signing in, invitations, reset links. */
  const OPEN = [
    'GET /dashboard/api/openapi.json',
    'GET /dashboard/api/session',
    'POST /dashboard/api/sign-in',
    'POST /dashboard/api/invitations/lookup',
    'POST /dashboard/api/invitations/accept',
    'POST /dashboard/api/password-resets/lookup',
    'POST /dashboard/api/password-resets/use',
  ]

  const generatedRule = { name: 'Generated', actions: [{ type: 'tag', value: 'generated' }] }

  /** A valid query for each GET route that requires one. */
  const QUERIES: Record<string, string> = {
    'GET /dashboard/api/requests/:request_line_id': '?environment=live',
    'GET /dashboard/api/search': '?q=generated',
    'GET /dashboard/api/operator/search': '?q=generated',
  }

  const RETENTION_DEFAULTS = {
    request_body_retention_days: 30,
    webhook_answer_retention_days: 90,
    personal_data_retention_days: null,
  }
  /** A valid body for each route that takes one, so that only authorization can refuse it. */
  const BODIES: Record<string, () => unknown> = {
    'POST /dashboard/api/sign-in': () => ({ email: uniqueEmail(), password: PASSWORD }),
    'POST /dashboard/api/invitations/lookup': () => ({ token: 'x'.repeat(43) }),
    'POST /dashboard/api/invitations/accept': () => ({ token: 'x'.repeat(43), password: PASSWORD }),
    'POST /dashboard/api/password-resets/lookup': () => ({ token: 'x'.repeat(43) }),
    'POST /dashboard/api/password-resets/use': () => ({ token: 'x'.repeat(43), password: PASSWORD }),
    'POST /dashboard/api/account/password': () => ({ current_password: PASSWORD, new_password: PASSWORD }),
    'PATCH /dashboard/api/members/:member_id': () => ({ role: 'viewer' }),
    'POST /dashboard/api/invitations': () => ({ email: uniqueEmail('generated'), role: 'viewer' }),
    'POST /dashboard/api/products': () => ({
      sku: `GEN-${randomBytes(4).toString('hex')}`,
      name: 'Generated',
    }),
    'POST /dashboard/api/api-keys': () => ({ environment: 'test', scopes: ['orders:read'] }),
    'POST /dashboard/api/webhook-endpoints': () => ({ url: 'https://webhook.test/generated' }),
    'PATCH /dashboard/api/webhook-endpoints/:endpoint_id': () => ({ description: 'generated' }),
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/rotate-secret': () => ({ grace_period_seconds: 0 }),
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/sample': () => ({ type: 'order.received' }),
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/replay': () => ({ since: '2026-01-01T00:00:00Z' }),
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/replay/preview': () => ({
      since: '2026-01-01T00:00:00Z',
    }),
    'POST /dashboard/api/operator/organizations': () => ({ name: 'Generated by operator' }),
    'POST /dashboard/api/operator/organizations/:org_id/invitations': () => ({ email: uniqueEmail('owner') }),
    'POST /dashboard/api/operator/operators/invitations': () => ({ email: uniqueEmail('operator') }),
    'POST /dashboard/api/operator/organizations/:org_id/shop-orders': () => orderBody(),
    // Setting the status the order already has, and the partner flag it has: no change, no event.
    'POST /dashboard/api/operator/production-orders/:production_order_id/status': () => ({
      status: 'pending',
    }),
    'POST /dashboard/api/operator/production-orders/:production_order_id/partner': () => ({
      produced_by_partner: false,
    }),
    'POST /dashboard/api/operator/production-jobs/:job_id/complete': () => ({}),
    'POST /dashboard/api/operator/orders/:order_id/cancel': () => ({}),
    // A page older than the order: refused with 409 once authorized, nothing changes.
    'POST /dashboard/api/orders/:order_id/changes': () => ({ expected_updated_at: '2026-01-01T00:00:00Z' }),
    'POST /dashboard/api/orders/:order_id/cancel': () => ({ expected_updated_at: '2026-01-01T00:00:00Z' }),
    'POST /dashboard/api/orders/:order_id/uploads': () => ({ filename: 'generated.png' }),
    'POST /dashboard/api/orders/:order_id/release': () => ({ expected_updated_at: '2026-01-01T00:00:00Z' }),
    'POST /dashboard/api/operator/orders/:order_id/release': () => ({
      expected_updated_at: '2026-01-01T00:00:00Z',
    }),
    'POST /dashboard/api/operator/orders/:order_id/changes': () => ({
      expected_updated_at: '2026-01-01T00:00:00Z',
    }),
    'POST /dashboard/api/operator/orders/:order_id/uploads': () => ({ filename: 'generated.png' }),
    'POST /dashboard/api/automation/rules': () => generatedRule,
    'PUT /dashboard/api/automation/rules/:rule_id': () => generatedRule,
    'POST /dashboard/api/automation/rules/order': () => ({ rule_ids: [ruleId] }),
    'POST /dashboard/api/automation/dry-run': () => generatedRule,
    'PUT /dashboard/api/products/:product_id/print-spec': () => ({ print_spec: null }),
    'PUT /dashboard/api/products/:product_id/lead-time': () => ({ lead_time_days: 2 }),
    'PUT /dashboard/api/operator/production-calendar': () => ({
      time_zone: 'UTC',
      working_weekdays: [1, 2, 3, 4, 5],
      default_lead_time_days: 3,
      closed_days: [],
    }),
    'POST /dashboard/api/operator/batches': () => ({ name: 'Posters', select: { sku: 'POSTER' } }),
    'POST /dashboard/api/operator/batches/:batch_id/orders': () => ({ select: { sku: 'POSTER' } }),
    'POST /dashboard/api/operator/batches/:batch_id/start': () => ({}),
    'POST /dashboard/api/operator/batches/:batch_id/complete': () => ({}),
    'POST /dashboard/api/operator/batches/:batch_id/fail': () => ({ reason: 'Press jammed' }),
    'POST /dashboard/api/operator/stations': () => ({ name: `Press ${Math.random()}` }),
    'PATCH /dashboard/api/operator/stations/:station_id': () => ({ name: `Press ${Math.random()}` }),
    // A customer of no order: previewed, exported and erased, nothing changes.
    'POST /dashboard/api/personal-data/preview': () => ({ email: 'nobody@generated.test' }),
    'POST /dashboard/api/personal-data/erasures': () => ({ email: 'nobody@generated.test' }),
    'POST /dashboard/api/personal-data/exports': () => ({ email: 'nobody@generated.test' }),
    'PUT /dashboard/api/retention': () => RETENTION_DEFAULTS,
    'POST /dashboard/api/operator/organizations/:org_id/personal-data/preview': () => ({
      email: 'nobody@generated.test',
    }),
    'POST /dashboard/api/operator/organizations/:org_id/personal-data/erasures': () => ({
      email: 'nobody@generated.test',
    }),
    'POST /dashboard/api/operator/organizations/:org_id/personal-data/exports': () => ({
      email: 'nobody@generated.test',
    }),
    'PUT /dashboard/api/operator/organizations/:org_id/retention': () => RETENTION_DEFAULTS,
    'POST /dashboard/api/operator/stations/:station_id/scan': () => ({
      code: 'po:0193a000-0000-7000-8000-000000000001',
    }),
  }
  /** Changes whose path says it all. */
  const NO_BODY = [
    'POST /dashboard/api/sign-out',
    'POST /dashboard/api/account/sessions/sign-out-others',
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/test',
    'POST /dashboard/api/webhook-endpoints/:endpoint_id/retry-now',
    'POST /dashboard/api/operator/webhook-endpoints/:endpoint_id/retry-now',
    'POST /dashboard/api/webhook-deliveries/:delivery_id/redeliver',
    'POST /dashboard/api/operator/webhook-deliveries/:delivery_id/redeliver',
    'POST /dashboard/api/members/:member_id/password-reset',
    'POST /dashboard/api/operator/organizations/:org_id/members/:member_id/password-reset',
    'POST /dashboard/api/operator/operators/:operator_id/password-reset',
  ]
  const bodyOf = (r: RouteEntry) => BODIES[label(r)]?.()

  let orgId: string
  /** A live order of the organization with a file, for the order routes' ids. */
  let order: { id: string; file: string }
  let owner: Awaited<ReturnType<typeof memberOf>>
  let target: Awaited<ReturnType<typeof memberOf>>
  let keyId: string
  let endpointId: string
  let deliveryId: string
  let productionOrderId: string
  let jobId: string
  /** A pending invitation of the organization; an operator account (never removed: only refusals here). */
  let invitationId: string
  let operatorId: string
  let ruleId: string
  /** The request log's line of the order's creation (live). */
  let requestLineId: string
  /** An open batch of another order of the organization. */
  let batchId: string
  let stationId: string
  const byRole: Record<string, Awaited<ReturnType<typeof memberOf>>> = {}

  before(async () => {
    orgId = (await t.createOrganization('Generated Auth Org')).id
    owner = await memberOf(t, orgId, 'owner')
    target = await memberOf(t, orgId, 'viewer')
    for (const role of ['developer', 'viewer']) byRole[role] = await memberOf(t, orgId, role as 'viewer')
    const key = (await t.createKey(orgId, { environment: 'live' })).key
    const file = await uploadFile(t, key, png(), 'generated.png')
    const created = await createOrder(
      t,
      key,
      orderBody({
        items: [{ sku: 'GEN-SKU', name: 'Generated', quantity: 1, files: [{ upload_id: file }] }],
      }),
    )
    order = { id: created.id, file }
    // The file measured, so that its thumbnail exists.
    while ((await t.db.transaction().execute((trx) => foldOrderChanges(trx, 100))) === 100) {}
    while ((await t.services.preflight.runOnce()) > 0) {}
    const production = await t.db
      .selectFrom('production_orders as p')
      .innerJoin('production_jobs as j', 'j.production_order_id', 'p.id')
      .select(['p.id', 'j.id as job_id'])
      .where('p.order_id', '=', created.id)
      .executeTakeFirstOrThrow()
    productionOrderId = production.id
    jobId = production.job_id
    const apiKey = await owner.client.call('POST', '/api-keys', {
      environment: 'test',
      scopes: ['orders:read'],
    })
    assert.equal(apiKey.statusCode, 201, apiKey.body)
    keyId = apiKey.json().data.api_key.id
    const endpoint = await owner.client.call('POST', '/webhook-endpoints', {
      url: 'https://webhook.test/auth',
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    endpointId = endpoint.json().data.endpoint.id
    const ping = await owner.client.call('POST', `/webhook-endpoints/${endpointId}/test`)
    assert.equal(ping.statusCode, 202, ping.body)
    const invited = await owner.client.call('POST', '/invitations', {
      email: uniqueEmail('pending'),
      role: 'viewer',
    })
    assert.equal(invited.statusCode, 201, invited.body)
    invitationId = invited.json().data.invitation.id
    const operator = await operatorOf(t)
    operatorId = operator.id
    const batched = await createOrder(
      t,
      key,
      orderBody({ items: [{ sku: 'GEN-SKU', name: 'Batched', quantity: 1 }] }),
    )
    const batchedProduction = await t.db
      .selectFrom('production_orders')
      .select('id')
      .where('order_id', '=', batched.id)
      .executeTakeFirstOrThrow()
    const batch = await operator.client.call('POST', '/operator/batches', {
      name: 'Generated batch',
      production_order_ids: [batchedProduction.id],
    })
    assert.equal(batch.statusCode, 201, batch.body)
    batchId = batch.json().data.batch.id
    const station = await operator.client.call('POST', '/operator/stations', { name: 'Generated station' })
    assert.equal(station.statusCode, 201, station.body)
    stationId = station.json().data.station.id
    const rule = await owner.client.call('POST', '/automation/rules', generatedRule)
    assert.equal(rule.statusCode, 201, rule.body)
    ruleId = rule.json().data.rule.id
    await t.services.requests.recorder.flush()
    requestLineId = (
      await t.db
        .selectFrom('api_requests')
        .select('id')
        .where('order_id', '=', created.id)
        .executeTakeFirstOrThrow()
    ).id
    deliveryId = (
      await t.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirstOrThrow()
    ).id
  })
  const ids = () => ({
    org_id: orgId,
    production_order_id: productionOrderId,
    job_id: jobId,
    member_id: target.id,
    order_id: order.id,
    upload_id: order.file,
    key_id: keyId,
    endpoint_id: endpointId,
    delivery_id: deliveryId,
    invitation_id: invitationId,
    operator_id: operatorId,
    rule_id: ruleId,
    request_line_id: requestLineId,
    batch_id: batchId,
    station_id: stationId,
  })

  async function call(
    client: DashboardClient,
    route: RouteEntry,
    options: Parameters<DashboardClient['call']>[3] = {},
  ) {
    return client.call(
      route.method as 'GET',
      path(route, ids()) + (QUERIES[label(route)] ?? ''),
      bodyOf(route),
      options,
    )
  }

  describe('dashboard route table', () => {
    test('every dashboard API route needs a session, except the open ones', () => {
      assert.ok(sessionRoutes.length >= 8, `${sessionRoutes.length} session routes`)
      for (const route of routes) {
        assert.equal(route.auth === 'session', !OPEN.includes(label(route)), label(route))
        if (route.auth !== 'session') assert.equal(route.auth, 'none', label(route))
      }
    })

    test('every session route names its least role; every change checks CSRF; every body is in BODIES', () => {
      for (const route of memberRoutes) assert.ok(route.role && route.role in RANK, label(route))
      for (const route of operatorRoutes)
        assert.equal(route.role, undefined, `${label(route)}: no member role`)
      for (const route of sessionRoutes) {
        assert.ok(['member', 'operator', 'any'].includes(route.accounts), label(route))
        assert.equal(
          route.url.startsWith('/dashboard/api/operator/'),
          route.accounts === 'operator',
          label(route),
        )
      }
      for (const route of routes.filter((r) => r.method !== 'GET')) {
        assert.ok(route.csrf, `${label(route)} checks CSRF`)
      }
      for (const route of routes.filter((r) => ['POST', 'PATCH', 'PUT'].includes(r.method))) {
        const needsBody = !NO_BODY.includes(label(route))
        assert.equal(label(route) in BODIES, needsBody, `${label(route)}: a sample body`)
      }
    })
  })

  describe('dashboard routes: without a valid session', () => {
    let ended: DashboardClient
    let expired: DashboardClient
    before(async () => {
      ended = (await memberOf(t, orgId, 'owner')).client
      assert.equal((await ended.call('POST', '/sign-out')).statusCode, 200)
      // Signed in as an owner, then the session passes its absolute expiry.
      const late = await memberOf(t, orgId, 'owner')
      expired = late.client
      await t.db
        .updateTable('dashboard_sessions')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where(
          'account_id',
          '=',
          (
            await t.db
              .selectFrom('accounts')
              .select('id')
              .where('email', '=', late.email)
              .executeTakeFirstOrThrow()
          ).id,
        )
        .execute()
    })

    for (const route of sessionRoutes) {
      test(`${label(route)}: no session, an ended and an expired one get 401 session_required`, async () => {
        const anonymous = await dashboardClient(t)
        for (const [name, client] of [
          ['no session', anonymous],
          ['ended', ended],
          ['expired', expired],
        ] as const) {
          assertError(await call(client, route), 401, 'session_required', `${label(route)} ${name}`)
        }
      })
    }
  })

  describe('dashboard routes: roles', () => {
    for (const route of memberRoutes.filter((r) => RANK[r.role!]! > 0)) {
      for (const role of ['viewer', 'developer'].filter((r) => RANK[r]! < RANK[route.role!]!)) {
        test(`${label(route)}: a ${role} gets 403 role_required`, async () => {
          const error = assertError(
            await call(byRole[role]!.client, route),
            403,
            'role_required',
            label(route),
          )
          assert.equal(error.message, `This needs the ${route.role} role.`)
        })
      }
    }
    test('the routes below owner pass for a viewer (nothing else is refused)', async () => {
      for (const route of memberRoutes.filter((r) => r.role === 'viewer' && r.method === 'GET')) {
        const res = await call(byRole.viewer!.client, route)
        assert.equal(res.statusCode, 200, `${label(route)}: ${res.body}`)
      }
    })
  })

  describe('dashboard routes: operators and members', () => {
    let operator: Awaited<ReturnType<typeof operatorOf>>
    before(async () => {
      operator = await operatorOf(t)
    })

    test('there are operator routes, and the account routes are open to both kinds', () => {
      assert.ok(operatorRoutes.length >= 1, `${operatorRoutes.length} operator routes`)
      assert.ok(sessionRoutes.some((r) => r.accounts === 'any'))
    })

    for (const route of operatorRoutes) {
      test(`${label(route)}: every member session (owner, developer, viewer) gets 403 role_required`, async () => {
        for (const client of [owner.client, byRole.developer!.client, byRole.viewer!.client]) {
          const error = assertError(await call(client, route), 403, 'role_required', label(route))
          assert.equal(error.message, 'This needs an operator account.')
        }
      })
      if (route.method === 'GET') {
        test(`${label(route)}: an operator passes`, async () => {
          const res = await call(operator.client, route)
          assert.equal(res.statusCode, 200, `${label(route)}: ${res.body}`)
        })
      }
    }

    for (const route of memberRoutes.filter((r) => r.accounts === 'member')) {
      test(`${label(route)}: an operator's session gets 403 role_required`, async () => {
        const error = assertError(await call(operator.client, route), 403, 'role_required', label(route))
        assert.match(error.message, /member of an organization/)
      })
    }

    test('the account routes (any account) pass for an operator', async () => {
      for (const route of sessionRoutes.filter((r) => r.accounts === 'any' && r.method === 'GET')) {
        const res = await call(operator.client, route)
        assert.equal(res.statusCode, 200, `${label(route)}: ${res.body}`)
      }
    })
  })

  describe('dashboard routes: another organization', () => {
    let stranger: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      stranger = await memberOf(t, (await t.createOrganization('Stranger Org')).id, 'owner')
    })

    // Signing out ends the stranger's session: last.
    const signOutLast = [...sessionRoutes].sort(
      (a, b) => Number(a.url.endsWith('/sign-out')) - Number(b.url.endsWith('/sign-out')),
    )
    for (const route of signOutLast) {
      test(`${label(route)}: an owner of another organization sees and changes nothing of this one`, async () => {
        const res = await call(stranger.client, route)
        if (route.accounts === 'operator') assertError(res, 403, 'role_required', label(route))
        else if (route.url.includes(':')) assertError(res, 404, 'not_found', label(route))
        for (const marker of [owner.email, target.email, 'Generated Auth Org', orgId]) {
          assert.ok(!res.body.includes(marker), `${label(route)} reveals ${marker}`)
        }
        const members = (await owner.client.call('GET', '/members')).json().data as {
          id: string
          role: string
        }[]
        assert.equal(
          members.find((m) => m.id === target.id)?.role,
          'viewer',
          `${label(route)}: the target is unchanged`,
        )
      })
    }
  })

  describe('dashboard routes: CSRF on every change', () => {
    for (const route of routes.filter((r) => r.method !== 'GET')) {
      test(`${label(route)}: without the token, or from another origin, 403 csrf_failed`, async () => {
        const client = route.auth === 'session' ? owner.client : await dashboardClient(t)
        assertError(await call(client, route, { csrf: null }), 403, 'csrf_failed', `${label(route)} no token`)
        assertError(
          await call(client, route, { origin: 'https://attacker.example' }),
          403,
          'csrf_failed',
          `${label(route)} origin`,
        )
      })
    }
  })

  test('the refusals above revoked and removed nothing', async () => {
    const row = await t.db
      .selectFrom('invitations')
      .select('revoked_at')
      .where('id', '=', invitationId)
      .executeTakeFirstOrThrow()
    assert.equal(row.revoked_at, null)
    assert.ok(await t.db.selectFrom('operators').select('id').where('id', '=', operatorId).executeTakeFirst())
  })
})

describe('the CSRF token and the Origin check', () => {
  /**
   * Every state-changing dashboard call checks Origin and the CSRF token; a
   * refused one changes nothing. (Every route gets these cases from the route
   * table, in this file's first describe; here they are told as attacks.)
   */
  const t = useTestApp()

  describe('CSRF', () => {
    let orgId: string
    let owner: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      orgId = (await t.createOrganization('CSRF Org')).id
      owner = await memberOf(t, orgId, 'owner')
    })

    const invitationCount = async () =>
      Number(
        (
          await t.db
            .selectFrom('invitations')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('organization_id', '=', orgId)
            .executeTakeFirstOrThrow()
        ).n,
      )

    test("a cross-origin form post with the victim's cookies is refused and invites no one", async () => {
      const before = await invitationCount()
      // What a page elsewhere can make a browser send: a form post, the cookies
      // of a Lax top-level navigation, its own Origin, no custom header.
      const res = await t.app.inject({
        method: 'POST',
        url: '/dashboard/api/invitations',
        headers: {
          origin: 'https://attacker.example',
          cookie: cookieHeader(owner.client.cookies),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: `email=${encodeURIComponent(uniqueEmail('attacker'))}&role=owner`,
      })
      const error = assertError(res, 403, 'csrf_failed', 'cross-origin form post')
      assert.match(error.message, /Origin/)
      assert.equal(await invitationCount(), before)
    })

    test('the right Origin without the token, or with a wrong one, is refused', async () => {
      const before = await invitationCount()
      const body = { email: uniqueEmail(), role: 'viewer' }
      const missing = await owner.client.call('POST', '/invitations', body, { csrf: null })
      assert.match(assertError(missing, 403, 'csrf_failed', 'no token').message, /X-CSRF-Token/)
      const wrong = await owner.client.call('POST', '/invitations', body, { csrf: `${owner.client.csrf}x` })
      assertError(wrong, 403, 'csrf_failed', 'wrong token')
      // The token of another browser does not fit this one's cookie.
      const other = await dashboardClient(t)
      const foreign = await owner.client.call('POST', '/invitations', body, { csrf: other.csrf })
      assertError(foreign, 403, 'csrf_failed', "another browser's token")
      assert.equal(await invitationCount(), before)
      const ok = await owner.client.call('POST', '/invitations', body)
      assert.equal(ok.statusCode, 201, ok.body)
      assert.equal(await invitationCount(), before + 1)
    })

    test('a missing Origin, or another origin with the right token, is refused', async () => {
      const body = { email: uniqueEmail(), role: 'viewer' }
      assertError(
        await owner.client.call('POST', '/invitations', body, { origin: null }),
        403,
        'csrf_failed',
        'none',
      )
      for (const origin of ['http://api.test.attacker.example', 'https://api.test', 'null']) {
        const res = await owner.client.call('POST', '/invitations', body, { origin })
        assertError(res, 403, 'csrf_failed', origin)
      }
    })

    test('the service reached under another host name accepts that origin (same scheme)', async () => {
      const res = await owner.client.call(
        'POST',
        '/invitations',
        { email: uniqueEmail(), role: 'viewer' },
        { origin: 'http://dashboard.internal:8080', headers: { host: 'dashboard.internal:8080' } },
      )
      assert.equal(res.statusCode, 201, res.body)
      assert.ok(PUBLIC_BASE_URL.startsWith('http:'))
    })

    test('sign-in needs the token too (no login CSRF), and sign-out', async () => {
      const client = await dashboardClient(t)
      const res = await client.call(
        'POST',
        '/sign-in',
        { email: owner.email, password: PASSWORD },
        { csrf: null },
      )
      assertError(res, 403, 'csrf_failed', 'sign-in without token')
      assert.deepEqual(res.headers['set-cookie'], undefined)
      assertError(
        await owner.client.call('POST', '/sign-out', undefined, { csrf: null }),
        403,
        'csrf_failed',
        'out',
      )
      assert.equal((await owner.client.call('GET', '/members')).statusCode, 200, 'still signed in')
    })

    test('GET /session hands out one token per browser and keeps it', async () => {
      const client = await dashboardClient(t)
      const first = client.csrf
      assert.match(first, /^\w{43}$/)
      await client.session()
      assert.equal(client.csrf, first)
      assert.equal(client.cookies.get('dashboard_csrf'), first)
    })
  })
})

describe('TRUST_PROXY and the client address', () => {
  /** The address the audit log and the session list show for a sign-in made by `client`. */
  async function recordedAddresses(client: DashboardClient, email: string) {
    const res = await client.call('POST', '/sign-in', { email, password: PASSWORD })
    assert.equal(res.statusCode, 200, res.body)
    const audit = (await client.call('GET', '/audit-log?limit=100')).json().data
    const entry = audit.find(
      (e: { action: string; subject: string }) => e.action === 'member.signed_in' && e.subject === email,
    )
    assert.ok(entry, JSON.stringify(audit))
    const sessions = (await client.call('GET', '/account/sessions')).json().data
    const current = sessions.find((s: { current: boolean }) => s.current)
    return { audit: entry.address as string, session: current.address as string }
  }

  /** Spends an address's sign-in attempts on unknown accounts (spraying). */
  async function spray(client: DashboardClient) {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      const res = await client.call('POST', '/sign-in', { email: uniqueEmail('guess'), password: 'a guess' })
      assertError(res, 401, 'sign_in_failed', `attempt ${i + 1}`)
    }
  }

  function proxyApp(trustProxy?: TrustProxy) {
    const ctx = {} as { app: TestApp; orgId: string }
    before(async () => {
      ctx.app = await createTestApp(trustProxy === undefined ? {} : { trustProxy })
      ctx.orgId = (await ctx.app.createOrganization('Proxy Org')).id
    })
    after(() => ctx.app.close())
    return ctx
  }

  describe('TRUST_PROXY unset: X-Forwarded-For is ignored', () => {
    const t = proxyApp()

    test('a forged X-Forwarded-For changes neither the recorded address nor the throttle', async () => {
      const { email } = await memberOf(t.app, t.orgId, 'viewer')
      const direct = await dashboardClient(t.app, {
        address: '10.20.0.1',
        headers: { 'x-forwarded-for': '203.0.113.7' },
      })
      assert.deepEqual(await recordedAddresses(direct, email), { audit: '10.20.0.1', session: '10.20.0.1' })

      const attacker = await dashboardClient(t.app, { address: '10.20.0.2' })
      for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
        const res = await attacker.call(
          'POST',
          '/sign-in',
          { email: uniqueEmail('guess'), password: 'a guess' },
          { headers: { 'x-forwarded-for': `198.51.100.${i + 1}` } },
        )
        assertError(res, 401, 'sign_in_failed', `attempt ${i + 1}`)
      }
      const res = await attacker.call(
        'POST',
        '/sign-in',
        { email, password: PASSWORD },
        { headers: { 'x-forwarded-for': '198.51.100.200' } },
      )
      assertError(res, 429, 'sign_in_throttled', 'a new forged address each time')
      assert.ok(Number(res.headers['retry-after']) >= 1)
    })
  })

  for (const [label, trustProxy] of [
    ['one hop', 1],
    ['the proxy by CIDR', ['10.99.0.0/16']],
  ] as const) {
    describe(`TRUST_PROXY trusts ${label}: addresses are the clients'`, () => {
      const t = proxyApp(trustProxy)
      const viaProxy = (client: string) =>
        dashboardClient(t.app, { address: '10.99.0.1', headers: { 'x-forwarded-for': client } })

      test('the audit log and the session list record the client, not the proxy', async () => {
        const { email } = await memberOf(t.app, t.orgId, 'viewer')
        const client = await viaProxy('198.51.100.10')
        assert.deepEqual(await recordedAddresses(client, email), {
          audit: '198.51.100.10',
          session: '198.51.100.10',
        })
      })

      test("one client's failed attempts through the proxy do not lock out another", async () => {
        const attacker = await viaProxy('198.51.100.20')
        await spray(attacker)
        const { email } = await memberOf(t.app, t.orgId, 'viewer')
        const refused = await attacker.call('POST', '/sign-in', { email, password: PASSWORD })
        assertError(refused, 429, 'sign_in_throttled', 'the attacker is throttled')
        assert.ok(Number(refused.headers['retry-after']) >= 1)
        const other = await viaProxy('198.51.100.21')
        const ok = await other.call('POST', '/sign-in', { email, password: PASSWORD })
        assert.equal(ok.statusCode, 200, ok.body)
      })

      test("an address the client wrote before the proxy's is not believed", async () => {
        const { email } = await memberOf(t.app, t.orgId, 'viewer')
        const client = await viaProxy('203.0.113.66, 198.51.100.30')
        assert.deepEqual(await recordedAddresses(client, email), {
          audit: '198.51.100.30',
          session: '198.51.100.30',
        })
      })
    })
  }

  describe('TRUST_PROXY by CIDR: a peer outside the list is not a proxy', () => {
    const t = proxyApp(['10.99.0.0/16'])

    test('its X-Forwarded-For is ignored', async () => {
      const { email } = await memberOf(t.app, t.orgId, 'viewer')
      const direct = await dashboardClient(t.app, {
        address: '192.0.2.50',
        headers: { 'x-forwarded-for': '198.51.100.40' },
      })
      assert.deepEqual(await recordedAddresses(direct, email), { audit: '192.0.2.50', session: '192.0.2.50' })
    })
  })
})
