import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../../helpers/app.ts'
import {
  dashboardClient,
  memberOf,
  operatorOf,
  PASSWORD,
  tokenOf,
  uniqueEmail,
} from '../../../helpers/dashboard.ts'
import { assertError } from '../../../helpers/errors.ts'

describe('operator accounts and the platform audit log', () => {
  const t = useTestApp()

  interface Entry {
    organization_id: string | null
    actor: string
    action: string
    subject: string
    details: Record<string, unknown>
  }

  /** The platform-wide log as an operator reads it, newest first. */
  async function operatorLog(client: Awaited<ReturnType<typeof operatorOf>>['client']): Promise<Entry[]> {
    const res = await client.call('GET', '/operator/audit-log?limit=100')
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data
  }

  describe('operator accounts', () => {
    test('the operator token invites an operator; the link (7 days, once) signs in on the invitation page', async () => {
      const email = uniqueEmail('Operator').toUpperCase()
      const invited = await t.admin('POST', '/admin/v1/operators/invitations', { email })
      assert.equal(invited.statusCode, 201, invited.body)
      const { invitation, url } = invited.json().data
      assert.equal(invitation.email, email.toLowerCase())
      assert.equal(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at), 7 * 86_400_000)
      assert.match(url, /^http:\/\/api\.test\/dashboard\/invitation#token=\w{43}$/)
      const token = tokenOf(url)

      const client = await dashboardClient(t)
      const preview = await client.call('POST', '/invitations/lookup', { token })
      assert.equal(preview.statusCode, 200, preview.body)
      assert.deepEqual(
        { ...preview.json().data, expires_at: undefined },
        {
          kind: 'operator',
          email: email.toLowerCase(),
          role: null,
          organization: null,
          expires_at: undefined,
        },
      )

      const accepted = await client.call('POST', '/invitations/accept', { token, password: PASSWORD })
      assert.equal(accepted.statusCode, 200, accepted.body)
      const answer = accepted.json().data
      assert.equal(answer.kind, 'operator')
      assert.equal(answer.member, null)
      assert.equal(answer.operator.email, email.toLowerCase())

      const session = (await client.session()).json().data
      assert.equal(session.kind, 'operator')
      assert.equal(session.member, null)
      assert.equal(session.operator.id, answer.operator.id)

      // Once only.
      const again = await (await dashboardClient(t)).call('POST', '/invitations/accept', {
        token,
        password: PASSWORD,
      })
      assertError(again, 404, 'invitation_invalid')

      const operators = await t.admin('GET', '/admin/v1/operators')
      assert.equal(operators.statusCode, 200)
      assert.ok(
        operators.json().data.some((o: { id: string; email: string }) => o.id === answer.operator.id),
        operators.body,
      )
    })

    test('an operator signs in on the same sign-in page; the answer says kind operator', async () => {
      const { email } = await operatorOf(t)
      const client = await dashboardClient(t)
      const res = await client.call('POST', '/sign-in', { email, password: PASSWORD })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.kind, 'operator')
      assert.equal(res.json().data.operator.email, email)
      const member = await memberOf(t, (await t.createOrganization('Kind Org')).id, 'viewer')
      const signedIn = await (await dashboardClient(t)).call('POST', '/sign-in', {
        email: member.email,
        password: PASSWORD,
      })
      assert.equal(signedIn.json().data.kind, 'member')
      assert.equal(signedIn.json().data.operator, null)
    })

    test('an email that has an account cannot be invited as an operator (409 member_exists)', async () => {
      const member = await memberOf(t, (await t.createOrganization('Taken Org')).id, 'viewer')
      assertError(
        await t.admin('POST', '/admin/v1/operators/invitations', { email: member.email }),
        409,
        'member_exists',
      )
      const operator = await operatorOf(t)
      assertError(
        await t.admin('POST', '/admin/v1/operators/invitations', { email: operator.email }),
        409,
        'member_exists',
      )
    })

    test("an operator's session: member routes 403, its own account routes work", async () => {
      const { client } = await operatorOf(t)
      for (const path of ['/members', '/audit-log', '/invitations']) {
        const error = assertError(await client.call('GET', path), 403, 'role_required', path)
        assert.match(error.message, /member of an organization/)
      }
      assertError(
        await client.call('POST', '/invitations', { email: uniqueEmail(), role: 'viewer' }),
        403,
        'role_required',
      )
      const sessions = await client.call('GET', '/account/sessions')
      assert.equal(sessions.statusCode, 200, sessions.body)
      assert.equal(sessions.json().data.length, 1)
      const changed = await client.call('POST', '/account/password', {
        current_password: PASSWORD,
        new_password: `${PASSWORD} two`,
      })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal((await client.call('POST', '/sign-out')).statusCode, 200)
      assert.equal((await client.session()).json().data.kind, null)
    })
  })

  describe('the platform-wide audit log', () => {
    test('every /admin/v1 change is recorded with actor operator token and its organization', async () => {
      const { client, email } = await operatorOf(t)
      const org = (await t.admin('POST', '/admin/v1/organizations', { name: 'Audited Org' })).json().data
        .organization
      const key = (
        await t.admin('POST', `/admin/v1/organizations/${org.id}/api-keys`, {
          environment: 'live',
          scopes: ['orders:read', 'orders:write'],
        })
      ).json().data
      assert.equal((await t.admin('DELETE', `/admin/v1/api-keys/${key.api_key.id}`)).statusCode, 200)
      assert.equal((await t.admin('DELETE', `/admin/v1/api-keys/${key.api_key.id}`)).statusCode, 200)
      const product = { sku: 'MUG-01', name: 'Mug' }
      assert.equal(
        (await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, product)).statusCode,
        201,
      )
      // Refused: nothing changed, nothing recorded.
      assert.equal(
        (await t.admin('POST', `/admin/v1/organizations/${org.id}/products`, product)).statusCode,
        409,
      )
      const liveKey = await t.createKey(org.id, { environment: 'live' })
      const order = (await t.api(liveKey.key, 'POST', '/v1/orders', orderBody())).json().data.order
      const view = (await t.admin('GET', `/admin/v1/orders/${order.id}`)).json().data.order
      const po = view.production_order.id
      await t.admin('POST', `/admin/v1/production-orders/${po}/status`, { status: 'in_progress' })
      await t.admin('POST', `/admin/v1/production-orders/${po}/status`, { status: 'in_progress' })
      await t.admin('POST', `/admin/v1/production-orders/${po}/partner`, { produced_by_partner: true })
      await t.admin('POST', `/admin/v1/production-jobs/${view.items[0].production_job.id}/complete`)
      await t.admin('POST', `/admin/v1/orders/${order.id}/cancel`)
      const shop = await t.admin('POST', `/admin/v1/organizations/${org.id}/shop-orders`, orderBody())
      assert.equal(shop.statusCode, 201, shop.body)
      await t.admin('POST', `/admin/v1/organizations/${org.id}/invitations`, { email: uniqueEmail() })

      const entries = (await operatorLog(client)).filter((e) => e.organization_id === org.id).reverse()
      assert.deepEqual(
        entries.map((e) => e.action),
        [
          'organization.created',
          'api_key.created',
          'api_key.revoked',
          'product.created',
          'api_key.created',
          'production.status_set',
          'production.partner_set',
          'production.job_completed',
          'order.cancelled',
          'shop_order.created',
          'member.invited',
        ],
      )
      for (const e of entries) assert.equal(e.actor, 'operator token', e.action)
      assert.deepEqual(entries[5]!.details, {
        order_id: order.id,
        external_order_id: order.external_order_id,
        from: 'pending',
        to: 'in_progress',
      })
      assert.equal(entries[9]!.subject, shop.json().data.order.id)

      // The organization's own log shows what was done to it too; the operator's own sign-up is platform-only.
      const all = await operatorLog(client)
      const joined = all.find((e) => e.action === 'operator.joined' && e.subject === email)
      assert.ok(joined, 'operator.joined')
      assert.equal(joined.organization_id, null)
      assert.equal(joined.actor, email)
      const invitedBy = all.find((e) => e.action === 'operator.invited' && e.subject === email)
      assert.equal(invitedBy?.actor, 'operator token')
    })

    test("members' own actions are not in the platform-wide log", async () => {
      const { client } = await operatorOf(t)
      const member = await memberOf(t, (await t.createOrganization('Quiet Org')).id, 'owner')
      await member.client.call('POST', '/invitations', { email: uniqueEmail('quiet'), role: 'viewer' })
      const entries = await operatorLog(client)
      assert.ok(!entries.some((e) => e.actor === member.email), 'no member entry')
    })

    test('a member cannot read it (403), nobody signed out can (401)', async () => {
      const member = await memberOf(t, (await t.createOrganization('Curious Org')).id, 'owner')
      const error = assertError(await member.client.call('GET', '/operator/audit-log'), 403, 'role_required')
      assert.equal(error.message, 'This needs an operator account.')
      assertError(
        await (await dashboardClient(t)).call('GET', '/operator/audit-log'),
        401,
        'session_required',
      )
    })
  })

  describe('operator invitations and operator accounts, from the console', () => {
    test('an operator invites another from the console, lists and revokes the invitation', async () => {
      const { client, email: by } = await operatorOf(t)
      const email = uniqueEmail('invited-op')
      const created = await client.call('POST', '/operator/operators/invitations', { email })
      assert.equal(created.statusCode, 201, created.body)
      const { invitation, url } = created.json().data
      assert.deepEqual(Object.keys(invitation).sort(), ['created_at', 'email', 'expires_at', 'id'])
      assert.match(url, /^http:\/\/api\.test\/dashboard\/invitation#token=\w{43}$/)
      const listed = (await client.call('GET', '/operator/operators/invitations')).json().data
      assert.deepEqual(
        listed.find((i: { id: string }) => i.id === invitation.id),
        invitation,
      )

      const res = await client.call('DELETE', `/operator/operators/invitations/${invitation.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.invitation.id, invitation.id)
      assert.equal(typeof res.json().data.invitation.revoked_at, 'string')
      const row = await t.db
        .selectFrom('operator_invitations')
        .selectAll()
        .where('id', '=', invitation.id)
        .executeTakeFirstOrThrow()
      assert.equal(row.revoked_at?.toISOString(), res.json().data.invitation.revoked_at)
      assert.ok(
        !(await client.call('GET', '/operator/operators/invitations'))
          .json()
          .data.some((i: { id: string }) => i.id === invitation.id),
      )
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
      assertError(
        await client.call('DELETE', `/operator/operators/invitations/${invitation.id}`),
        404,
        'not_found',
        'twice',
      )

      const entries = (await operatorLog(client)).filter((e) => e.subject === email)
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor, e.organization_id]),
        [
          ['operator.invitation_revoked', by, null],
          ['operator.invited', by, null],
        ],
      )
    })

    test("a member invitation's id is not an operator invitation, and the other way round (404)", async () => {
      const { client } = await operatorOf(t)
      const org = await t.createOrganization('Two Kinds Org')
      const member = (
        await t.admin('POST', `/admin/v1/organizations/${org.id}/invitations`, { email: uniqueEmail() })
      ).json().data.invitation
      const operator = (
        await t.admin('POST', '/admin/v1/operators/invitations', { email: uniqueEmail('op') })
      ).json().data.invitation
      assertError(
        await client.call('DELETE', `/operator/operators/invitations/${member.id}`),
        404,
        'not_found',
      )
      assertError(await t.admin('DELETE', `/admin/v1/operators/invitations/${member.id}`), 404, 'not_found')
      assertError(await t.admin('DELETE', `/admin/v1/invitations/${operator.id}`), 404, 'not_found')
      for (const table of ['invitations', 'operator_invitations'] as const) {
        const rows = await t.db
          .selectFrom(table)
          .select('revoked_at')
          .where('id', 'in', [member.id, operator.id])
          .execute()
        assert.deepEqual(rows, [{ revoked_at: null }], table)
      }
    })

    test('an operator removes another: every session of it ends at once, its email is free again', async () => {
      const remover = await operatorOf(t)
      const removed = await operatorOf(t)
      const second = await dashboardClient(t)
      const signedIn = await second.call('POST', '/sign-in', { email: removed.email, password: PASSWORD })
      assert.equal(signedIn.statusCode, 200, signedIn.body)
      const accountId = (
        await t.db
          .selectFrom('accounts')
          .select('id')
          .where('email', '=', removed.email)
          .executeTakeFirstOrThrow()
      ).id

      const res = await remover.client.call('DELETE', `/operator/operators/${removed.id}`)
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data.operator.id, removed.id)
      assert.deepEqual(res.json().data.operator.email, removed.email)
      assert.equal(res.json().data.sessions_ended, 2)

      for (const client of [removed.client, second]) {
        assertError(await client.call('GET', '/operator/organizations'), 401, 'session_required')
        assert.equal((await client.session()).json().data.kind, null)
      }
      assert.equal(
        (await t.db.selectFrom('operators').select('id').where('id', '=', removed.id).execute()).length,
        0,
      )
      assert.equal(
        (await t.db.selectFrom('accounts').select('id').where('id', '=', accountId).execute()).length,
        0,
      )
      assert.equal(
        (
          await t.db
            .selectFrom('dashboard_sessions')
            .select('id')
            .where('account_id', '=', accountId)
            .execute()
        ).length,
        0,
      )
      assertError(
        await (await dashboardClient(t)).call('POST', '/sign-in', {
          email: removed.email,
          password: PASSWORD,
        }),
        401,
        'sign_in_failed',
      )
      assert.ok(
        !(await remover.client.call('GET', '/operator/operators'))
          .json()
          .data.some((o: { id: string }) => o.id === removed.id),
      )
      assertError(
        await remover.client.call('DELETE', `/operator/operators/${removed.id}`),
        404,
        'not_found',
        'twice',
      )
      assertError(
        await remover.client.call('DELETE', '/operator/operators/nope'),
        404,
        'not_found',
        'malformed',
      )

      const entry = (await operatorLog(remover.client)).find((e) => e.action === 'operator.removed')
      assert.deepEqual(entry && [entry.actor, entry.subject, entry.organization_id, entry.details], [
        remover.email,
        removed.email,
        null,
        { sessions_ended: 2 },
      ])
      // The email is free: the same person can be invited again.
      const again = await remover.client.call('POST', '/operator/operators/invitations', {
        email: removed.email,
      })
      assert.equal(again.statusCode, 201, again.body)
    })

    test('an operator cannot remove itself (422); nothing changes', async () => {
      const { client, id, email } = await operatorOf(t)
      const before = (await operatorLog(client))[0]
      const error = assertError(
        await client.call('DELETE', `/operator/operators/${id}`),
        422,
        'operator_self_removal',
      )
      assert.equal(error.message, 'An operator cannot remove their own account.')
      assert.equal((await client.call('GET', '/operator/operators')).statusCode, 200, 'still signed in')
      assert.equal((await operatorLog(client))[0]!.subject, before!.subject)
      assert.ok(
        (await t.admin('GET', '/admin/v1/operators'))
          .json()
          .data.some((o: { email: string }) => o.email === email),
      )
    })
  })

  describe('operator invitations and operator accounts, through /admin/v1', () => {
    test('the token lists and revokes operator invitations and removes operator accounts', async () => {
      const email = uniqueEmail('admin-op')
      const invited = (await t.admin('POST', '/admin/v1/operators/invitations', { email })).json().data
      const listed = await t.admin('GET', '/admin/v1/operators/invitations')
      assert.equal(listed.statusCode, 200, listed.body)
      assert.deepEqual(
        listed.json().data.find((i: { id: string }) => i.id === invited.invitation.id),
        invited.invitation,
      )
      const revoked = await t.admin('DELETE', `/admin/v1/operators/invitations/${invited.invitation.id}`)
      assert.equal(revoked.statusCode, 200, revoked.body)
      assert.equal(revoked.json().data.invitation.email, email)
      assertError(
        await t.admin('DELETE', `/admin/v1/operators/invitations/${invited.invitation.id}`),
        404,
        'not_found',
      )
      assertError(
        await (await dashboardClient(t)).call('POST', '/invitations/lookup', { token: tokenOf(invited.url) }),
        404,
        'invitation_invalid',
      )

      const operator = await operatorOf(t)
      const removed = await t.admin('DELETE', `/admin/v1/operators/${operator.id}`)
      assert.equal(removed.statusCode, 200, removed.body)
      assert.deepEqual(removed.json().data.sessions_ended, 1)
      assertError(await operator.client.call('GET', '/operator/operators'), 401, 'session_required')
      assertError(await t.admin('DELETE', `/admin/v1/operators/${operator.id}`), 404, 'not_found', 'twice')
      assertError(await t.admin('DELETE', `/admin/v1/operators/${randomUUID()}`), 404, 'not_found', 'unknown')

      const { client } = await operatorOf(t)
      const log = await operatorLog(client)
      for (const [action, subject] of [
        ['operator.invitation_revoked', email],
        ['operator.removed', operator.email],
      ]) {
        const entry = log.find((e) => e.action === action && e.subject === subject)
        assert.equal(entry?.actor, 'operator token', action)
        assert.equal(entry?.organization_id, null, action)
      }
    })
  })
})
