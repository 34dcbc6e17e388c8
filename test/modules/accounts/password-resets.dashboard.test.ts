import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { Writable } from 'node:stream'
import { before, describe, test } from 'node:test'
import { PASSWORD_RESET_TTL_MS } from '../../../src/modules/accounts/limits.ts'
import { manualClock, useTestApp } from '../../helpers/app.ts'
import {
  type DashboardClient,
  dashboardClient,
  memberOf,
  operatorOf,
  PASSWORD,
  tokenOf,
} from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'

const NEW_PASSWORD = 'a new password, long enough'

describe('password resets: an owner or an operator issues a link, it works once and ends every session', () => {
  const clock = manualClock(new Date())
  let logged = ''
  const t = useTestApp({
    clock,
    logger: {
      level: 'info',
      stream: new Writable({
        write(chunk, _encoding, done) {
          logged += String(chunk)
          done()
        },
      }),
    },
  })
  let orgId: string
  let owner: Awaited<ReturnType<typeof memberOf>>
  before(async () => {
    orgId = (await t.createOrganization('Reset Prints')).id
    owner = await memberOf(t, orgId, 'owner')
  })

  const signIn = async (email: string, password: string) => {
    const client = await dashboardClient(t)
    const res = await client.call('POST', '/sign-in', { email, password })
    return { client, res }
  }
  const issue = async (by: DashboardClient, memberId: string) => {
    const res = await by.call('POST', `/members/${memberId}/password-reset`)
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data as {
      password_reset: { email: string; created_at: string; expires_at: string; replaced: boolean }
      url: string
    }
  }
  const orgLog = async () =>
    (await owner.client.call('GET', '/audit-log?limit=100')).json().data as {
      action: string
      summary: string
      details: Record<string, unknown>
    }[]

  test("the owner's link: shown once, stored hashed; using it sets the password, ends every session and signs in", async () => {
    const member = await memberOf(t, orgId, 'developer')
    const second = await signIn(member.email, PASSWORD)
    assert.equal(second.res.statusCode, 200, second.res.body)

    const issued = await issue(owner.client, member.id)
    assert.equal(issued.password_reset.email, member.email)
    assert.equal(issued.password_reset.replaced, false)
    assert.equal(
      new Date(issued.password_reset.expires_at).getTime() -
        new Date(issued.password_reset.created_at).getTime(),
      PASSWORD_RESET_TTL_MS,
    )
    const url = new URL(issued.url)
    assert.equal(url.pathname, '/dashboard/password-reset', 'the token is in the fragment, never sent')
    const token = tokenOf(issued.url)
    assert.ok(token.length >= 40)
    const stored = await t.db.selectFrom('password_resets').select('token_hash').execute()
    assert.ok(stored.length > 0 && stored.every((r) => r.token_hash !== token), 'only its hash is stored')

    const visitor = await dashboardClient(t)
    const preview = await visitor.call('POST', '/password-resets/lookup', { token })
    assert.equal(preview.statusCode, 200, preview.body)
    assert.deepEqual(preview.json().data, {
      email: member.email,
      expires_at: issued.password_reset.expires_at,
    })
    // Looking it up uses nothing: the member still has both sessions.
    assert.equal((await member.client.call('GET', '/members')).statusCode, 200)

    const used = await visitor.call('POST', '/password-resets/use', { token, password: NEW_PASSWORD })
    assert.equal(used.statusCode, 200, used.body)
    assert.equal(used.json().data.member.email, member.email)
    assert.equal((await visitor.call('GET', '/members')).statusCode, 200, 'signed in by the link')
    for (const ended of [member.client, second.client]) {
      assertError(await ended.call('GET', '/members'), 401, 'session_required', 'every earlier session ended')
    }
    assertError((await signIn(member.email, PASSWORD)).res, 401, 'sign_in_failed', 'the old password')
    assert.equal((await signIn(member.email, NEW_PASSWORD)).res.statusCode, 200, 'the new one')

    const again = await dashboardClient(t)
    assertError(
      await again.call('POST', '/password-resets/use', { token, password: 'yet another password!' }),
      404,
      'password_reset_invalid',
      'second use',
    )
    assertError(await again.call('POST', '/password-resets/lookup', { token }), 404, 'password_reset_invalid')

    const log = await orgLog()
    assert.equal(
      log.find((e) => e.action === 'member.password_reset')!.summary,
      `${member.email} set a new password with a reset link and ended 2 sessions`,
    )
    const issuedEntry = log.find((e) => e.action === 'member.password_reset_issued')!
    assert.equal(issuedEntry.summary, `${owner.email} issued a password reset link for ${member.email}`)
    assert.ok(!JSON.stringify(log).includes(token), 'the token is not in the audit log')
    assert.ok(!logged.includes(token), 'nor in the service log')
  })

  test('a link expires after an hour; a newer link or a password change makes an unused one void; unknown tokens get the same answer', async () => {
    const member = await memberOf(t, orgId, 'viewer')
    const visitor = await dashboardClient(t)
    const expiring = tokenOf((await issue(owner.client, member.id)).url)
    clock.advance(PASSWORD_RESET_TTL_MS - 1000)
    assert.equal((await visitor.call('POST', '/password-resets/lookup', { token: expiring })).statusCode, 200)
    clock.advance(1000)
    const expired = assertError(
      await visitor.call('POST', '/password-resets/use', { token: expiring, password: NEW_PASSWORD }),
      404,
      'password_reset_invalid',
      'expired',
    )
    const unknown = assertError(
      await visitor.call('POST', '/password-resets/use', { token: 'x'.repeat(43), password: NEW_PASSWORD }),
      404,
      'password_reset_invalid',
      'unknown',
    )
    assert.deepEqual(expired, unknown)

    const first = tokenOf((await issue(owner.client, member.id)).url)
    const newer = await issue(owner.client, member.id)
    assert.equal(newer.password_reset.replaced, true)
    assertError(
      await visitor.call('POST', '/password-resets/lookup', { token: first }),
      404,
      'password_reset_invalid',
      'replaced',
    )
    assert.equal((await orgLog())[0]!.summary.endsWith('(the unused earlier link no longer works)'), true)

    const changed = await member.client.call('POST', '/account/password', {
      current_password: PASSWORD,
      new_password: NEW_PASSWORD,
    })
    assert.equal(changed.statusCode, 200, changed.body)
    assertError(
      await visitor.call('POST', '/password-resets/lookup', { token: tokenOf(newer.url) }),
      404,
      'password_reset_invalid',
      'void after the password changed',
    )
  })

  test('two uses of one link at once: one sets the password, the other is refused', async () => {
    const member = await memberOf(t, orgId, 'viewer')
    const token = tokenOf((await issue(owner.client, member.id)).url)
    const [a, b] = await Promise.all([dashboardClient(t), dashboardClient(t)])
    const answers = await Promise.all([
      a.call('POST', '/password-resets/use', { token, password: 'the first new password' }),
      b.call('POST', '/password-resets/use', { token, password: 'the second new password' }),
    ])
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 404])
    const winner = answers[0]!.statusCode === 200 ? 'the first new password' : 'the second new password'
    assert.equal((await signIn(member.email, winner)).res.statusCode, 200)
    const entries = (await orgLog()).filter((e) => e.action === 'member.password_reset')
    assert.equal(entries.filter((e) => e.summary.startsWith(member.email)).length, 1, 'one use recorded')
  })

  test('only owners issue, for members of their own organization; bad input changes nothing', async () => {
    const developer = await memberOf(t, orgId, 'developer')
    const viewer = await memberOf(t, orgId, 'viewer')
    const count = async () => (await t.db.selectFrom('password_resets').select('id').execute()).length
    const before = await count()
    assertError(
      await developer.client.call('POST', `/members/${viewer.id}/password-reset`),
      403,
      'role_required',
    )
    const otherOrg = await t.createOrganization('Elsewhere')
    const stranger = await memberOf(t, otherOrg.id, 'viewer')
    for (const id of [stranger.id, randomUUID(), 'not-an-id']) {
      assertError(await owner.client.call('POST', `/members/${id}/password-reset`), 404, 'not_found', id)
    }
    assertError(
      await owner.client.call('POST', `/members/${viewer.id}/password-reset`, undefined, { csrf: null }),
      403,
      'csrf_failed',
    )
    assert.equal(await count(), before, 'no link made')

    const token = tokenOf((await issue(owner.client, viewer.id)).url)
    const visitor = await dashboardClient(t)
    assertValidation(await visitor.call('POST', '/password-resets/use', { token, password: 'short' }), [
      ['too_short', 'password'],
    ])
    assertValidation(
      await visitor.call('POST', '/password-resets/use', { token: '', password: NEW_PASSWORD }),
      [['too_short', 'token']],
    )
    assertValidation(
      await visitor.call('POST', '/password-resets/use', { token, password: `${NEW_PASSWORD}\u0000` }),
      [['invalid_format', 'password']],
    )
    assert.equal(
      (await visitor.call('POST', '/password-resets/lookup', { token })).statusCode,
      200,
      'still usable',
    )
    assert.equal((await viewer.client.call('GET', '/members')).statusCode, 200, 'sessions untouched')
    assert.equal((await signIn(viewer.email, PASSWORD)).res.statusCode, 200, 'password unchanged')
  })

  test('operators issue links for members in the console and for anyone by email on /admin/v1', async () => {
    const member = await memberOf(t, orgId, 'developer')
    const operator = await operatorOf(t)
    const byConsole = await operator.client.call(
      'POST',
      `/operator/organizations/${orgId}/members/${member.id}/password-reset`,
    )
    assert.equal(byConsole.statusCode, 201, byConsole.body)
    assert.equal(byConsole.json().data.password_reset.email, member.email)
    const entry = (await orgLog()).find((e) => e.action === 'member.password_reset_issued')!
    assert.equal(entry.summary, `${operator.email} issued a password reset link for ${member.email}`)
    const platform = (await operator.client.call('GET', '/operator/audit-log?limit=100')).json().data
    assert.ok(
      platform.some((e: { action: string; subject: string }) => e.action === 'member.password_reset_issued'),
      "in the platform's log too",
    )
    assertError(
      await operator.client.call(
        'POST',
        `/operator/organizations/${randomUUID()}/members/${member.id}/password-reset`,
      ),
      404,
      'not_found',
    )
    assertError(
      await member.client.call(
        'POST',
        `/operator/organizations/${orgId}/members/${member.id}/password-reset`,
      ),
      403,
      'role_required',
      'a member is no operator',
    )

    // An operator who forgot the password: the operator token issues by email, the link signs in as operator.
    const other = await operatorOf(t)
    const admin = await t.admin('POST', '/admin/v1/password-resets', { email: other.email.toUpperCase() })
    assert.equal(admin.statusCode, 201, admin.body)
    const visitor = await dashboardClient(t)
    const used = await visitor.call('POST', '/password-resets/use', {
      token: tokenOf(admin.json().data.url),
      password: NEW_PASSWORD,
    })
    assert.equal(used.statusCode, 200, used.body)
    assert.equal(used.json().data.kind, 'operator')
    assertError(
      await other.client.call('GET', '/operator/audit-log'),
      401,
      'session_required',
      'its session ended',
    )
    const ops = (await operator.client.call('GET', '/operator/audit-log?limit=100')).json().data
    assert.equal(
      ops.find((e: { action: string }) => e.action === 'operator.password_reset_issued').summary,
      `operator token issued a password reset link for ${other.email}`,
    )

    assertError(
      await t.admin('POST', '/admin/v1/password-resets', { email: 'nobody@example.com' }),
      404,
      'not_found',
    )
    assertValidation(await t.admin('POST', '/admin/v1/password-resets', { email: 'not an email' }), [
      ['invalid_format', 'email'],
    ])
  })
})
