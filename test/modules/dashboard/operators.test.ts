import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { orderBody, useTestApp } from '../../helpers/app.ts'
import {
  dashboardClient,
  memberOf,
  operatorOf,
  PASSWORD,
  tokenOf,
  uniqueEmail,
} from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

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
      { kind: 'operator', email: email.toLowerCase(), role: null, organization: null, expires_at: undefined },
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
    assertError(await (await dashboardClient(t)).call('GET', '/operator/audit-log'), 401, 'session_required')
  })
})
