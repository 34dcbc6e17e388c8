import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { memberOf } from '../../helpers/dashboard.ts'
import { assertError } from '../../helpers/errors.ts'
import { createOrder } from '../../helpers/order-files.ts'

describe('a member cancels an order from its page (production.dashboard.routes.ts)', () => {
  let t: TestApp
  let org: Awaited<ReturnType<TestApp['tenant']>>
  let developer: Awaited<ReturnType<typeof memberOf>>
  let viewer: Awaited<ReturnType<typeof memberOf>>

  before(async () => {
    t = await createTestApp()
    org = await t.tenant('Cancelling Prints')
    developer = await memberOf(t, org.orgId, 'developer')
    viewer = await memberOf(t, org.orgId, 'viewer')
  })
  after(() => t.close())

  type Order = {
    id: string
    updated_at: string
    status: string
    production_order: { id: string; status: string } | null
    items: { id: string; quantity: number }[]
  }

  async function pageOf(orderId: string): Promise<Order> {
    const res = await developer.client.call('GET', `/orders/${orderId}`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data.order
  }

  const eventsOf = (orderId: string) =>
    t.db.selectFrom('events').select(['type', 'data']).where('order_id', '=', orderId).orderBy('id').execute()

  const historyOf = async (orderId: string) => {
    const res = await viewer.client.call('GET', `/orders/${orderId}/history`)
    assert.equal(res.statusCode, 200, res.body)
    return res.json().data as {
      action: string
      details: { before: { status?: string }; after: { status?: string } }
    }[]
  }

  test('a member cancels a live order: order.cancelled exactly as the operator\u2019s, once', async () => {
    const body = orderBody()
    const { id } = await createOrder(t, org.liveKey, body)
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: shown.updated_at,
    })
    assert.equal(res.statusCode, 200, res.body)
    const order = res.json().data.order as Order
    assert.equal(order.status, 'cancelled')
    assert.equal(order.production_order!.status, 'cancelled')
    assert.ok(order.updated_at > shown.updated_at)
    const events = await eventsOf(id)
    assert.deepEqual(events.at(-1), {
      type: 'order.cancelled',
      data: {
        order_id: id,
        external_order_id: body.external_order_id,
        production_order_id: shown.production_order!.id,
        sequence: 2,
      },
    })
    const [entry] = await historyOf(id)
    assert.equal(entry!.action, 'order.cancelled')
    assert.deepEqual(
      [entry!.details.before, entry!.details.after],
      [{ status: 'pending' }, { status: 'cancelled' }],
    )
    const again = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: order.updated_at,
    })
    assert.match(assertError(again, 409, 'production_conflict').message, /already cancelled/)
    assert.equal((await eventsOf(id)).length, 2)
  })

  test('test orders: changed without events, never cancelled; shop orders change without events', async () => {
    const { id } = await createOrder(t, org.testKey, orderBody())
    const shown = await pageOf(id)
    const res = await developer.client.call('POST', `/orders/${id}/changes`, {
      expected_updated_at: shown.updated_at,
      items: [{ id: shown.items[1]!.id, quantity: 4 }],
    })
    assert.equal(res.statusCode, 200, res.body)
    const cancel = await developer.client.call('POST', `/orders/${id}/cancel`, {
      expected_updated_at: res.json().data.order.updated_at,
    })
    assertError(cancel, 422, 'validation_failed')
    assert.equal((await pageOf(id)).status, 'pending')
    assert.deepEqual(await eventsOf(id), [])

    const shop = await t.admin('POST', `/admin/v1/organizations/${org.orgId}/shop-orders`, orderBody())
    assert.equal(shop.statusCode, 201, shop.body)
    const shopOrder = await pageOf(shop.json().data.order.id)
    const changed = await developer.client.call('POST', `/orders/${shopOrder.id}/changes`, {
      expected_updated_at: shopOrder.updated_at,
      customer: { name: 'Shop customer' },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(await eventsOf(shopOrder.id), [])
  })

  test("another organization's member: 404 for its cancel and release, and nothing changes", async () => {
    const { id } = await createOrder(t, org.liveKey, orderBody())
    const shown = await pageOf(id)
    const other = await t.tenant('Other Prints')
    const stranger = await memberOf(t, other.orgId, 'owner')
    for (const action of ['cancel', 'release']) {
      const res = await stranger.client.call('POST', `/orders/${id}/${action}`, {
        expected_updated_at: shown.updated_at,
      })
      assertError(res, 404, 'not_found')
    }
    const after = await pageOf(id)
    assert.equal(after.updated_at, shown.updated_at)
    assert.equal(after.production_order!.status, 'pending')
    assert.equal((await eventsOf(id)).length, 1)
  })
})
