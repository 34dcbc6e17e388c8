import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder, png, uploadFile } from '../../helpers/order-files.ts'

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
        { name: 'x', conditions: [{ field: 'item.sku', operator: 'matches', value: 'M.*' }], actions: hold },
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
