import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useTestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'

/**
 * Operators read an organization's rules as its Automation page lists them:
 * /admin/v1/organizations/:org_id/automation-rules with the token, and the
 * console's /dashboard/api/operator/... with an operator account (who may
 * call them is checked for every route in test/http/auth.routes.test.ts and
 * dashboard.auth.routes.test.ts).
 */
const t = useTestApp()

test("an organization's rules in run order, as the dashboard lists them", async () => {
  const org = await t.tenant('Admin Rules')
  const developer = await memberOf(t, org.orgId, 'developer')
  for (const rule of [
    {
      name: 'Large mugs',
      conditions: [
        { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
        { field: 'item.quantity', operator: 'gt', value: 50 },
      ],
      actions: [{ type: 'hold' }, { type: 'tag', value: 'large' }],
    },
    { name: 'Posters', enabled: false, conditions: [], actions: [{ type: 'partner' }] },
  ]) {
    const res = await developer.client.call('POST', '/automation/rules', rule)
    assert.equal(res.statusCode, 201, res.body)
  }
  const other = await t.tenant('Admin Rules Other')
  const otherDeveloper = await memberOf(t, other.orgId, 'developer')
  const foreign = await otherDeveloper.client.call('POST', '/automation/rules', {
    name: 'Not theirs',
    actions: [{ type: 'hold' }],
  })
  assert.equal(foreign.statusCode, 201, foreign.body)

  const res = await t.admin('GET', `/admin/v1/organizations/${org.orgId}/automation-rules`)
  assert.equal(res.statusCode, 200, res.body)
  const dashboard = await developer.client.call('GET', '/automation/rules')
  assert.deepEqual(res.json(), dashboard.json(), 'the same answer as the Automation page reads')
  const operator = await operatorOf(t)
  const consoleAnswer = await operator.client.call(
    'GET',
    `/operator/organizations/${org.orgId}/automation-rules`,
  )
  assert.equal(consoleAnswer.statusCode, 200, consoleAnswer.body)
  assert.deepEqual(consoleAnswer.json(), dashboard.json(), 'the console reads the same')
  const { rules, max_rules } = res.json().data
  assert.equal(max_rules, 50)
  assert.deepEqual(
    rules.map((r: { position: number; name: string; enabled: boolean; description: string }) => [
      r.position,
      r.name,
      r.enabled,
      r.description,
    ]),
    [
      [1, 'Large mugs', true, 'Item SKU starts with MUG; Item quantity greater than 50'],
      [2, 'Posters', false, 'Every live order'],
    ],
  )
  assert.deepEqual(rules[0].actions, [{ type: 'hold' }, { type: 'tag', value: 'large' }])

  const none = await t.admin('GET', `/admin/v1/organizations/${other.orgId}/automation-rules`)
  assert.deepEqual(
    none.json().data.rules.map((r: { name: string }) => r.name),
    ['Not theirs'],
  )
  const empty = await t.tenant('Admin Rules Empty')
  const nothing = await t.admin('GET', `/admin/v1/organizations/${empty.orgId}/automation-rules`)
  assert.deepEqual(nothing.json(), { data: { rules: [], max_rules: 50 } })
})

test('an unknown organization is 404 not_found', async () => {
  const operator = await operatorOf(t)
  assertError(
    await operator.client.call(
      'GET',
      '/operator/organizations/0193a000-0000-7000-8000-000000000099/automation-rules',
    ),
    404,
    'not_found',
  )
  assertError(
    await t.admin('GET', '/admin/v1/organizations/0193a000-0000-7000-8000-000000000099/automation-rules'),
    404,
    'not_found',
  )
  assertError(await t.admin('GET', '/admin/v1/organizations/nope/automation-rules'), 404, 'not_found')
})
