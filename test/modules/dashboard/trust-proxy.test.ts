import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { TrustProxy } from '../../../src/config.ts'
import { SIGN_IN_LIMITS } from '../../../src/modules/accounts/limits.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import {
  type DashboardClient,
  dashboardClient,
  memberOf,
  PASSWORD,
  uniqueEmail,
} from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

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
