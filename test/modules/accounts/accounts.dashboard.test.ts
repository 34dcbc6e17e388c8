import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SIGN_IN_LIMITS } from '../../../src/modules/accounts/limits.ts'
import { createTestApp, manualClock, TEST_REDIS_URL, type TestApp, useTestApp } from '../../helpers/app.ts'
import {
  cookieHeader,
  dashboardClient,
  memberOf,
  PASSWORD,
  randomAddress,
  setCookies,
  uniqueEmail,
} from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

describe('sign-in, sessions and sign-in throttling', () => {
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })

  async function signIn(email: string, password = PASSWORD, address = randomAddress()) {
    const client = await dashboardClient(t, { address })
    const res = await client.call('POST', '/sign-in', { email, password })
    return { client, res }
  }

  async function sessionRows(email: string) {
    return t.db
      .selectFrom('dashboard_sessions')
      .innerJoin('accounts', 'accounts.id', 'dashboard_sessions.account_id')
      .selectAll('dashboard_sessions')
      .where('accounts.email', '=', email)
      .orderBy('dashboard_sessions.id')
      .execute()
  }

  describe('sign-in and the session cookie', () => {
    let orgId: string
    before(async () => {
      orgId = (await t.createOrganization('Session Org')).id
    })

    test('signs in with email and password; the cookie is HttpOnly, SameSite=Lax, not Secure over http', async () => {
      const { email } = await memberOf(t, orgId, 'developer')
      const { client, res } = await signIn(email.toUpperCase())
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.member.email, email)
      assert.equal(res.json().data.member.role, 'developer')
      const cookie = setCookies(res).find((c) => c.startsWith('dashboard_session='))
      assert.ok(cookie, setCookies(res).join(' | '))
      const attributes = cookie.split('; ').slice(1)
      assert.deepEqual(attributes.sort(), [
        'HttpOnly',
        `Max-Age=${SESSION_ABSOLUTE_MS / 1000}`,
        'Path=/',
        'SameSite=Lax',
      ])
      assert.equal(res.headers['cache-control'], 'no-store')

      const session = await client.session()
      assert.equal(session.json().data.member.email, email)
      const members = await client.call('GET', '/members')
      assert.equal(members.statusCode, 200)
    })

    test('the session token and the password are stored only as hashes', async () => {
      const { email, client } = await memberOf(t, orgId, 'viewer')
      const token = client.cookies.get('dashboard_session')!
      const [row] = await sessionRows(email)
      assert.ok(row)
      assert.notEqual(row.token_hash, token)
      assert.match(row.token_hash, /^[0-9a-f]{64}$/)
      const account = await t.db
        .selectFrom('accounts')
        .selectAll()
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
      // scrypt at the test apps' cost (the service's own: test/modules/accounts/passwords.unit.test.ts).
      assert.match(account.password_hash, /^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
      assert.ok(!JSON.stringify(account).includes(PASSWORD))
    })

    test('an unknown email and a wrong password get the same 401, and no cookie', async () => {
      const { email } = await memberOf(t, orgId, 'viewer')
      const wrong = await signIn(email, 'not the password at all')
      const unknown = await signIn(uniqueEmail('nobody'))
      const a = assertError(wrong.res, 401, 'sign_in_failed', 'wrong password')
      const b = assertError(unknown.res, 401, 'sign_in_failed', 'unknown email')
      assert.deepEqual(a, b)
      assert.deepEqual(setCookies(wrong.res), [])
      assert.deepEqual(setCookies(unknown.res), [])
    })

    test('an unknown email takes as long as a wrong password (both hash; the throttles come first for both)', async () => {
      // At the service's own cost: at the test apps' cheap one the machine's noise is larger than a hash.
      const real = await createTestApp({ servicePasswordCost: true })
      after(() => real.close())
      const { email } = await memberOf(real, (await real.createOrganization()).id, 'viewer')
      const client = await dashboardClient(real)
      // The work each answer costs, in CPU time of this process (scrypt's threads included): unlike the
      // time on the clock, it does not grow when other processes share the machine.
      const time = async (who: string) => {
        const start = process.cpuUsage()
        const res = await client.call('POST', '/sign-in', { email: who, password: 'not the password at all' })
        assertError(res, 401, 'sign_in_failed', who)
        const used = process.cpuUsage(start)
        return (used.user + used.system) / 1000
      }
      const median = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1]!
      const known: number[] = []
      const unknown: number[] = []
      // Alternating, so that a slow moment of the machine falls on both; 8 attempts, 4 on the account, stay under the limits.
      for (let i = 0; i < 4; i++) {
        known.push(await time(email))
        unknown.push(await time(uniqueEmail('nobody')))
      }
      const [k, u] = [median(known), median(unknown)]
      assert.ok(
        u > k * 0.6 && u < k * 1.6,
        `median ${u.toFixed(0)} ms of CPU unknown, ${k.toFixed(0)} ms known`,
      )
    })

    test('over https the cookies are Secure with the __Host- prefix', async () => {
      const https = await createTestApp({ publicBaseUrl: 'https://dashboard.example' })
      try {
        const org = await https.createOrganization()
        const { client, email } = await memberOf(https, org.id, 'owner', {
          origin: 'https://dashboard.example',
        })
        assert.ok(client.cookies.has('__Host-dashboard_session'))
        assert.ok(client.cookies.has('__Host-dashboard_csrf'))
        const fresh = await dashboardClient(https, { origin: 'https://dashboard.example' })
        const res = await fresh.call('POST', '/sign-in', { email, password: PASSWORD })
        assert.equal(res.statusCode, 200, res.body)
        for (const cookie of setCookies(res)) {
          assert.match(cookie, /^__Host-/)
          assert.match(cookie, /; Secure(;|$)/)
          assert.match(cookie, /; Path=\//)
          assert.doesNotMatch(cookie, /Domain=/i)
        }
        const invite = await https.admin('POST', `/admin/v1/organizations/${org.id}/invitations`, {
          email: uniqueEmail(),
        })
        assert.match(
          invite.json().data.url,
          /^https:\/\/dashboard\.example\/dashboard\/invitation#token=\w{43}$/,
        )
      } finally {
        await https.close()
      }
    })

    test('sign-out ends the session: the cookie is cleared and no longer works', async () => {
      const { client } = await memberOf(t, orgId, 'viewer')
      const token = client.cookies.get('dashboard_session')!
      const res = await client.call('POST', '/sign-out')
      assert.equal(res.statusCode, 200, res.body)
      assert.ok(setCookies(res).some((c) => /^dashboard_session=;.*Max-Age=0/.test(c)))
      const replay = await t.app.inject({
        method: 'GET',
        url: '/dashboard/api/members',
        headers: { cookie: cookieHeader(new Map([['dashboard_session', token]])) },
      })
      assertError(replay, 401, 'session_required', 'after sign-out')
      assert.equal((await client.session()).json().data.member, null)
    })

    test('a session ends after the idle limit, and after the absolute limit however active', async () => {
      const start = clock.now().getTime()
      const { client: idle } = await memberOf(t, orgId, 'viewer')
      const { client: busy } = await memberOf(t, orgId, 'viewer')
      clock.advance(SESSION_IDLE_MS - 60_000)
      assert.equal((await idle.call('GET', '/members')).statusCode, 200, 'still within the idle limit')
      clock.advance(SESSION_IDLE_MS - 60_000)
      assert.equal((await idle.call('GET', '/members')).statusCode, 200, 'the last request restarted it')
      clock.advance(SESSION_IDLE_MS)
      assertError(await idle.call('GET', '/members'), 401, 'session_required', 'idle')

      // The busy one, from the same start: a request every half idle limit, up to the absolute limit.
      for (let at = start; at < start + SESSION_ABSOLUTE_MS; at += SESSION_IDLE_MS / 2) {
        clock.set(new Date(at))
        assert.equal((await busy.call('GET', '/members')).statusCode, 200, `at ${new Date(at).toISOString()}`)
      }
      clock.set(new Date(start + SESSION_ABSOLUTE_MS))
      assertError(await busy.call('GET', '/members'), 401, 'session_required', 'absolute')
      clock.set(new Date(start + SESSION_ABSOLUTE_MS + 60_000))
    })

    test('sessions name their browser in words and keep the User-Agent as sent', async () => {
      const { email } = await memberOf(t, orgId, 'developer')
      const chrome =
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
      const browser = await dashboardClient(t, { headers: { 'user-agent': chrome } })
      assert.equal((await browser.call('POST', '/sign-in', { email, password: PASSWORD })).statusCode, 200)
      const script = await dashboardClient(t, { headers: { 'user-agent': 'curl/8.5.0' } })
      assert.equal((await script.call('POST', '/sign-in', { email, password: PASSWORD })).statusCode, 200)
      const listed = (await browser.call('GET', '/account/sessions')).json().data as Record<string, unknown>[]
      const byAgent = Object.fromEntries(listed.map((s) => [s.user_agent, s.browser]))
      // memberOf's own sign-in came from the test client (lightMyRequest): no browser either.
      assert.deepEqual(byAgent, {
        [chrome]: 'Chrome 131 on Linux',
        'curl/8.5.0': undefined,
        lightMyRequest: undefined,
      })
      assert.ok(listed.every((s) => s.user_agent === chrome || !('browser' in s)))
    })

    test('"sign out other sessions" ends the others and keeps this one', async () => {
      const { email, client: first } = await memberOf(t, orgId, 'developer')
      const second = (await signIn(email)).client
      const third = (await signIn(email)).client
      const listed = await first.call('GET', '/account/sessions')
      assert.equal(listed.statusCode, 200)
      assert.equal(listed.json().data.length, 3)
      assert.equal(listed.json().data.filter((s: { current: boolean }) => s.current).length, 1)

      const res = await first.call('POST', '/account/sessions/sign-out-others')
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { sessions_ended: 2 } })
      assertError(await second.call('GET', '/members'), 401, 'session_required', 'second')
      assertError(await third.call('GET', '/members'), 401, 'session_required', 'third')
      assert.equal((await first.call('GET', '/members')).statusCode, 200)
      assert.equal((await first.call('GET', '/account/sessions')).json().data.length, 1)
    })

    test('a password change ends the other sessions; the old password stops working', async () => {
      const { email, client } = await memberOf(t, orgId, 'viewer')
      const other = (await signIn(email)).client
      const newPassword = 'a different passphrase entirely'

      const wrong = await client.call('POST', '/account/password', {
        current_password: 'not the password',
        new_password: newPassword,
      })
      assertError(wrong, 403, 'password_incorrect', 'wrong current password')
      const short = await client.call('POST', '/account/password', {
        current_password: PASSWORD,
        new_password: 'short',
      })
      assertError(short, 422, 'validation_failed', 'too short')
      assert.equal((await other.call('GET', '/members')).statusCode, 200, 'refused changes end nothing')

      const res = await client.call('POST', '/account/password', {
        current_password: PASSWORD,
        new_password: newPassword,
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json(), { data: { sessions_ended: 1 } })
      assertError(await other.call('GET', '/members'), 401, 'session_required', 'other session')
      assert.equal((await client.call('GET', '/members')).statusCode, 200, 'this session stays')
      assertError((await signIn(email)).res, 401, 'sign_in_failed', 'old password')
      assert.equal((await signIn(email, newPassword)).res.statusCode, 200)

      const audit = await client.call('GET', '/audit-log')
      const entry = audit.json().data.find((e: { action: string }) => e.action === 'member.password_changed')
      assert.equal(entry.subject, email)
      assert.deepEqual(entry.details, { sessions_ended: 1 })
    })
  })

  /** Throttling on the in-process limiter, and on Redis when the suite has it. */
  for (const backend of TEST_REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const)) {
    describe(`sign-in throttling (${backend})`, () => {
      let app: TestApp
      let orgId: string
      before(async () => {
        app = await createTestApp({ redis: backend === 'redis' })
        orgId = (await app.createOrganization('Throttle Org')).id
      })
      after(() => app.close())

      test(`per account and address: attempt ${SIGN_IN_LIMITS.perAccountAndAddress + 1} from one address is refused, right password or not`, async () => {
        const { email } = await memberOf(app, orgId, 'viewer')
        const attacker = await dashboardClient(app, { address: randomAddress() })
        for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
          const res = await attacker.call('POST', '/sign-in', { email, password: 'wrong password here' })
          assertError(res, 401, 'sign_in_failed', `attempt ${i + 1}`)
        }
        const res = await attacker.call('POST', '/sign-in', { email, password: PASSWORD })
        const error = assertError(res, 429, 'sign_in_throttled', 'over the limit')
        const retry = Number(res.headers['retry-after'])
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${res.headers['retry-after']}`)
        assert.equal(error.message, `Too many sign-in attempts; try again in ${retry} seconds.`)
        assert.deepEqual(setCookies(res), [])
        // Another account from the same address is not affected.
        const { email: other } = await memberOf(app, orgId, 'viewer')
        const ok = await attacker.call('POST', '/sign-in', { email: other, password: PASSWORD })
        assert.equal(ok.statusCode, 200, ok.body)
      })

      test("an attacker's failed attempts on an account do not lock out its owner at another address", async () => {
        const { email } = await memberOf(app, orgId, 'owner')
        const attacker = await dashboardClient(app, { address: randomAddress() })
        for (let i = 0; i <= SIGN_IN_LIMITS.perAccountAndAddress; i++) {
          await attacker.call('POST', '/sign-in', { email, password: 'wrong password here' })
        }
        assertError(
          await attacker.call('POST', '/sign-in', { email, password: PASSWORD }),
          429,
          'sign_in_throttled',
          'the attacker',
        )
        const owner = await dashboardClient(app, { address: randomAddress() })
        const res = await owner.call('POST', '/sign-in', { email, password: PASSWORD })
        assert.equal(res.statusCode, 200, res.body)
        assert.equal(res.json().data.member.email, email)
        // Each address has its own count: a second attacker address starts from zero, and is refused in turn.
        const second = await dashboardClient(app, { address: randomAddress() })
        for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
          const wrong = await second.call('POST', '/sign-in', { email, password: 'wrong password here' })
          assertError(wrong, 401, 'sign_in_failed', `second address, attempt ${i + 1}`)
        }
        assertError(
          await second.call('POST', '/sign-in', { email, password: PASSWORD }),
          429,
          'sign_in_throttled',
          'second attacker',
        )
      })

      test('the addresses of one IPv6 /64 are counted as one', async () => {
        const { email } = await memberOf(app, orgId, 'viewer')
        const { email: other } = await memberOf(app, orgId, 'viewer')
        // A /64 of the documentation range of this run's own (the Redis counters outlive the run).
        const [a, b] = [randomBytes(2).readUInt16BE(), randomBytes(2).readUInt16BE()]
        const net = `2001:db8:${a.toString(16)}:${b.toString(16)}`
        for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
          const client = await dashboardClient(app, { address: `${net}::${(i + 1).toString(16)}` })
          const res = await client.call('POST', '/sign-in', { email, password: 'wrong password here' })
          assertError(res, 401, 'sign_in_failed', `attempt ${i + 1}`)
        }
        const same = await dashboardClient(app, { address: `${net}:ffff::1` })
        assertError(
          await same.call('POST', '/sign-in', { email, password: PASSWORD }),
          429,
          'sign_in_throttled',
          'same /64',
        )
        const v4 = randomAddress()
        const mapped = await dashboardClient(app, { address: `::ffff:${v4}` })
        const ipv4 = await dashboardClient(app, { address: v4 })
        for (let i = 0; i < SIGN_IN_LIMITS.perAccountAndAddress; i++) {
          const client = i % 2 ? mapped : ipv4
          await client.call('POST', '/sign-in', { email: other, password: 'wrong password here' })
        }
        assertError(
          await mapped.call('POST', '/sign-in', { email: other, password: PASSWORD }),
          429,
          'sign_in_throttled',
          'IPv4 and IPv4-mapped IPv6 are one address',
        )
        const next = await dashboardClient(app, {
          address: `2001:db8:${a.toString(16)}:${((b + 1) % 65536).toString(16)}::1`,
        })
        assert.equal((await next.call('POST', '/sign-in', { email, password: PASSWORD })).statusCode, 200)
      })

      test(`per address: attempt ${SIGN_IN_LIMITS.perAddress + 1} from one address is refused`, async () => {
        const address = randomAddress()
        const client = await dashboardClient(app, { address })
        for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
          const res = await client.call('POST', '/sign-in', {
            email: uniqueEmail('guess'),
            password: 'password guess',
          })
          assertError(res, 401, 'sign_in_failed', `attempt ${i + 1}`)
        }
        const { email } = await memberOf(app, orgId, 'viewer')
        assertError(
          await client.call('POST', '/sign-in', { email, password: PASSWORD }),
          429,
          'sign_in_throttled',
          'same address',
        )
        const elsewhere = await dashboardClient(app)
        assert.equal(
          (await elsewhere.call('POST', '/sign-in', { email, password: PASSWORD })).statusCode,
          200,
        )
      })
    })
  }
})
