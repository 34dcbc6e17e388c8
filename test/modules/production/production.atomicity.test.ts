import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { useProductionEvents } from '../../helpers/production-events.ts'

describe('production changes and their events commit together', () => {
  const f = useProductionEvents()

  test('the change and its event commit together: a failing event write leaves the order unchanged', async () => {
    const created = await f.createLiveOrder()
    const ao = await f.adminOrder(created.id)
    const po = ao.production_order!
    // Make the fan-out of one event type fail inside the transaction.
    await sql`
      create function refuse_failed_delivery() returns trigger language plpgsql as $$
      begin
        if new.event_type = 'order.production_failed' then
          raise exception 'refused by test';
        end if;
        return new;
      end $$`.execute(f.t.db)
    await sql`
      create trigger refuse_failed_delivery before insert on webhook_deliveries
      for each row execute function refuse_failed_delivery()`.execute(f.t.db)
    try {
      f.tick()
      const res = await f.t.admin('POST', `/admin/v1/production-orders/${po.id}/status`, { status: 'failed' })
      assert.equal(res.statusCode, 500, res.body)
      assert.equal(res.json().error.code, 'internal_error')
    } finally {
      await sql`drop trigger refuse_failed_delivery on webhook_deliveries`.execute(f.t.db)
      await sql`drop function refuse_failed_delivery()`.execute(f.t.db)
    }
    await f.assertOrderState(created.id, {
      status: 'pending',
      productionStatus: 'pending',
      items: ['pending', 'pending'],
      updated_at: created.updated_at,
    })
    assert.deepEqual(
      (await f.eventRows(created.id)).map((e) => e.type),
      ['order.received'],
    )

    const at = f.tick()
    await f.setStatus(po.id, 'failed')
    await f.assertOrderState(created.id, {
      status: 'failed',
      productionStatus: 'failed',
      items: ['failed', 'failed'],
      updated_at: at,
    })
    await f.assertDelivered(created.id, [
      {
        type: 'order.received',
        data: { order_id: created.id, external_order_id: created.external_order_id },
      },
      {
        type: 'order.production_failed',
        data: {
          order_id: created.id,
          external_order_id: created.external_order_id,
          production_order_id: po.id,
          production_status: 'failed',
        },
      },
    ])
  })

  test('unknown production order, job or order ids: 404', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000'
    for (const [url, body] of [
      [`/admin/v1/production-orders/${unknown}/status`, { status: 'in_progress' }],
      [`/admin/v1/production-orders/not-a-uuid/status`, { status: 'in_progress' }],
      [`/admin/v1/production-orders/${unknown}/partner`, { produced_by_partner: true }],
      [`/admin/v1/production-jobs/${unknown}/complete`, undefined],
      [`/admin/v1/orders/${unknown}/cancel`, undefined],
    ] as const) {
      const res = await f.t.admin('POST', url, body)
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`)
      assert.equal(res.json().error.code, 'not_found')
    }
  })
})
