import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { PUBLIC_BASE_URL, useTestApp } from '../../helpers/app.ts'
import { cookieHeader, dashboardClient, memberOf, PASSWORD, uniqueEmail } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

/**
 * Every state-changing dashboard call checks Origin and the CSRF token; a
 * refused one changes nothing. (Every route gets these cases in
 * dashboard.auth.routes.test.ts; here they are told as attacks.)
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
