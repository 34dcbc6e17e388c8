import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import { createOrder } from '../../helpers/order-files.ts'

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
  const res = await operator.client.call('GET', `/operator/production?organization_id=${org.orgId}&${query}`)
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
