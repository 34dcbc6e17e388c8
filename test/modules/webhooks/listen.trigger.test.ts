import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createMemoryRateLimiter } from '../../../src/http/rate-limit.ts'
import { EVENT_TYPES } from '../../../src/modules/webhooks/outbox/events.ts'
import { rowCounts } from '../../helpers/app.ts'
import { openStream, useListenApp } from '../../helpers/sse.ts'

// POST /v1/webhook-events/trigger, and what a stream costs against the rate limit.
const LIMIT = 8
const ctx = useListenApp({ rateLimiter: createMemoryRateLimiter(LIMIT) })

async function stream(key: string, query = '') {
  const s = await openStream(ctx.base, key, { query })
  ctx.opened.push(s)
  assert.equal(s.status, 200, s.body)
  await s.next((f) => f.event === 'ready')
  return s
}

const trigger = (key: string, type: string) => ctx.t.api(key, 'POST', '/v1/webhook-events/trigger', { type })

describe('POST /v1/webhook-events/trigger', () => {
  test('a sample reaches the organization’s test streams only: no endpoint, no stored row', async () => {
    const org = await ctx.t.tenant('Trigger')
    const other = await ctx.t.tenant('Trigger other')
    const endpoint = await ctx.t.api(org.testKey, 'POST', '/v1/webhook-endpoints', {
      url: ctx.receiver.url('/t'),
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    const dispatcher = await ctx.t.startDispatcher({ ca: ctx.receiver.ca })
    const tests = [await stream(org.testKey), await stream(org.testKey, '?events=order_item.completed')]
    const live = await stream(org.liveKey)
    const foreign = await stream(other.testKey)
    const before = await rowCounts(ctx.t.db)

    const res = await trigger(org.testKey, 'order.production_started')
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { data: { type: 'order.production_started', sessions: 2 } })
    const sample = await tests[0]!.next((f) => f.event === 'order.production_started')
    assert.equal(sample.id, undefined, 'samples carry no resume id')
    const body = JSON.parse(sample.data)
    assert.deepEqual(Object.keys(body), ['id', 'type', 'created_at', 'api_version', 'data'])
    assert.equal(body.type, 'order.production_started')
    assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/)
    assert.deepEqual(Object.keys(body.data), [
      'order_id',
      'external_order_id',
      'production_order_id',
      'production_status',
      'sample',
      'sequence',
    ])
    assert.equal(body.data.sample, true)
    assert.equal(body.data.production_status, 'in_progress')
    assert.equal(body.data.sequence, 2, 'a sample order\u2019s second event')

    const item = await trigger(org.testKey, 'order_item.completed')
    assert.equal(item.statusCode, 202)
    const itemSample = await tests[1]!.next((f) => f.event === 'order_item.completed')
    assert.deepEqual(Object.keys(JSON.parse(itemSample.data).data), [
      'order_id',
      'external_order_id',
      'order_item_id',
      'production_job_id',
      'sku',
      'name',
      'sample',
      'sequence',
    ])
    await tests[0]!.next((f) => f.event === 'order_item.completed')
    await new Promise((r) => setTimeout(r, 300))
    await dispatcher.stop(100)
    assert.deepEqual(
      tests[1]!.frames.map((f) => f.event),
      ['ready', 'order_item.completed'],
      'the filter applies to samples',
    )
    assert.deepEqual(
      [live, foreign].map((s) => s.frames.length),
      [1, 1],
      'no live or foreign stream gets a sample',
    )
    assert.deepEqual(await rowCounts(ctx.t.db), before, 'nothing stored')
    const deliveries = await ctx.t.api(org.testKey, 'GET', '/v1/webhook-deliveries')
    assert.deepEqual(deliveries.json().data, [])
    assert.equal(ctx.receiver.received.length, 0)
  })

  test('live keys are refused; unknown types are 422 on `type`; no open session answers 0', async () => {
    const org = await ctx.t.tenant('Trigger rules')
    const live = await trigger(org.liveKey, 'ping')
    assert.equal(live.statusCode, 403)
    assert.equal(live.json().error.code, 'test_key_required')
    const unknown = await trigger(org.testKey, 'order.created')
    assert.equal(unknown.statusCode, 422)
    assert.equal(unknown.json().error.field, 'type')
    // What `order-intake trigger` prints for an unknown type: the valid ones.
    assert.deepEqual(unknown.json().error.errors, [
      {
        code: 'invalid_format',
        field: 'type',
        message: `type must be one of ${EVENT_TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
      },
    ])
    const none = await trigger(org.testKey, 'order.cancelled')
    assert.deepEqual(none.json(), { data: { type: 'order.cancelled', sessions: 0 } })
  })

  test('a stream counts against the rate limit once, at connect', async () => {
    const org = await ctx.t.tenant('Rate')
    const s = await stream(org.testKey)
    assert.equal(s.headers.get('x-ratelimit-remaining'), String(LIMIT - 1))
    for (let i = 0; i < 3; i++) assert.equal((await trigger(org.testKey, 'ping')).statusCode, 202)
    await s.next((f) => f.event === 'ping', { from: 3 })
    const next = await ctx.t.api(org.testKey, 'GET', '/v1/webhook-endpoints')
    assert.equal(next.headers['x-ratelimit-remaining'], String(LIMIT - 5), 'the open stream took one request')
    s.close()
  })
})
