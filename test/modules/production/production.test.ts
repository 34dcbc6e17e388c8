import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { expectedEvent, useProductionEvents } from '../../helpers/production-events.ts'

type OrderRef = { id: string; external_order_id: string }

const moved = (order: OrderRef, productionOrderId: string, status: 'in_progress' | 'completed') => ({
  type: status === 'in_progress' ? 'order.production_started' : 'order.production_completed',
  data: {
    order_id: order.id,
    external_order_id: order.external_order_id,
    production_order_id: productionOrderId,
    production_status: status,
  },
})

/**
 * POST /admin/v1/production-orders/{id}/status with `expected_status`: the
 * status the caller believes the order has, compared under the production
 * order's lock. A member's cancel and an operator's status change sent at the
 * same moment never both succeed, so receivers never get order.cancelled and
 * then another status, unless the operator said the order was cancelled.
 */
describe('the status change with expected_status', () => {
  const f = useProductionEvents()
  let member: Awaited<ReturnType<typeof memberOf>>
  const status = (id: string, body: Record<string, unknown>) =>
    f.t.admin('POST', `/admin/v1/production-orders/${id}/status`, body)

  async function liveOrderInProgress() {
    const order = await f.createLiveOrder()
    const po = (await f.adminOrder(order.id)).production_order!.id
    f.tick()
    await f.setStatus(po, 'in_progress')
    return { order, po }
  }

  test('after a member cancelled: another expected status is 409, changes nothing and sends nothing', async () => {
    member ??= await memberOf(f.t, f.tenant.orgId)
    const { order, po } = await liveOrderInProgress()
    const page = await f.adminOrder(order.id)
    const cancelledAt = f.tick()
    const cancel = await member.client.call('POST', `/orders/${order.id}/cancel`, {
      expected_updated_at: page.updated_at,
    })
    assert.equal(cancel.statusCode, 200, cancel.body)

    f.tick()
    const refused = assertError(
      await status(po, { status: 'completed', expected_status: 'in_progress' }),
      409,
      'production_conflict',
    )
    assert.match(refused.message, /its production status is now cancelled\. Nothing was done\./)
    await f.assertOrderState(order.id, {
      status: 'cancelled',
      productionStatus: 'cancelled',
      items: ['cancelled', 'cancelled'],
      updated_at: cancelledAt,
    })
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
    ])
    const audit = await f.t.db
      .selectFrom('audit_log')
      .select('action')
      .where('subject', '=', po)
      .where('action', '=', 'production.status_set')
      .execute()
    assert.equal(audit.length, 1, 'only the start is audited')

    // Saying it is cancelled moves it: the operator means it, and the receivers learn it.
    const at = f.tick()
    const res = await status(po, { status: 'completed', expected_status: 'cancelled' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.production_order, {
      id: po,
      order_id: order.id,
      status: 'completed',
      produced_by_partner: false,
    })
    await f.assertOrderState(order.id, {
      status: 'completed',
      productionStatus: 'completed',
      items: ['completed', 'completed'],
      updated_at: at,
    })
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
      moved(order, po, 'completed'),
    ])
  })

  test('without expected_status the reference holds: any status moves to any other', async () => {
    const { order, po } = await liveOrderInProgress()
    f.tick()
    await f.cancelOrder(order.id)
    f.tick()
    await f.setStatus(po, 'in_progress')
    await f.assertDelivered(order.id, [
      expectedEvent.received(order),
      expectedEvent.started(order, po),
      expectedEvent.cancelled(order, po),
      expectedEvent.started(order, po),
    ])
  })

  test('the same status as expected: unchanged, 200, no event; a bad expected_status: 422', async () => {
    const { order, po } = await liveOrderInProgress()
    const before = await f.adminOrder(order.id)
    f.tick()
    const same = await status(po, { status: 'in_progress', expected_status: 'in_progress' })
    assert.equal(same.statusCode, 200, same.body)
    assertError(
      await status(po, { status: 'completed', expected_status: 'shipped' }),
      422,
      'validation_failed',
    )
    assertError(await status(po, { status: 'completed', expected_status: null }), 422, 'validation_failed')
    assert.equal((await f.adminOrder(order.id)).updated_at, before.updated_at)
    await f.assertDelivered(order.id, [expectedEvent.received(order), expectedEvent.started(order, po)])
  })

  test('GET /admin/v1/production-orders/{id}: the production order with its order; unknown: 404', async () => {
    const { order, po } = await liveOrderInProgress()
    const res = await f.t.admin('GET', `/admin/v1/production-orders/${po}`)
    assert.equal(res.statusCode, 200, res.body)
    const data = res.json().data
    assert.deepEqual(data.production_order, {
      id: po,
      order_id: order.id,
      status: 'in_progress',
      produced_by_partner: false,
    })
    assert.equal(data.order.id, order.id)
    assert.equal(data.order.source, 'api')
    assert.equal(data.organization.id, f.tenant.orgId)
    for (const id of ['01900000-0000-7000-8000-000000000000', 'not-a-uuid']) {
      assertError(await f.t.admin('GET', `/admin/v1/production-orders/${id}`), 404, 'not_found')
    }
  })

  test('24 members cancel while an operator moves the same orders, expecting what it saw: one wins each time', async () => {
    member ??= await memberOf(f.t, f.tenant.orgId)
    const pairs: { order: OrderRef; po: string; seen: string; from: 'pending' | 'in_progress' }[] = []
    for (let n = 0; n < 24; n++) {
      const from = n % 2 === 0 ? 'pending' : 'in_progress'
      const { order, po } =
        from === 'pending'
          ? await (async () => {
              const o = await f.createLiveOrder()
              return { order: o, po: (await f.adminOrder(o.id)).production_order!.id }
            })()
          : await liveOrderInProgress()
      pairs.push({ order, po, seen: (await f.adminOrder(order.id)).updated_at, from })
    }
    // Both sides act later than what they saw, at about the same moment; one
    // of them, chosen at random, starts up to 20 ms later, so either may lock first.
    f.tick()
    const later = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 20))
    const answers: Awaited<ReturnType<typeof status>>[] = []
    for (const p of pairs) {
      const memberLater = Math.random() < 0.5
      const pair = await Promise.all([
        (memberLater ? later() : Promise.resolve()).then(() =>
          member.client.call('POST', `/orders/${p.order.id}/cancel`, { expected_updated_at: p.seen }),
        ),
        (memberLater ? Promise.resolve() : later()).then(() =>
          status(p.po, {
            status: p.from === 'pending' ? 'in_progress' : 'completed',
            expected_status: p.from,
          }),
        ),
      ])
      answers.push(...pair)
    }
    const winners = { cancel: 0, operator: 0 }
    for (const [n, p] of pairs.entries()) {
      const cancel = answers[2 * n]!
      const change = answers[2 * n + 1]!
      const codes = [cancel.statusCode, change.statusCode].sort()
      assert.deepEqual(codes, [200, 409], `${cancel.body} / ${change.body}`)
      const loser = cancel.statusCode === 409 ? cancel : change
      assert.equal(loser.json().error.code, 'production_conflict')
      const order = await f.adminOrder(p.order.id)
      const before = p.from === 'pending' ? [] : [expectedEvent.started(p.order, p.po)]
      if (cancel.statusCode === 200) {
        winners.cancel++
        assert.equal(order.production_order!.status, 'cancelled')
        await f.assertDelivered(p.order.id, [
          expectedEvent.received(p.order),
          ...before,
          expectedEvent.cancelled(p.order, p.po),
        ])
      } else {
        winners.operator++
        const to = p.from === 'pending' ? 'in_progress' : 'completed'
        assert.equal(order.production_order!.status, to)
        await f.assertDelivered(p.order.id, [
          expectedEvent.received(p.order),
          ...before,
          moved(p.order, p.po, to),
        ])
      }
    }
    assert.equal(winners.cancel + winners.operator, 24, JSON.stringify(winners))
  })
})
