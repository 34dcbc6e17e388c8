import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { type QueryId, sql } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { findRuleSet } from '../../../src/modules/automation/automation.repo.ts'
import { createAutomationService } from '../../../src/modules/automation/automation.service.ts'
import type { BoardEntry } from '../../../src/modules/production/production.console.schemas.ts'
import {
  createTestApp,
  NEEDS_POSTGRESQL,
  orderBody,
  TEST_DATABASE_URL,
  type TestApp,
  useTestApp,
} from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, png, uploadFile } from '../../helpers/order-files.ts'

describe('rules', () => {
  /**
   * Automation rules through the dashboard API, applied to live orders as they
   * arrive through /v1 and from the shop: every condition, every action, test
   * orders untouched, changes audited and applied to the next order (also when
   * another instance changed them), bad rules refused naming the field.
   */
  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  type Client = Awaited<ReturnType<typeof memberOf>>['client']
  type Condition = { field: string; operator: string; key?: string; value?: unknown }

  async function addRule(client: Client, rule: Record<string, unknown>) {
    const res = await client.call('POST', '/automation/rules', rule)
    assert.equal(res.statusCode, 201, res.body)
    return res.json().data.rule as { id: string; position: number; name: string; description: string }
  }

  async function stored(orderId: string) {
    const row = await sql<{
      tags: string[]
      automation: { rule_id: string; name: string; actions: unknown[] }[] | null
      priority: string | null
      held_at: Date | null
      hold: { rule_id: string; name: string; reason: string } | null
      produced_by_partner: boolean | null
    }>`
    select o.tags, o.automation, p.priority, p.held_at, p.hold, p.produced_by_partner
    from orders o left join production_orders p on p.order_id = o.id
    where o.id = ${orderId}::uuid`.execute(t.db)
    return row.rows[0]!
  }

  describe('conditions', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let developer: Awaited<ReturnType<typeof memberOf>>

    before(async () => {
      org = await t.tenant('Rule Conditions')
      developer = await memberOf(t, org.orgId, 'developer')
      const product = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
        sku: 'MUG-11',
        name: 'Mug 11 oz',
      })
      assert.equal(product.statusCode, 201, product.body)
      // One rule per condition kind, each tagging the orders it matches with its own name.
      const cases: [string, Condition[]][] = [
        ['sku-is', [{ field: 'item.sku', operator: 'equals', value: 'CARD' }]],
        ['sku-prefix', [{ field: 'item.sku', operator: 'starts_with', value: 'MUG' }]],
        ['linked', [{ field: 'item.product', operator: 'linked' }]],
        ['unlinked', [{ field: 'item.product', operator: 'not_linked' }]],
        ['qty-over-50', [{ field: 'item.quantity', operator: 'gt', value: 50 }]],
        ['total-100', [{ field: 'order.total', operator: 'gte', value: 100 }]],
        ['usd', [{ field: 'order.currency', operator: 'equals', value: 'USD' }]],
        ['text-present', [{ field: 'item.personalization', key: 'text', operator: 'present' }]],
        ['color-absent', [{ field: 'item.personalization', key: 'color', operator: 'absent' }]],
        ['text-long', [{ field: 'item.personalization', key: 'text', operator: 'longer_than', value: 20 }]],
        [
          'red-or-green',
          [{ field: 'item.personalization', key: 'color', operator: 'one_of', value: ['red', 'green'] }],
        ],
        ['has-file', [{ field: 'item.files', operator: 'gte', value: 1 }]],
        ['big-client', [{ field: 'customer.email_domain', operator: 'equals', value: 'Big-Client.com' }]],
        ['shop', [{ field: 'order.source', operator: 'equals', value: 'shop' }]],
        // Item conditions hold together on one item: no small mug here.
        [
          'small-mug',
          [
            { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
            { field: 'item.quantity', operator: 'lt', value: 10 },
          ],
        ],
      ]
      for (const [name, conditions] of cases) {
        await addRule(developer.client, { name, conditions, actions: [{ type: 'tag', value: name }] })
      }
    })

    test('every condition kind reads the order as accepted', async () => {
      const file = await uploadFile(t, org.liveKey, png([1, 2, 3]), 'front.png')
      const big = orderBody({
        customer: { name: 'Ada', email: 'ada@big-client.com' },
        currency: 'EUR',
        total_amount: 120,
        items: [
          {
            sku: 'MUG-11',
            name: 'Mug',
            quantity: 60,
            personalization: { text: 'Happy birthday Anna and Ben', color: 'red' },
            files: [{ upload_id: file }],
          },
          { sku: 'CARD', name: 'Card', quantity: 1 },
        ],
      })
      const o1 = await createOrder(t, org.liveKey, big)
      const o2 = await createOrder(
        t,
        org.liveKey,
        orderBody({
          currency: 'USD',
          total_amount: 10,
          items: [{ sku: 'POSTER', name: 'Poster', quantity: 2, personalization: { color: 'blue' } }],
        }),
      )
      const shop = await t.admin(
        'POST',
        `/admin/v1/organizations/${org.orgId}/shop-orders`,
        orderBody({ total_amount: 5 }),
      )
      assert.equal(shop.statusCode, 201, shop.body)

      assert.deepEqual((await stored(o1.id)).tags, [
        'sku-is',
        'sku-prefix',
        'linked',
        'unlinked',
        'qty-over-50',
        'total-100',
        'text-present',
        'color-absent',
        'text-long',
        'red-or-green',
        'has-file',
        'big-client',
      ])
      assert.deepEqual((await stored(o2.id)).tags, ['unlinked', 'usd'])
      // orderBody's items: MUG-01 with text and red, and a card without sku or personalization.
      assert.deepEqual((await stored(shop.json().data.order.id)).tags, [
        'sku-prefix',
        'unlinked',
        'text-present',
        'color-absent',
        'red-or-green',
        'shop',
        'small-mug',
      ])
      const matched = (await stored(o2.id)).automation!
      assert.deepEqual(
        matched.map((m) => [m.name, m.actions]),
        [
          ['unlinked', [{ type: 'tag', value: 'unlinked' }]],
          ['usd', [{ type: 'tag', value: 'usd' }]],
        ],
      )
    })

    test('a sku that gets a product after an order without one reads as linked at once', async () => {
      const body = () => orderBody({ items: [{ sku: 'TOTE', name: 'Tote bag', quantity: 1 }] })
      const before = await createOrder(t, org.liveKey, body())
      assert.deepEqual((await stored(before.id)).tags, ['unlinked', 'color-absent'])
      const product = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/products`, {
        sku: 'TOTE',
        name: 'Tote bag',
      })
      assert.equal(product.statusCode, 201, product.body)
      const after = await createOrder(t, org.liveKey, body())
      assert.deepEqual((await stored(after.id)).tags, ['linked', 'color-absent'])
    })

    test('a test-environment order matches no rule', async () => {
      const catchAll = await addRule(developer.client, {
        name: 'Every order',
        conditions: [],
        actions: [{ type: 'hold' }, { type: 'tag', value: 'all' }],
      })
      const live = await createOrder(t, org.liveKey, orderBody())
      assert.ok((await stored(live.id)).tags.includes('all'))
      const res = await t.api(
        org.testKey,
        'POST',
        '/v1/orders',
        orderBody({ customer: { name: 'A', email: 'a@big-client.com' } }),
      )
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(await stored(res.json().data.order.id), {
        tags: [],
        automation: null,
        priority: null,
        held_at: null,
        hold: null,
        produced_by_partner: null,
      })
      const removed = await developer.client.call('DELETE', `/automation/rules/${catchAll.id}`)
      assert.equal(removed.statusCode, 200, removed.body)
    })
  })

  describe('actions', () => {
    test('hold, partner, rush and tags: in rule order, recorded on the order, events as for partner orders', async () => {
      const org = await t.tenant('Rule Actions')
      const owner = await memberOf(t, org.orgId, 'owner')
      const large = await addRule(owner.client, {
        name: 'Large mugs',
        conditions: [
          { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
          { field: 'item.quantity', operator: 'gt', value: 50 },
        ],
        actions: [{ type: 'hold' }, { type: 'priority', value: 'rush' }, { type: 'tag', value: 'large' }],
      })
      assert.equal(large.description, 'Item SKU starts with MUG; Item quantity greater than 50')
      const partner = await addRule(owner.client, {
        name: 'Partner mugs',
        conditions: [{ field: 'item.sku', operator: 'starts_with', value: 'MUG' }],
        actions: [{ type: 'partner' }, { type: 'tag', value: 'large' }, { type: 'tag', value: 'partner' }],
      })
      await addRule(owner.client, {
        name: 'Disabled',
        enabled: false,
        conditions: [],
        actions: [{ type: 'tag', value: 'never' }],
      })
      const endpoint = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: 'https://webhook.test/hooks',
      })
      assert.equal(endpoint.statusCode, 201, endpoint.body)

      const held = await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 80 }] }),
      )
      const row = await stored(held.id)
      assert.deepEqual(row.tags, ['large', 'partner'])
      assert.equal(row.priority, 'rush')
      assert.equal(row.produced_by_partner, true)
      assert.ok(row.held_at instanceof Date)
      assert.deepEqual(row.hold, {
        rule_id: large.id,
        name: 'Large mugs',
        reason: 'Item SKU starts with MUG; Item quantity greater than 50',
      })
      assert.deepEqual(
        row.automation!.map((m) => [m.rule_id, m.name]),
        [
          [large.id, 'Large mugs'],
          [partner.id, 'Partner mugs'],
        ],
      )
      // The operator view says partner; the production events carry it, as for every partner order.
      const view = await t.admin('GET', `/admin/v1/orders/${held.id}`)
      const production = view.json().data.order.production_order
      assert.equal(production.produced_by_partner, true)
      // Held: released in the dashboard before production starts.
      const released = await owner.client.call('POST', `/orders/${held.id}/release`, {
        expected_updated_at: view.json().data.order.updated_at,
      })
      assert.equal(released.statusCode, 200, released.body)
      const started = await t.admin('POST', `/admin/v1/production-orders/${production.id}/status`, {
        status: 'in_progress',
      })
      assert.equal(started.statusCode, 200, started.body)
      const events = await t.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('order_id', '=', held.id)
        .orderBy('id')
        .execute()
      assert.deepEqual(
        events.map((e) => [e.type, (e.data as { produced_by_partner?: boolean }).produced_by_partner]),
        [
          ['order.received', undefined],
          ['order.production_started', true],
        ],
      )

      // An order no rule matches is written as before.
      const plain = await createOrder(
        t,
        org.liveKey,
        orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] }),
      )
      assert.deepEqual(await stored(plain.id), {
        tags: [],
        automation: null,
        priority: 'normal',
        held_at: null,
        hold: null,
        produced_by_partner: false,
      })
    })

    test('a later rule sets the priority again; a hold keeps the first rule that held', async () => {
      const org = await t.tenant('Rule Precedence')
      const developer = await memberOf(t, org.orgId, 'developer')
      const first = await addRule(developer.client, {
        name: 'First',
        conditions: [],
        actions: [{ type: 'priority', value: 'rush' }, { type: 'hold' }],
      })
      await addRule(developer.client, {
        name: 'Second',
        conditions: [{ field: 'order.currency', operator: 'equals', value: 'EUR' }],
        actions: [{ type: 'priority', value: 'normal' }, { type: 'hold' }],
      })
      const order = await createOrder(t, org.liveKey, orderBody())
      const row = await stored(order.id)
      assert.equal(row.priority, 'normal')
      assert.equal(row.hold!.rule_id, first.id)
      assert.equal(row.hold!.reason, 'Every live order')
    })
  })

  describe('changing the rules', () => {
    let org: Awaited<ReturnType<TestApp['tenant']>>
    let developer: Awaited<ReturnType<typeof memberOf>>
    before(async () => {
      org = await t.tenant('Rule Changes')
      developer = await memberOf(t, org.orgId, 'developer')
    })

    test('listed in order, reordered, changed and deleted, each audited; viewers read only', async () => {
      const a = await addRule(developer.client, { name: 'A', actions: [{ type: 'tag', value: 'a' }] })
      const b = await addRule(developer.client, { name: 'B', actions: [{ type: 'tag', value: 'b' }] })
      const c = await addRule(developer.client, { name: 'C', actions: [{ type: 'tag', value: 'c' }] })
      assert.deepEqual([a.position, b.position, c.position], [1, 2, 3])

      const viewer = await memberOf(t, org.orgId, 'viewer')
      const listed = await viewer.client.call('GET', '/automation/rules')
      assert.equal(listed.statusCode, 200, listed.body)
      assert.deepEqual(
        listed.json().data.rules.map((r: { name: string }) => r.name),
        ['A', 'B', 'C'],
      )
      assert.equal(listed.json().data.max_rules, 50)
      assertError(
        await viewer.client.call('POST', '/automation/rules', { name: 'V', actions: [{ type: 'hold' }] }),
        403,
        'role_required',
      )
      assertError(await viewer.client.call('DELETE', `/automation/rules/${a.id}`), 403, 'role_required')

      const reordered = await developer.client.call('POST', '/automation/rules/order', {
        rule_ids: [c.id, a.id, b.id],
      })
      assert.equal(reordered.statusCode, 200, reordered.body)
      assert.deepEqual(
        reordered.json().data.rules.map((r: { name: string; position: number }) => [r.name, r.position]),
        [
          ['C', 1],
          ['A', 2],
          ['B', 3],
        ],
      )
      assertValidation(
        await developer.client.call('POST', '/automation/rules/order', { rule_ids: [c.id, a.id] }),
        [['invalid_format', 'rule_ids']],
      )

      const order = await createOrder(t, org.liveKey, orderBody())
      assert.deepEqual((await stored(order.id)).tags, ['c', 'a', 'b'])

      const changed = await developer.client.call('PUT', `/automation/rules/${a.id}`, {
        name: 'A only for USD',
        enabled: true,
        conditions: [{ field: 'order.currency', operator: 'equals', value: 'USD' }],
        actions: [{ type: 'tag', value: 'a' }],
      })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.equal(changed.json().data.rule.description, 'Currency is USD')
      const removed = await developer.client.call('DELETE', `/automation/rules/${c.id}`)
      assert.equal(removed.statusCode, 200, removed.body)
      assertError(await developer.client.call('DELETE', `/automation/rules/${c.id}`), 404, 'not_found')

      // The next order sees the change; the first keeps what the rules did then.
      const next = await createOrder(t, org.liveKey, orderBody())
      assert.deepEqual((await stored(next.id)).tags, ['b'])
      assert.deepEqual((await stored(order.id)).tags, ['c', 'a', 'b'])
      const positions = await developer.client.call('GET', '/automation/rules')
      assert.deepEqual(
        positions.json().data.rules.map((r: { name: string; position: number }) => [r.name, r.position]),
        [
          ['A only for USD', 1],
          ['B', 2],
        ],
      )

      const audit = await t.db
        .selectFrom('audit_log')
        .select(['action', 'actor', 'subject'])
        .where('organization_id', '=', org.orgId)
        .where('action', 'like', 'automation_rule.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      assert.deepEqual(
        audit.map((e) => e.action),
        [
          'automation_rule.created',
          'automation_rule.created',
          'automation_rule.created',
          'automation_rule.reordered',
          'automation_rule.updated',
          'automation_rule.deleted',
        ],
      )
      assert.ok(audit.every((e) => e.actor === developer.email))
    })

    test('a change made on another instance applies to the next order here', async () => {
      const o1 = await createOrder(t, org.liveKey, orderBody())
      assert.deepEqual((await stored(o1.id)).tags, ['b'])
      // As another instance writes it: the rule and the version, not this instance's memory.
      await sql`update automation_rules set actions = '[{"type":"tag","value":"elsewhere"}]'::jsonb
      where organization_id = ${org.orgId}::uuid and name = 'B'`.execute(t.db)
      await sql`update automation_versions set version = version + 1 where organization_id = ${org.orgId}::uuid`.execute(
        t.db,
      )
      const o2 = await createOrder(t, org.liveKey, orderBody())
      assert.deepEqual((await stored(o2.id)).tags, ['elsewhere'])
    })

    test('the dry run lists the latest live orders a rule would match and changes nothing', async () => {
      const org = await t.tenant('Rule Dry Run')
      const developer = await memberOf(t, org.orgId, 'developer')
      const large: string[] = []
      for (let n = 0; n < 4; n++) {
        const quantity = n % 2 === 0 ? 80 : 1
        const order = await createOrder(
          t,
          org.liveKey,
          orderBody({ external_order_id: `DRY-${n}`, items: [{ sku: 'MUG-01', name: 'Mug', quantity }] }),
        )
        if (quantity === 80) large.push(order.id)
      }
      await createOrder(t, org.testKey, orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity: 99 }] }))
      const rule = {
        name: 'Large mugs',
        conditions: [{ field: 'item.quantity', operator: 'gt', value: 50 }],
        actions: [{ type: 'hold' }],
      }
      const viewer = await memberOf(t, org.orgId, 'viewer')
      const res = await viewer.client.call('POST', '/automation/dry-run', rule)
      assert.equal(res.statusCode, 200, res.body)
      const data = res.json().data
      assert.equal(data.checked, 4)
      assert.equal(data.matched, 2)
      assert.deepEqual(
        data.orders.map((o: { external_order_id: string }) => o.external_order_id),
        ['DRY-2', 'DRY-0'],
      )
      assert.deepEqual(new Set(data.orders.map((o: { id: string }) => o.id)), new Set(large))
      const rules = await developer.client.call('GET', '/automation/rules')
      assert.deepEqual(rules.json().data.rules, [])
      assertValidation(
        await viewer.client.call('POST', '/automation/dry-run', {
          ...rule,
          conditions: [{ field: 'nope', operator: 'gt' }],
        }),
        [['invalid_format', 'conditions.0.field']],
      )
    })
  })

  describe('bad rules', () => {
    test('unknown fields and operators, wrong values, too many conditions or rules: 422 naming the field, nothing saved', async () => {
      const org = await t.tenant('Rule Refusals')
      const developer = await memberOf(t, org.orgId, 'developer')
      const send = (rule: Record<string, unknown>) => developer.client.call('POST', '/automation/rules', rule)
      const hold = [{ type: 'hold' }]
      const cases: [Record<string, unknown>, [string, string][]][] = [
        [
          {
            name: 'x',
            conditions: [{ field: 'item.colour', operator: 'equals', value: 'red' }],
            actions: hold,
          },
          [['invalid_format', 'conditions.0.field']],
        ],
        [
          {
            name: 'x',
            conditions: [{ field: 'item.sku', operator: 'matches', value: 'M.*' }],
            actions: hold,
          },
          [['invalid_format', 'conditions.0.operator']],
        ],
        [
          { name: 'x', conditions: [{ field: 'item.quantity', operator: 'gt', value: '50' }], actions: hold },
          [['invalid_type', 'conditions.0.value']],
        ],
        [
          { name: 'x', conditions: [{ field: 'item.quantity', operator: 'gt' }], actions: hold },
          [['required', 'conditions.0.value']],
        ],
        [
          { name: 'x', conditions: [{ field: 'item.personalization', operator: 'present' }], actions: hold },
          [['required', 'conditions.0.key']],
        ],
        [
          {
            name: 'x',
            conditions: [{ field: 'order.currency', operator: 'equals', value: 'euro' }],
            actions: hold,
          },
          [['invalid_format', 'conditions.0.value']],
        ],
        [
          {
            name: 'x',
            conditions: [{ field: 'item.product', operator: 'linked', value: 'yes' }],
            actions: hold,
          },
          [['unknown_field', 'conditions.0.value']],
        ],
        [{ name: 'x', actions: [{ type: 'delete' }] }, [['invalid_format', 'actions.0.type']]],
        [
          { name: 'x', actions: [{ type: 'priority', value: 'urgent' }] },
          [['invalid_format', 'actions.0.value']],
        ],
        [{ name: 'x', actions: [{ type: 'tag', value: '<b>' }] }, [['invalid_format', 'actions.0.value']]],
        [{ name: 'x', actions: [] }, [['too_few', 'actions']]],
        [{ name: ' ', actions: hold }, [['too_short', 'name']]],
        [{ name: 'x', colour: 'red', actions: hold }, [['unknown_field', 'colour']]],
        [
          {
            name: 'x',
            conditions: Array.from({ length: 11 }, () => ({
              field: 'order.source',
              operator: 'equals',
              value: 'api',
            })),
            actions: hold,
          },
          [['too_many', 'conditions']],
        ],
      ]
      for (const [rule, expected] of cases) assertValidation(await send(rule), expected)
      for (let n = 0; n < 50; n++) {
        const res = await send({ name: `Rule ${n}`, actions: [{ type: 'tag', value: `t${n}` }] })
        assert.equal(res.statusCode, 201, res.body)
      }
      assertValidation(await send({ name: 'One too many', actions: hold }), [['too_many', 'rules']])
      const listed = await developer.client.call('GET', '/automation/rules')
      assert.equal(listed.json().data.rules.length, 50)
      assert.ok(listed.json().data.rules.every((r: { name: string }) => r.name.startsWith('Rule ')))
      const audit = await t.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('organization_id', '=', org.orgId)
        .where('action', 'like', 'automation_rule.%')
        .executeTakeFirstOrThrow()
      assert.equal(Number(audit.n), 50)
    })
  })
})

describe('admin', () => {
  /**
   * Operators read an organization's rules as its Automation page lists them:
   * /admin/v1/organizations/:org_id/automation-rules with the token, and the
   * console's /dashboard/api/operator/... with an operator account (who may
   * call them is checked for every route in test/http/auth.routes.once.test.ts and
   * test/dashboard/dashboard.auth.test.ts).
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
})

describe('held orders', () => {
  /**
   * What the rules did, where people look: held, rush, partner and tags on the
   * order page, in Orders and on the operators' board; a held order cannot
   * start until an owner or developer (or an operator) releases it; a cancel
   * takes it out of the held list.
   */
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let owner: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>
  let operator: Awaited<ReturnType<typeof operatorOf>>
  let largeRule: string

  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
    org = await t.tenant('Held Orders')
    owner = await memberOf(t, org.orgId, 'owner')
    viewer = await memberOf(t, org.orgId, 'viewer')
    operator = await operatorOf(t)
    const rule = async (body: Record<string, unknown>) => {
      const res = await owner.client.call('POST', '/automation/rules', body)
      assert.equal(res.statusCode, 201, res.body)
      return res.json().data.rule.id as string
    }
    largeRule = await rule({
      name: 'Large mugs',
      conditions: [
        { field: 'item.sku', operator: 'starts_with', value: 'MUG' },
        { field: 'item.quantity', operator: 'gt', value: 50 },
      ],
      actions: [{ type: 'hold' }, { type: 'tag', value: 'large' }],
    })
    await rule({
      name: 'Rush cards',
      conditions: [{ field: 'item.sku', operator: 'equals', value: 'CARD' }],
      actions: [{ type: 'priority', value: 'rush' }, { type: 'partner' }],
    })
  })
  after(() => t.close())

  /** 422 naming exactly these fields. */
  function assertFields(res: Parameters<typeof assertError>[0], fields: string[]) {
    const error = assertError(res, 422, 'validation_failed')
    assert.deepEqual(
      error.errors.map((e: { field: string }) => e.field),
      fields,
    )
  }

  const mugs = (quantity: number) => orderBody({ items: [{ sku: 'MUG-01', name: 'Mug', quantity }] })
  const cards = () => orderBody({ items: [{ sku: 'CARD', name: 'Card', quantity: 1 }] })

  async function dashboardOrder(id: string) {
    const res = await owner.client.call('GET', `/orders/${id}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order
  }

  async function board(query: string) {
    const res = await operator.client.call(
      'GET',
      `/operator/production?organization_id=${org.orgId}&${query}`,
    )
    assert.equal(res.statusCode, 200, res.body)
    return res.json() as {
      data: {
        order: { id: string }
        priority: string
        held: boolean
        hold: { name: string } | null
        tags: string[]
      }[]
      counts: Record<string, { count: number }>
    }
  }

  describe('a held order', () => {
    test('the order views say held, with the rule, its tags and the rules in words; /v1 keeps its shape', async () => {
      const { id } = await createOrder(t, org.liveKey, mugs(80))
      const order = await dashboardOrder(id)
      assert.equal(order.held, true)
      assert.equal(order.priority, 'normal')
      assert.deepEqual(order.tags, ['large'])
      assert.deepEqual(order.hold, {
        rule_id: largeRule,
        name: 'Large mugs',
        reason: 'Item SKU starts with MUG; Item quantity greater than 50',
      })
      assert.deepEqual(order.automation, [
        {
          rule_id: largeRule,
          name: 'Large mugs',
          actions: [
            { type: 'hold', words: 'held this order for review' },
            { type: 'tag', value: 'large', words: 'tagged this order "large"' },
          ],
        },
      ])
      const console = await operator.client.call('GET', `/operator/orders/${id}`)
      assert.equal(console.json().data.order.held, true)
      assert.equal(console.json().data.order.hold.name, 'Large mugs')
      const v1 = (await t.api(org.liveKey, 'GET', `/v1/orders/${id}`)).json().data.order
      for (const field of ['tags', 'priority', 'held', 'hold', 'automation'])
        assert.equal(field in v1, false, field)

      // A test order: no rule ever applies.
      const test = await createOrder(t, org.testKey, mugs(80))
      const testOrder = await dashboardOrder(test.id)
      assert.deepEqual(
        [testOrder.held, testOrder.hold, testOrder.tags, testOrder.automation, testOrder.priority],
        [false, null, [], [], 'normal'],
      )
    })

    test('cannot start through /admin/v1 or the console until released; the release is audited and moves updated_at', async () => {
      const { id } = await createOrder(t, org.liveKey, mugs(60))
      const order = await dashboardOrder(id)
      const productionId = order.production_order.id
      const started = await t.admin('POST', `/admin/v1/production-orders/${productionId}/status`, {
        status: 'in_progress',
      })
      const refusal = assertError(started, 409, 'production_conflict')
      assert.match(refusal.message, /held for review by rule 'Large mugs'.*released? .*dashboard/)
      assertError(
        await operator.client.call('POST', `/operator/production-orders/${productionId}/status`, {
          status: 'completed',
        }),
        409,
        'production_conflict',
      )
      assertError(
        await operator.client.call(
          'POST',
          `/operator/production-jobs/${order.items[0].production_job.id}/complete`,
          {},
        ),
        409,
        'production_conflict',
      )
      // Viewers cannot release; a stale page is a 409 in words; nothing changed.
      assertError(
        await viewer.client.call('POST', `/orders/${id}/release`, { expected_updated_at: order.updated_at }),
        403,
        'role_required',
      )
      const stale = assertError(
        await owner.client.call('POST', `/orders/${id}/release`, {
          expected_updated_at: '2026-01-01T00:00:00Z',
        }),
        409,
        'production_conflict',
      )
      assert.match(stale.message, /after this page showed it/)
      assertFields(
        await owner.client.call('POST', `/orders/${id}/release`, { expected_updated_at: 'yesterday' }),
        ['expected_updated_at'],
      )
      assert.equal((await dashboardOrder(id)).held, true)

      const released = await owner.client.call('POST', `/orders/${id}/release`, {
        expected_updated_at: order.updated_at,
      })
      assert.equal(released.statusCode, 200, released.body)
      const after = released.json().data.order
      assert.equal(after.held, false)
      assert.equal(after.hold.name, 'Large mugs', 'the hold stays as the record')
      assert.ok(after.updated_at > order.updated_at)
      const again = assertError(
        await owner.client.call('POST', `/orders/${id}/release`, { expected_updated_at: after.updated_at }),
        409,
        'production_conflict',
      )
      assert.match(again.message, /not held for review/)

      const history = (await owner.client.call('GET', `/orders/${id}/history`)).json().data
      assert.equal(history.length, 1)
      assert.equal(history[0].action, 'order.released')
      assert.equal(history[0].actor, owner.email)
      assert.equal(history[0].details.rule.name, 'Large mugs')
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['action', 'subject'])
        .where('organization_id', '=', org.orgId)
        .where('action', '=', 'order.released')
        .execute()
      assert.deepEqual(audit, [{ action: 'order.released', subject: id }])

      const start = await t.admin('POST', `/admin/v1/production-orders/${productionId}/status`, {
        status: 'in_progress',
      })
      assert.equal(start.statusCode, 200, start.body)
    })

    test('an operator releases from the console, audited as the operator', async () => {
      const { id } = await createOrder(t, org.liveKey, mugs(70))
      const order = await dashboardOrder(id)
      const res = await operator.client.call('POST', `/operator/orders/${id}/release`, {
        expected_updated_at: order.updated_at,
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.order.held, false)
      const history = (await owner.client.call('GET', `/orders/${id}/history`)).json().data
      assert.deepEqual(
        history.map((h: { action: string; by_operator: boolean }) => [h.action, h.by_operator]),
        [['order.released', true]],
      )
    })

    test('cancelling a held order sends order.cancelled and takes it out of the held list', async () => {
      const endpoint = await t.api(org.liveKey, 'POST', '/v1/webhook-endpoints', {
        url: 'https://webhook.test/held',
      })
      assert.equal(endpoint.statusCode, 201, endpoint.body)
      const { id } = await createOrder(t, org.liveKey, mugs(90))
      const order = await dashboardOrder(id)
      const res = await owner.client.call('POST', `/orders/${id}/cancel`, {
        expected_updated_at: order.updated_at,
      })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().data.order.status, 'cancelled')
      assert.equal(res.json().data.order.held, false)
      const events = await t.db
        .selectFrom('events')
        .select('type')
        .where('order_id', '=', id)
        .orderBy('id')
        .execute()
      assert.deepEqual(
        events.map((e) => e.type),
        ['order.received', 'order.cancelled'],
      )
      const held = await owner.client.call('GET', '/orders?held=true&limit=100')
      assert.equal(
        held.json().data.some((o: { id: string }) => o.id === id),
        false,
      )
    })
  })

  describe('Orders and the board', () => {
    let held: string
    let rush: string
    let plain: string
    before(async () => {
      held = (await createOrder(t, org.liveKey, mugs(55))).id
      rush = (await createOrder(t, org.liveKey, cards())).id
      plain = (await createOrder(t, org.liveKey, mugs(2))).id
    })

    const list = async (query: string) => {
      const res = await owner.client.call('GET', `/orders?limit=100&${query}`)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().data as {
        id: string
        held: boolean
        priority: string
        produced_by_partner: boolean
        tags: string[]
      }[]
    }

    test('rows show held, rush, partner and tags; the filters combine with the others', async () => {
      const rows = await list('')
      const row = (id: string) => rows.find((r) => r.id === id)!
      assert.deepEqual(
        [row(held).held, row(held).tags, row(rush).priority, row(rush).produced_by_partner, row(plain).held],
        [true, ['large'], 'rush', true, false],
      )
      const ids = async (query: string) => (await list(query)).map((r) => r.id)
      assert.ok((await ids('held=true')).includes(held))
      assert.ok((await ids('held=true')).every((id) => id !== rush && id !== plain))
      assert.deepEqual(await ids('priority=rush'), [rush])
      assert.deepEqual(await ids('partner=true'), [rush])
      assert.ok((await ids('partner=false')).includes(plain))
      assert.ok((await ids('tag=large')).includes(held))
      assert.equal((await ids('tag=large')).includes(plain), false)
      assert.deepEqual(await ids('tag=large&status=completed'), [])
      assert.deepEqual(await ids('tag=nothing'), [])
      assert.deepEqual(await ids('priority=rush&environment=test'), [])
    })

    test("the production order page carries what its board row's actions read", async () => {
      const entries = [
        ...(await board('held=true&limit=100')).data,
        ...(await board('status=pending&limit=100')).data,
      ] as unknown as BoardEntry[]
      for (const id of [held, rush, plain]) {
        const entry = entries.find((e) => e.order.id === id)!
        const res = await operator.client.call(
          'GET',
          `/operator/production-orders/${entry.production_order.id}`,
        )
        assert.equal(res.statusCode, 200, res.body)
        const { production_order, order } = res.json().data
        const page = {
          production_order,
          order: { id: order.id, external_order_id: order.external_order_id, source: order.source },
          held: order.held,
          hold: order.hold,
          priority: order.priority,
          awaiting_preflight: order.awaiting_preflight,
          jobs: order.items.map((i: { production_job: unknown }) => i.production_job),
        }
        assert.deepEqual(page, {
          production_order: entry.production_order,
          order: { id, external_order_id: entry.order.external_order_id, source: 'api' },
          held: entry.held,
          hold: entry.hold,
          priority: entry.priority,
          awaiting_preflight: entry.awaiting_preflight,
          jobs: entry.items.map((i) => i.job),
        })
      }
      const of = (id: string) => entries.find((e) => e.order.id === id)!
      assert.deepEqual(
        [
          of(held).held,
          of(held).hold?.name,
          of(rush).priority,
          of(rush).production_order.produced_by_partner,
        ],
        [true, 'Large mugs', 'rush', true],
      )
      assert.ok(entries.every((e) => e.items.every((i) => i.job?.status === 'pending')))
    })

    test('bad filter values are 422 naming the field', async () => {
      assertFields(await owner.client.call('GET', '/orders?held=maybe'), ['held'])
      assertFields(await owner.client.call('GET', '/orders?priority=urgent'), ['priority'])
      assertFields(await owner.client.call('GET', '/orders?partner=2'), ['partner'])
      assertFields(await owner.client.call('GET', `/orders?tag=${'x'.repeat(41)}`), ['tag'])
    })

    test('the board shows held orders apart, rush first, counts held apart, filters by tag', async () => {
      const pending = await board('status=pending&limit=100')
      const ids = pending.data.map((e) => e.order.id)
      assert.equal(ids.includes(held), false, 'a held order is not on the startable list')
      assert.equal(pending.data[0]!.order.id, rush, 'rush first')
      assert.equal(pending.data[0]!.priority, 'rush')
      assert.ok(ids.includes(plain))
      assert.equal(pending.counts.pending!.count, pending.data.length)

      const apart = await board('held=true&limit=100')
      assert.ok(apart.data.some((e) => e.order.id === held))
      assert.ok(apart.data.every((e) => e.held && e.hold!.name === 'Large mugs'))
      assert.equal(apart.counts.held!.count, apart.data.length)
      assert.equal(pending.counts.held!.count, apart.data.length)

      const tagged = await board('held=true&tag=large&limit=100')
      assert.ok(tagged.data.every((e) => e.tags.includes('large')))
      assert.equal(
        (await board('tag=large&status=pending')).data.some((e) => e.order.id === plain),
        false,
      )
      // Counted the same way under the tag filter.
      assert.equal(tagged.counts.held!.count, tagged.data.length)

      // Paged one at a time, the rush order comes first and every startable order once.
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const page = (await board(`status=pending&limit=1${cursor ? `&cursor=${cursor}` : ''}`)) as Awaited<
          ReturnType<typeof board>
        > & { next_cursor: string | null }
        seen.push(...page.data.map((e) => e.order.id))
        cursor = page.next_cursor
      } while (cursor)
      assert.deepEqual(seen, ids)
    })
  })
})

describe('two instances', () => {
  /**
   * Two instances on one PostgreSQL, each with its own pool and its own memory
   * of the rules, while a member changes a rule on one of them again and again
   * and clients send orders to both. Each change tags orders with its number,
   * so every order says which version of the rules it was evaluated with.
   * Below, the two ways a read went wrong, each made to happen every time.
   */
  describe('rules changed while orders arrive on two instances', {
    skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL,
  }, () => {
    let a: TestApp
    let b: TestApp
    before(async () => {
      a = await createTestApp()
      b = await createTestApp({ db: await a.testDb.openAnother(), testDb: a.testDb })
    })
    after(async () => {
      await b.app.close()
      await a.close()
    })

    test('no order is evaluated with rules older than a change acknowledged before it was sent; no 503', async (t) => {
      const org = await a.tenant('Rapid Rules')
      const developer = await memberOf(a, org.orgId, 'developer')
      const tagged = (n: number) => ({ name: 'Version', actions: [{ type: 'tag', value: `v${n}` }] })
      const created = await developer.client.call('POST', '/automation/rules', tagged(0))
      assert.equal(created.statusCode, 201, created.body)
      const ruleId = created.json().data.rule.id as string

      // The number of the newest change answered 200.
      let acknowledged = 0
      let done = false
      const CHANGES = 20
      const changer = (async () => {
        for (let n = 1; n <= CHANGES; n++) {
          const res = await developer.client.call('PUT', `/automation/rules/${ruleId}`, {
            ...tagged(n),
            enabled: true,
            conditions: [],
          })
          assert.equal(res.statusCode, 200, res.body)
          acknowledged = n
          // Between 0 and 40 ms: faster than a person, so the caches are outdated all the time.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 40))
        }
      })().finally(() => {
        done = true
      })

      const sent: { instance: 'a' | 'b'; id: string; before: number }[] = []
      const statuses = new Map<number, number>()
      const client = async (name: 'a' | 'b', app: TestApp) => {
        while (!done) {
          const before = acknowledged
          const res = await app.api(org.liveKey, 'POST', '/v1/orders', orderBody())
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          if (res.statusCode !== 201) continue
          sent.push({ instance: name, id: res.json().data.order.id, before })
        }
      }
      const clients = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? client('a', a) : client('b', b)))
      await changer
      await Promise.all(clients)

      const rows = await a.db
        .selectFrom('orders')
        .select(['id', 'tags'])
        .where('organization_id', '=', org.orgId)
        .execute()
      const tags = new Map(rows.map((r) => [r.id, r.tags]))
      const stale = sent
        .map(({ instance, id, before }) => ({ instance, before, tag: tags.get(id)?.[0] ?? 'none' }))
        .filter(({ before, tag }) => !(Number(tag.slice(1)) >= before))
        .map(({ instance, before, tag }) => `on ${instance}: ${tag} after v${before} was acknowledged`)
      const summary = `${CHANGES} rule changes; answers ${JSON.stringify(Object.fromEntries(statuses))}`
      assert.deepEqual(Object.fromEntries(statuses), { 201: sent.length }, summary)
      assert.deepEqual(stale, [], summary)
      for (const instance of ['a', 'b'])
        assert.ok(sent.filter((o) => o.instance === instance).length >= 100, summary)
      t.diagnostic(summary)
    })
  })

  const operator = { accountId: null, label: 'operator token', address: null, operator: true }
  const tagRule = (n: number) => ({
    name: 'Version',
    enabled: true,
    conditions: [],
    actions: [{ type: 'tag', value: `v${n}` }],
  })
  const tagOf = (rules: { actions: { type: string; value?: string }[] }[]) => rules[0]?.actions[0]?.value

  describe('one read of the rules is one version', { skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL }, () => {
    let a: TestApp
    let other: Database
    before(async () => {
      a = await createTestApp()
      other = await a.testDb.openAnother()
    })
    after(() => a.close())

    test('read on another pool while the rules change: the rules are always those of the version read', async () => {
      const org = await a.createOrganization('Snapshots')
      const rules = createAutomationService({ db: a.db, clock: { now: () => new Date() } })
      const { id } = await rules.create(org.id, tagRule(0), operator)
      // Version 1 has v0; the change to v<n> makes version n + 1.
      const CHANGES = 150
      let changing = true
      const changer = (async () => {
        for (let n = 1; n <= CHANGES; n++) await rules.update(org.id, id, tagRule(n), operator)
      })().finally(() => {
        changing = false
      })
      const mixed: string[] = []
      let reads = 0
      const reader = async () => {
        while (changing) {
          const set = await findRuleSet(other, org.id)
          reads++
          if (tagOf(set.rules) !== `v${set.version - 1}`)
            mixed.push(`version ${set.version} with ${tagOf(set.rules)}`)
        }
      }
      await Promise.all([changer, reader(), reader(), reader(), reader()])
      assert.deepEqual(mixed, [], `${mixed.length} of ${reads} reads mixed two versions`)
      assert.ok(reads >= CHANGES, `${reads} reads`)
    })
  })

  /** A database whose reads of the rules, begun inside `hold`, answer only once released. */
  function gated(db: Database) {
    let holding = false
    const held = new WeakSet<QueryId>()
    let release = () => {}
    let gate = Promise.resolve()
    const gatedDb = db.withPlugin({
      transformQuery({ node, queryId }) {
        if (holding) held.add(queryId)
        return node
      },
      async transformResult({ result, queryId }) {
        if (held.has(queryId)) await gate
        return result
      },
    })
    return {
      db: gatedDb,
      /** Starts `read` with its queries held: it resolves only after `release()`. */
      hold<T>(read: () => Promise<T>) {
        gate = new Promise<void>((resolve) => {
          release = resolve
        })
        holding = true
        try {
          return { read: read(), release: () => release() }
        } finally {
          holding = false
        }
      },
    }
  }

  describe('the rules in memory never go back in version', () => {
    let a: TestApp
    before(async () => {
      a = await createTestApp()
    })
    after(() => a.close())

    async function setUp(name: string) {
      const org = await a.createOrganization(name)
      const gate = gated(a.db)
      const rules = createAutomationService({ db: gate.db, clock: { now: () => new Date() } })
      const { id } = await rules.create(org.id, tagRule(0), operator)
      /** A change as another instance writes it: the rule and the version, not this memory. */
      const changeElsewhere = async (n: number) => {
        await sql`update automation_rules set actions = ${JSON.stringify(tagRule(n).actions)}::jsonb
        where id = ${id}::uuid`.execute(a.db)
        await sql`update automation_versions set version = version + 1 where organization_id = ${org.id}::uuid`.execute(
          a.db,
        )
      }
      return { org, gate, rules, id, changeElsewhere }
    }

    test('a read begun before a forget does not put what was forgotten back', async () => {
      const { org, gate, rules, changeElsewhere } = await setUp('Slow read, then forget')
      assert.equal((await rules.ruleSet(org.id)).version, 1)
      rules.forget(org.id)
      const slow = gate.hold(() => rules.ruleSet(org.id))
      await changeElsewhere(1)
      // An order's statement found version 2: this instance forgets again.
      rules.forget(org.id)
      slow.release()
      assert.equal((await slow.read).version, 1)
      const now = await rules.ruleSet(org.id)
      assert.equal(now.version, 2)
      assert.deepEqual(now.rules[0]?.rule.actions, [{ type: 'tag', value: 'v1' }])
    })

    test('a slow read of an older version does not replace a newer one', async () => {
      const { org, gate, rules, id } = await setUp('Slow read, change here')
      const slow = gate.hold(() => rules.ruleSet(org.id))
      // A change on this instance, answered, then an order reads the new rules.
      await rules.update(org.id, id, tagRule(1), operator)
      assert.equal((await rules.ruleSet(org.id)).version, 2)
      slow.release()
      assert.equal((await slow.read).version, 1)
      assert.equal((await rules.ruleSet(org.id)).version, 2)
    })

    test('a retry reads from the database, whatever memory holds', async () => {
      const { org, rules, changeElsewhere } = await setUp('Retry')
      assert.equal((await rules.ruleSet(org.id)).version, 1)
      await changeElsewhere(1)
      assert.equal((await rules.ruleSet(org.id)).version, 1)
      assert.equal((await rules.ruleSet(org.id, { fresh: true })).version, 2)
      assert.equal((await rules.ruleSet(org.id)).version, 2)
    })
  })
})
