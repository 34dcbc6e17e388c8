import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { useDispatcherApp } from '../../helpers/dispatcher.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { waitUntil } from '../../helpers/wait.ts'
import {
  DELIVERY_KEYS,
  type Delivery,
  listDeliveries,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

const setup = useDispatcherApp()

describe('redelivery', () => {
  test('POST /v1/webhook-deliveries/{id}/redeliver: a new entry for the same event, within the key’s organization and environment', async (ctx) => {
    const s = await setup(ctx)
    const { endpoint } = await s.endpoint('/redeliver')
    await s.dispatch()
    await s.order()
    const original = await s.settled(endpoint.id, (r) => r.status === 'succeeded')
    const path = `/v1/webhook-deliveries/${original.id}/redeliver`

    // Other keys see no such entry; a key without the scope is refused first.
    const other = await s.t.tenant('Someone else')
    assertError(await s.t.api(other.liveKey, 'POST', path), 404, 'not_found')
    assertError(await s.t.api(s.tenant.testKey, 'POST', path), 404, 'not_found')
    assertError(
      await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${UNKNOWN_ID}/redeliver`),
      404,
      'not_found',
    )
    assertError(
      await s.t.api(s.tenant.liveKey, 'POST', '/v1/webhook-deliveries/not-a-uuid/redeliver'),
      404,
      'not_found',
    )
    const narrow = await s.t.createKey(s.tenant.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
    assertError(await s.t.api(narrow.key, 'POST', path), 403, 'insufficient_scope')
    assert.equal((await s.deliveries(endpoint.id)).length, 1, 'refused requests add nothing')

    const res = await s.t.api(s.tenant.liveKey, 'POST', path)
    assert.equal(res.statusCode, 202, res.body)
    const redelivery = res.json().data.delivery as Delivery & { redelivery_of: string | null }
    assert.deepEqual(Object.keys(redelivery).sort(), DELIVERY_KEYS)
    assert.notEqual(redelivery.id, original.id)
    assert.equal(redelivery.event_id, original.event_id)
    assert.equal(redelivery.endpoint_id, endpoint.id)
    assert.equal(redelivery.status, 'pending')
    assert.equal(redelivery.attempts, 0)
    assert.equal(redelivery.redelivery_of, original.id)

    await s.receiver.waitFor(2)
    const [first, second] = s.receiver.received
    assert.equal(second!.headers['x-service-event-id'], original.event_id)
    assert.ok(second!.body.equals(first!.body), 'the same body')
    await waitUntil(
      async () => (await s.deliveries(endpoint.id)).every((d) => d.status === 'succeeded'),
      'the redelivery to succeed',
    )
    const log = await listDeliveries(s.t, s.tenant.liveKey, `?endpoint_id=${endpoint.id}`)
    assert.deepEqual(
      log.map((d) => {
        const e = d as Delivery & { redelivery_of: string | null; superseded_by: string | null }
        return [e.id, e.status, e.redelivery_of, e.superseded_by]
      }),
      [
        [redelivery.id, 'succeeded', original.id, null],
        // It had no retry waiting: nothing to supersede.
        [original.id, 'succeeded', null, null],
      ],
    )

    // A deleted endpoint gets no redelivery.
    assert.equal(
      (await s.t.api(s.tenant.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode,
      200,
    )
    assertValidation(await s.t.api(s.tenant.liveKey, 'POST', path), [['invalid_format', 'id']])
    assert.equal((await s.deliveries(endpoint.id)).length, 2)
  })

  test('a redelivery that succeeds cancels the retry of the entry it repeats; the retry never arrives', async (ctx) => {
    // The first attempt fails; everything after it is accepted.
    const s = await setup(ctx, { respond: (_req, n) => ({ status: n === 1 ? 500 : 200 }) })
    const { endpoint } = await s.endpoint('/supersede')
    const retryMs = 2500
    await s.dispatch({ retryDelaysMs: [retryMs] })
    await s.order()
    const original = await s.settled(endpoint.id, (r) => r.status === 'pending' && r.attempts === 1)
    assert.equal(original.error_code, 'http_error')
    assert.equal((await s.queued(endpoint.id)).length, 1, 'its retry is queued')

    const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${original.id}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    const redeliveryId = res.json().data.delivery.id as string
    const ended = await waitUntil(async () => {
      const rows = await s.deliveries(endpoint.id)
      const old = rows.find((r) => r.id === original.id)!
      return old.status !== 'pending' && rows
    }, 'the original to stop being pending')
    const byId = new Map(ended.map((r) => [r.id, r]))
    assert.equal(byId.get(redeliveryId)!.status, 'succeeded')
    const old = byId.get(original.id)!
    assert.deepEqual(
      [old.status, old.superseded_by, old.next_attempt_at, old.error_code, old.attempts, old.response_status],
      ['failed', redeliveryId, null, 'http_error', 1, 500],
    )
    assert.deepEqual(await s.queued(endpoint.id), [], 'no attempt left in the queue')
    const listed = (await listDeliveries(s.t, s.tenant.liveKey)).find(
      (d) => d.id === original.id,
    ) as Delivery & {
      superseded_by: string | null
    }
    assert.equal(listed.superseded_by, redeliveryId)
    assert.equal(listed.next_attempt_at, null)

    // Past the retry's time (and its jitter), still only the first attempt and the redelivery.
    await sleep(retryMs * 1.1 + 1000)
    assert.equal(s.receiver.received.length, 2)
  })

  test('a redelivery that fails leaves the retry of the entry it repeats in place', async (ctx) => {
    const s = await setup(ctx, { respond: () => ({ status: 503 }) })
    const { endpoint } = await s.endpoint('/both-fail')
    await s.dispatch({ retryDelaysMs: [60_000] })
    await s.order()
    const original = await s.settled(endpoint.id, (r) => r.status === 'pending' && r.attempts === 1)
    const res = await s.t.api(s.tenant.liveKey, 'POST', `/v1/webhook-deliveries/${original.id}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    const redeliveryId = res.json().data.delivery.id as string
    await waitUntil(async () => {
      const row = (await s.deliveries(endpoint.id)).find((r) => r.id === redeliveryId)
      return row?.attempts === 1
    }, 'the redelivery’s failed attempt')
    const old = (await s.deliveries(endpoint.id)).find((r) => r.id === original.id)!
    assert.deepEqual([old.status, old.superseded_by], ['pending', null])
    assert.ok(old.next_attempt_at)
    assert.deepEqual(
      (await s.queued(endpoint.id)).map((q) => q.delivery_id).sort(),
      [original.id, redeliveryId].sort(),
    )
  })
})
