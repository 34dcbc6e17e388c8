import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { before, describe, test } from 'node:test'
import { INVITATION_TTL_MS } from '../../../../src/modules/accounts/limits.ts'
import { manualClock, useTestApp } from '../../../helpers/app.ts'
import {
  dashboardClient,
  memberOf,
  operatorInvite,
  PASSWORD,
  tokenOf,
  uniqueEmail,
} from '../../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../../helpers/errors.ts'

describe('members, invitations, roles and the audit log', () => {
  const clock = manualClock(new Date())
  const t = useTestApp({ clock })

  async function auditActions(client: Awaited<ReturnType<typeof dashboardClient>>) {
    const res = await client.call('GET', '/audit-log')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.map((e: { action: string; subject: string }) => `${e.action} ${e.subject}`)
  }

  describe('invitations', () => {
    let orgId: string
    before(async () => {
      orgId = (await t.createOrganization('Invite Org')).id
    })

    test('the operator invites: the link works once and makes a signed-in member of that role', async () => {
      const email = uniqueEmail('first')
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/invitations`, { email })
      assert.equal(res.statusCode, 201, res.body)
      const { invitation, url } = res.json().data
      assert.equal(invitation.email, email)
      assert.equal(invitation.role, 'owner', 'owner by default')
      assert.equal(
        new Date(invitation.expires_at).getTime() - new Date(invitation.created_at).getTime(),
        INVITATION_TTL_MS,
      )
      const token = tokenOf(url)
      const stored = await t.db
        .selectFrom('invitations')
        .selectAll()
        .where('id', '=', invitation.id)
        .executeTakeFirstOrThrow()
      assert.notEqual(stored.token_hash, token)

      const client = await dashboardClient(t)
      const preview = await client.call('POST', '/invitations/lookup', { token })
      assert.equal(preview.statusCode, 200, preview.body)
      assert.deepEqual(preview.json().data.organization.name, 'Invite Org')
      const accepted = await client.call('POST', '/invitations/accept', { token, password: PASSWORD })
      assert.equal(accepted.statusCode, 200, accepted.body)
      assert.equal(accepted.json().data.member.role, 'owner')
      assert.equal((await client.call('GET', '/members')).statusCode, 200)

      const again = await dashboardClient(t)
      assertError(
        await again.call('POST', '/invitations/accept', { token, password: PASSWORD }),
        404,
        'invitation_invalid',
        'second use',
      )
      assertError(
        await again.call('POST', '/invitations/lookup', { token }),
        404,
        'invitation_invalid',
        'lookup after use',
      )
      const actions = await auditActions(client)
      assert.deepEqual(actions.slice(0, 2), [`member.joined ${email}`, `member.invited ${email}`])
    })

    test('an invitation expires after 7 days; unknown tokens get the same answer', async () => {
      const token = await operatorInvite(t, orgId, uniqueEmail(), 'viewer')
      const client = await dashboardClient(t)
      clock.advance(INVITATION_TTL_MS - 1000)
      assert.equal((await client.call('POST', '/invitations/lookup', { token })).statusCode, 200)
      clock.advance(1000)
      const expired = assertError(
        await client.call('POST', '/invitations/accept', { token, password: PASSWORD }),
        404,
        'invitation_invalid',
        'expired',
      )
      const unknown = assertError(
        await client.call('POST', '/invitations/accept', { token: 'x'.repeat(43), password: PASSWORD }),
        404,
        'invitation_invalid',
        'unknown',
      )
      assert.deepEqual(expired, unknown)
      const accounts = await t.db.selectFrom('accounts').select('id').execute()
      assert.ok(accounts.length > 0)
    })

    test('bad input is refused and creates nothing', async () => {
      const count = async () => (await t.db.selectFrom('invitations').select('id').execute()).length
      const before = await count()
      assertValidation(
        await t.admin('POST', `/admin/v1/organizations/${orgId}/invitations`, { email: 'not an email' }),
        [['invalid_format', 'email']],
      )
      assertValidation(
        await t.admin('POST', `/admin/v1/organizations/${orgId}/invitations`, {
          email: uniqueEmail(),
          role: 'admin',
        }),
        [['invalid_format', 'role']],
      )
      assertError(
        await t.admin('POST', `/admin/v1/organizations/${randomUUID()}/invitations`, {
          email: uniqueEmail(),
        }),
        404,
        'not_found',
        'unknown org',
      )
      const { email } = await memberOf(t, orgId, 'viewer')
      const existing = await t.admin('POST', `/admin/v1/organizations/${orgId}/invitations`, {
        email: email.toUpperCase(),
      })
      assertError(existing, 409, 'member_exists', 'existing account')
      assert.equal(await count(), before + 1, 'only the member made above')

      const token = await operatorInvite(t, orgId, uniqueEmail(), 'viewer')
      const client = await dashboardClient(t)
      assertValidation(await client.call('POST', '/invitations/accept', { token, password: 'short' }), [
        ['too_short', 'password'],
      ])
      assert.equal(
        (await client.call('POST', '/invitations/lookup', { token })).statusCode,
        200,
        'still usable',
      )
    })
  })

  describe('members and roles', () => {
    let orgId: string
    let owner: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      orgId = (await t.createOrganization('Roles Org')).id
      owner = await memberOf(t, orgId, 'owner')
    })

    test('an owner invites from the dashboard; the link is returned to copy', async () => {
      const email = uniqueEmail('dev')
      const res = await owner.client.call('POST', '/invitations', { email, role: 'developer' })
      assert.equal(res.statusCode, 201, res.body)
      const { url, invitation } = res.json().data
      assert.match(url, /^http:\/\/api\.test\/dashboard\/invitation#token=\w{43}$/)
      const pending = await owner.client.call('GET', '/invitations')
      assert.ok(pending.json().data.some((i: { id: string }) => i.id === invitation.id))
      const dev = await dashboardClient(t)
      const accepted = await dev.call('POST', '/invitations/accept', {
        token: tokenOf(url),
        password: PASSWORD,
      })
      assert.equal(accepted.json().data.member.role, 'developer')
      const after = await owner.client.call('GET', '/invitations')
      assert.ok(
        !after.json().data.some((i: { id: string }) => i.id === invitation.id),
        'accepted: no longer pending',
      )
      assert.ok((await auditActions(owner.client)).includes(`member.invited ${email}`))
    })

    test('developers and viewers read members but cannot change them', async () => {
      for (const role of ['developer', 'viewer'] as const) {
        const member = await memberOf(t, orgId, role)
        const list = await member.client.call('GET', '/members')
        assert.equal(list.statusCode, 200)
        assert.ok(list.json().data.some((m: { email: string }) => m.email === owner.email))
        const attempts = [
          await member.client.call('POST', '/invitations', { email: uniqueEmail(), role: 'owner' }),
          await member.client.call('GET', '/invitations'),
          await member.client.call('PATCH', `/members/${member.id}`, { role: 'owner' }),
          await member.client.call('DELETE', `/members/${owner.id}`),
        ]
        for (const res of attempts) {
          const error = assertError(res, 403, 'role_required', `${role}`)
          assert.equal(error.message, 'This needs the owner role.')
        }
        const me = (await member.client.call('GET', '/members'))
          .json()
          .data.find((m: { id: string }) => m.id === member.id)
        assert.equal(me.role, role, 'unchanged')
      }
    })

    test('an owner changes a role and removes a member; the removed member is signed out', async () => {
      const member = await memberOf(t, orgId, 'viewer')
      const changed = await owner.client.call('PATCH', `/members/${member.id}`, { role: 'developer' })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal(changed.json().data.member.role, 'developer')
      assert.equal((await member.client.session()).json().data.member.role, 'developer')

      const removed = await owner.client.call('DELETE', `/members/${member.id}`)
      assert.equal(removed.statusCode, 200, removed.body)
      assertError(await member.client.call('GET', '/members'), 401, 'session_required', 'removed member')
      const signIn = await (await dashboardClient(t)).call('POST', '/sign-in', {
        email: member.email,
        password: PASSWORD,
      })
      assertError(signIn, 401, 'sign_in_failed', 'removed member signs in')
      assertError(await owner.client.call('DELETE', `/members/${member.id}`), 404, 'not_found', 'twice')
      const actions = await auditActions(owner.client)
      assert.deepEqual(actions.slice(0, 2), [
        `member.removed ${member.email}`,
        `member.role_changed ${member.email}`,
      ])
    })

    test('the last owner can be neither demoted nor removed', async () => {
      const org = await t.createOrganization('Lone Owner Org')
      const lone = await memberOf(t, org.id, 'owner')
      assertError(
        await lone.client.call('PATCH', `/members/${lone.id}`, { role: 'viewer' }),
        409,
        'last_owner',
        'demote',
      )
      assertError(await lone.client.call('DELETE', `/members/${lone.id}`), 409, 'last_owner', 'remove')
      const second = await memberOf(t, org.id, 'owner')
      const res = await second.client.call('PATCH', `/members/${lone.id}`, { role: 'viewer' })
      assert.equal(res.statusCode, 200, res.body)
      assertError(
        await second.client.call('DELETE', `/members/${second.id}`),
        409,
        'last_owner',
        'now the last',
      )
    })

    test('another organization sees nothing: members, audit log, and ids of this one are 404', async () => {
      const other = await t.createOrganization('Other Org')
      const stranger = await memberOf(t, other.id, 'owner')
      const members = (await stranger.client.call('GET', '/members')).json().data
      assert.deepEqual(
        members.map((m: { email: string }) => m.email),
        [stranger.email],
      )
      const audit = JSON.stringify((await stranger.client.call('GET', '/audit-log')).json())
      assert.ok(!audit.includes(owner.email), 'no entry of the other organization')
      assert.ok(
        !JSON.stringify((await stranger.client.call('GET', '/invitations')).json()).includes('Roles Org'),
      )
      assertError(
        await stranger.client.call('PATCH', `/members/${owner.id}`, { role: 'viewer' }),
        404,
        'not_found',
        'patch',
      )
      assertError(await stranger.client.call('DELETE', `/members/${owner.id}`), 404, 'not_found', 'delete')
      const mine = (await owner.client.call('GET', '/members'))
        .json()
        .data.find((m: { id: string }) => m.id === owner.id)
      assert.equal(mine.role, 'owner')
    })
  })

  describe('the audit log', () => {
    test('pages newest first with a cursor; a bad cursor is 422', async () => {
      const org = await t.createOrganization('Audit Org')
      const owner = await memberOf(t, org.id, 'owner')
      // organization.created (by the operator token), member.invited, member.joined, and 3 more: two pages of 3.
      for (let i = 0; i < 3; i++) {
        await owner.client.call('POST', '/invitations', { email: uniqueEmail(`a${i}`), role: 'viewer' })
      }
      const all = (await owner.client.call('GET', '/audit-log?limit=100')).json()
      assert.equal(all.next_cursor, null)
      const first = (await owner.client.call('GET', '/audit-log?limit=3')).json()
      assert.equal(first.data.length, 3)
      const second = (await owner.client.call('GET', `/audit-log?limit=3&cursor=${first.next_cursor}`)).json()
      assert.deepEqual(
        [...first.data, ...second.data].map((e: { id: string }) => e.id),
        all.data.map((e: { id: string }) => e.id),
      )
      const ids = all.data.map((e: { id: string }) => e.id)
      assert.deepEqual(ids, [...ids].sort().reverse())
      assertValidation(await owner.client.call('GET', '/audit-log?cursor=nope'), [
        ['invalid_format', 'cursor'],
      ])
      assertValidation(await owner.client.call('GET', '/audit-log?limit=0'), [['too_small', 'limit']])
    })
  })

  describe('revoking invitations', () => {
    let orgId: string
    let owner: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      orgId = (await t.createOrganization('Revoke Org')).id
      owner = await memberOf(t, orgId, 'owner')
    })

    const stored = (id: string) =>
      t.db.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

    test('an owner revokes a pending invitation: the link stops working, recorded in the audit log', async () => {
      const email = uniqueEmail('revoked')
      const created = await owner.client.call('POST', '/invitations', { email, role: 'developer' })
      assert.equal(created.statusCode, 201, created.body)
      const { invitation, url } = created.json().data

      const res = await owner.client.call('DELETE', `/invitations/${invitation.id}`)
      assert.equal(res.statusCode, 200, res.body)
      const revoked = res.json().data.invitation
      assert.deepEqual({ ...revoked, revoked_at: undefined }, { ...invitation, revoked_at: undefined })
      assert.equal(revoked.revoked_at, clock.now().toISOString())
      assert.deepEqual((await stored(invitation.id)).revoked_at, clock.now())
      const pending = (await owner.client.call('GET', '/invitations')).json().data
      assert.ok(!pending.some((i: { id: string }) => i.id === invitation.id), 'no longer pending')

      const invitee = await dashboardClient(t)
      assertError(
        await invitee.call('POST', '/invitations/lookup', { token: tokenOf(url) }),
        404,
        'invitation_invalid',
      )
      assertError(
        await invitee.call('POST', '/invitations/accept', { token: tokenOf(url), password: PASSWORD }),
        404,
        'invitation_invalid',
      )
      assert.equal(
        (await t.db.selectFrom('accounts').select('id').where('email', '=', email).execute()).length,
        0,
        'no account made',
      )

      const log = (await owner.client.call('GET', '/audit-log')).json().data
      assert.deepEqual(
        { action: log[0].action, actor: log[0].actor, subject: log[0].subject, details: log[0].details },
        {
          action: 'member.invitation_revoked',
          actor: owner.email,
          subject: email,
          details: { role: 'developer' },
        },
      )
      // Not pending any more: a second revocation is 404, and records nothing.
      assertError(
        await owner.client.call('DELETE', `/invitations/${invitation.id}`),
        404,
        'not_found',
        'twice',
      )
      assert.equal((await owner.client.call('GET', '/audit-log')).json().data[0].id, log[0].id)
    })

    test("accepted, unknown, malformed and another organization's ids are 404 and change nothing", async () => {
      const acceptedEmail = uniqueEmail('accepted')
      const acceptedUrl = (
        await owner.client.call('POST', '/invitations', { email: acceptedEmail, role: 'viewer' })
      ).json().data
      const joined = await (await dashboardClient(t)).call('POST', '/invitations/accept', {
        token: tokenOf(acceptedUrl.url),
        password: PASSWORD,
      })
      assert.equal(joined.statusCode, 200, joined.body)

      const other = await t.createOrganization('Other Revoke Org')
      const stranger = await memberOf(t, other.id, 'owner')
      const foreign = (
        await stranger.client.call('POST', '/invitations', { email: uniqueEmail('foreign'), role: 'viewer' })
      ).json().data.invitation

      for (const [id, what] of [
        [acceptedUrl.invitation.id, 'accepted'],
        [randomUUID(), 'unknown'],
        ['not-a-uuid', 'malformed'],
        [foreign.id, "another organization's"],
      ]) {
        const error = assertError(
          await owner.client.call('DELETE', `/invitations/${id}`),
          404,
          'not_found',
          what,
        )
        assert.equal(error.message, 'No pending invitation with this id.', what)
      }
      assert.equal((await stored(foreign.id)).revoked_at, null)
      assert.equal((await stored(acceptedUrl.invitation.id)).revoked_at, null)
      assert.ok(
        (await stranger.client.call('GET', '/invitations'))
          .json()
          .data.some((i: { id: string }) => i.id === foreign.id),
      )
    })

    test('a revocation racing the acceptance: exactly one of them happens', async () => {
      const { invitation, url } = (
        await owner.client.call('POST', '/invitations', { email: uniqueEmail('race'), role: 'viewer' })
      ).json().data
      const invitee = await dashboardClient(t)
      const [accepted, revoked] = await Promise.all([
        invitee.call('POST', '/invitations/accept', { token: tokenOf(url), password: PASSWORD }),
        owner.client.call('DELETE', `/invitations/${invitation.id}`),
      ])
      assert.deepEqual(
        [accepted.statusCode, revoked.statusCode].sort(),
        [200, 404],
        `${accepted.body} ${revoked.body}`,
      )
      const row = await stored(invitation.id)
      assert.equal(row.accepted_at === null, row.revoked_at !== null, 'accepted or revoked, not both')
    })

    test('the operator lists and revokes through /admin/v1, as operator token', async () => {
      const email = uniqueEmail('by-token')
      const token = await operatorInvite(t, orgId, email, 'developer')
      const listed = await t.admin('GET', `/admin/v1/organizations/${orgId}/invitations`)
      assert.equal(listed.statusCode, 200, listed.body)
      const invitation = listed.json().data.find((i: { email: string }) => i.email === email)
      assert.equal(invitation.role, 'developer')
      assertError(
        await t.admin('GET', `/admin/v1/organizations/${randomUUID()}/invitations`),
        404,
        'not_found',
      )

      const res = await t.admin('DELETE', `/admin/v1/invitations/${invitation.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.invitation.id, invitation.id)
      assert.equal(res.json().data.invitation.revoked_at, clock.now().toISOString())
      assertError(
        await t.admin('DELETE', `/admin/v1/invitations/${invitation.id}`),
        404,
        'not_found',
        'twice',
      )
      assertError(await t.admin('DELETE', '/admin/v1/invitations/nope'), 404, 'not_found', 'malformed')
      assert.ok(
        !(await t.admin('GET', `/admin/v1/organizations/${orgId}/invitations`))
          .json()
          .data.some((i: { id: string }) => i.id === invitation.id),
      )
      assertError(
        await (await dashboardClient(t)).call('POST', '/invitations/lookup', { token }),
        404,
        'invitation_invalid',
      )
      const entry = (await owner.client.call('GET', '/audit-log')).json().data[0]
      assert.deepEqual(
        [entry.action, entry.actor, entry.subject],
        ['member.invitation_revoked', 'operator token', email],
      )
    })

    test('an invitation that expired cannot be revoked (404)', async () => {
      const email = uniqueEmail('expired')
      await operatorInvite(t, orgId, email, 'viewer')
      const id = (
        await t.db.selectFrom('invitations').select('id').where('email', '=', email).executeTakeFirstOrThrow()
      ).id
      clock.advance(INVITATION_TTL_MS + 1000)
      // Sessions end with the time that passed: a new owner.
      const late = await memberOf(t, orgId, 'owner')
      assertError(await late.client.call('DELETE', `/invitations/${id}`), 404, 'not_found')
      assertError(await t.admin('DELETE', `/admin/v1/invitations/${id}`), 404, 'not_found')
      assert.equal((await stored(id)).revoked_at, null)
    })
  })
})
