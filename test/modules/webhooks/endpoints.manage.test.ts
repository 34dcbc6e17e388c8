import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { assertError } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import {
  createEndpoint,
  ENDPOINT_KEYS,
  type Endpoint,
  ISO_MS,
  listDeliveries,
  listEndpoints,
  sleep,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

describe('GET and DELETE /v1/webhook-endpoints, and the delivery log without a worker', () => {
  let t: TestApp
  before(async () => {
    t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
  })
  after(() => t.close())

  test('the list: newest first, at most 50, deleted endpoints with is_active false and no secret', async () => {
    const org = await t.tenant('Many endpoints')
    const created: { endpoint: Endpoint; secret: string }[] = []
    for (let n = 0; n < 52; n++) {
      const c = await createEndpoint(t, org.liveKey, `https://webhook.test/e${n}`, `endpoint ${n}`)
      created.push(c)
      if (n < 50) {
        const del = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${c.endpoint.id}`)
        assert.equal(del.statusCode, 200)
      }
    }
    const list = await t.api(org.liveKey, 'GET', '/v1/webhook-endpoints')
    assert.equal(list.statusCode, 200)
    const data = list.json().data as Endpoint[]
    assert.equal(data.length, 50)
    assert.deepEqual(
      data.map((e) => e.id),
      created
        .slice(2)
        .reverse()
        .map((c) => c.endpoint.id),
    )
    for (const e of data) {
      assert.deepEqual(Object.keys(e).sort(), ENDPOINT_KEYS)
      assert.equal(e.disabled_reason, null)
    }
    assert.deepEqual(
      data.slice(0, 3).map((e) => [e.description, e.is_active]),
      [
        ['endpoint 51', true],
        ['endpoint 50', true],
        ['endpoint 49', false],
      ],
    )
    for (const c of created) assert.equal(list.body.includes(c.secret.slice(6)), false)
    // Other organizations and the other environment see none of them.
    assert.deepEqual(await listEndpoints(t, org.testKey), [])
    const other = await t.tenant('Other')
    assert.deepEqual(await listEndpoints(t, other.liveKey), [])
  })

  test("operator: an organization's endpoints of one environment (live by default) with filters and rotation; unknown organization 404", async () => {
    const org = await t.tenant('Operator sees endpoints')
    const other = await t.tenant('Someone else')
    const live = await createEndpoint(t, org.liveKey, 'https://webhook.test/live', 'live one')
    const test = await createEndpoint(t, org.testKey, 'https://webhook.test/test', 'test one')
    await createEndpoint(t, other.liveKey, 'https://webhook.test/other', 'not theirs')
    const patched = await t.api(org.liveKey, 'PATCH', `/v1/webhook-endpoints/${live.endpoint.id}`, {
      enabled_events: ['order.cancelled'],
    })
    assert.equal(patched.statusCode, 200, patched.body)
    const rotated = await t.api(
      org.liveKey,
      'POST',
      `/v1/webhook-endpoints/${live.endpoint.id}/rotate-secret`,
      {
        grace_period_seconds: 3600,
      },
    )
    assert.equal(rotated.statusCode, 200, rotated.body)

    const res = await t.admin('GET', `/admin/v1/organizations/${org.orgId}/webhook-endpoints`)
    assert.equal(res.statusCode, 200, res.body)
    const [listed, ...rest] = res.json().data as Endpoint[]
    assert.deepEqual(rest, [])
    assert.equal(listed!.id, live.endpoint.id)
    assert.deepEqual(listed!.enabled_events, ['order.cancelled'])
    assert.equal(listed!.secret_rotation_ends_at, rotated.json().data.endpoint.secret_rotation_ends_at)
    assert.ok(listed!.secret_rotation_ends_at)
    assert.deepEqual(Object.keys(listed!).sort(), [...ENDPOINT_KEYS].sort())

    const tests = await t.admin(
      'GET',
      `/admin/v1/organizations/${org.orgId}/webhook-endpoints?environment=test`,
    )
    assert.deepEqual(
      (tests.json().data as Endpoint[]).map((e) => e.id),
      [test.endpoint.id],
    )
    assertError(
      await t.admin('GET', `/admin/v1/organizations/${UNKNOWN_ID}/webhook-endpoints`),
      404,
      'not_found',
    )
    assertError(
      await t.admin('GET', `/admin/v1/organizations/${org.orgId}/webhook-endpoints?environment=staging`),
      422,
      'validation_failed',
    )
  })

  test('DELETE: 200 {id, is_active:false}, the same again; unknown, foreign and other-environment ids 404', async () => {
    const org = await t.tenant('Deleter')
    const other = await t.tenant('Someone else')
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/mine')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    const myTest = await createEndpoint(t, org.testKey, 'https://webhook.test/mine-test')

    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'not-a-uuid'],
      [org.liveKey, theirs.endpoint.id],
      [org.liveKey, myTest.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
      assertError(await t.api(key, 'DELETE', `/v1/webhook-endpoints/${id}`), 404, 'not_found')
    }
    assert.deepEqual(
      (await t.db.selectFrom('webhook_endpoints').select(['id', 'is_active']).execute())
        .filter((r) => [mine.endpoint.id, theirs.endpoint.id, myTest.endpoint.id].includes(r.id))
        .every((r) => r.is_active),
      true,
    )

    const first = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)
    assert.equal(first.statusCode, 200, first.body)
    assert.deepEqual(first.json(), { data: { id: mine.endpoint.id, is_active: false } })
    const second = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)
    assert.equal(second.statusCode, 200, second.body)
    assert.deepEqual(second.json(), first.json())

    const listed = (await listEndpoints(t, org.liveKey)).find((e) => e.id === mine.endpoint.id)!
    assert.equal(listed.is_active, false)
    assert.equal(listed.disabled_reason, null)
    const row = await t.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', mine.endpoint.id)
      .executeTakeFirstOrThrow()
    assert.equal(row.is_active, false)
    assert.equal(row.disabled_reason, null)
    // No way back: the test operation refuses it.
    assertError(
      await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${mine.endpoint.id}/test`),
      422,
      'validation_failed',
    )
  })

  test('POST /:id/test: 202 {queued:true}; 404 for unknown, foreign and other-environment ids', async () => {
    const org = await t.tenant('Pinger')
    const other = await t.tenant('Not me')
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/ping')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'nope'],
      [org.liveKey, theirs.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
      assertError(await t.api(key, 'POST', `/v1/webhook-endpoints/${id}/test`), 404, 'not_found')
    }
    const res = await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${mine.endpoint.id}/test`)
    assert.equal(res.statusCode, 202, res.body)
    assert.deepEqual(res.json(), { data: { queued: true } })

    const events = await t.db
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', org.orgId)
      .execute()
    assert.deepEqual(
      events.map((e) => [e.type, e.environment, e.order_id, Object.keys(e.data)]),
      [['ping', 'live', null, ['message']]],
    )
    const [delivery] = await listDeliveries(t, org.liveKey)
    assert.equal(delivery!.event_id, events[0]!.id)
    assert.equal(delivery!.endpoint_id, mine.endpoint.id)
    // Only the named endpoint; nothing for other organizations.
    assert.deepEqual(await listDeliveries(t, other.liveKey), [])
  })

  test('pending deliveries: next_attempt_at set; deleting the endpoint fails them with endpoint_disabled, log stays readable', async () => {
    const org = await t.tenant('Pending')
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/pending')
    const kept = await createEndpoint(t, org.liveKey, 'https://webhook.test/kept')
    for (const id of [endpoint.id, endpoint.id, kept.endpoint.id]) {
      assert.equal((await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)).statusCode, 202)
      await sleep(2)
    }
    const pending = await listDeliveries(t, org.liveKey)
    assert.equal(pending.length, 3)
    for (const d of pending) {
      assert.equal(d.status, 'pending')
      assert.equal(d.event_type, 'ping')
      assert.equal(d.attempts, 0)
      assert.match(d.next_attempt_at!, ISO_MS)
      assert.match(d.created_at, ISO_MS)
      assert.equal(d.last_attempt_at, null)
      assert.equal(d.response_status, null)
      assert.equal(d.response_snippet, null)
      assert.equal(d.error_code, null)
    }

    const del = await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`)
    assert.equal(del.statusCode, 200)
    const afterDelete = await listDeliveries(t, org.liveKey)
    assert.deepEqual(
      afterDelete.map((d) => d.id),
      pending.map((d) => d.id),
    )
    for (const d of afterDelete) {
      if (d.endpoint_id === endpoint.id) {
        assert.equal(d.status, 'failed')
        assert.equal(d.error_code, 'endpoint_disabled')
        assert.equal(d.next_attempt_at, null)
        assert.equal(d.attempts, 0)
      } else {
        assert.equal(d.status, 'pending')
        assert.notEqual(d.next_attempt_at, null)
      }
    }
    // The deleted endpoint's log stays readable through the filter.
    const filtered = await listDeliveries(t, org.liveKey, `?endpoint_id=${endpoint.id}`)
    assert.equal(filtered.length, 2)
    assert.ok(filtered.every((d) => d.endpoint_id === endpoint.id && d.status === 'failed'))
    const rows = await t.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'error_code'])
      .where('endpoint_id', '=', endpoint.id)
      .execute()
    assert.deepEqual(rows, [
      { status: 'failed', error_code: 'endpoint_disabled' },
      { status: 'failed', error_code: 'endpoint_disabled' },
    ])
  })

  test('GET /v1/webhook-deliveries: newest first, limit 1..100 default 25, endpoint_id filter, 404 for foreign endpoints', async () => {
    const org = await t.tenant('Log')
    const other = await t.tenant('Other log')
    const a = await createEndpoint(t, org.liveKey, 'https://webhook.test/log-a')
    const b = await createEndpoint(t, org.liveKey, 'https://webhook.test/log-b')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/log-theirs')
    const testEnv = await createEndpoint(t, org.testKey, 'https://webhook.test/log-test')
    await t.api(other.liveKey, 'POST', `/v1/webhook-endpoints/${theirs.endpoint.id}/test`)
    await t.api(org.testKey, 'POST', `/v1/webhook-endpoints/${testEnv.endpoint.id}/test`)
    for (let n = 0; n < 30; n++) {
      const id = n % 3 === 0 ? b.endpoint.id : a.endpoint.id
      assert.equal((await t.api(org.liveKey, 'POST', `/v1/webhook-endpoints/${id}/test`)).statusCode, 202)
      await sleep(2)
    }
    const stored = await t.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('organization_id', '=', org.orgId)
      .where('environment', '=', 'live')
      .orderBy('created_at', 'desc')
      .execute()
    assert.equal(stored.length, 30)

    const firstPage = await listDeliveries(t, org.liveKey)
    assert.equal(firstPage.length, 25)
    assert.deepEqual(
      firstPage.map((d) => d.id),
      stored.slice(0, 25).map((d) => d.id),
    )
    const all = await listDeliveries(t, org.liveKey, '?limit=100')
    assert.deepEqual(
      all.map((d) => d.id),
      stored.map((d) => d.id),
    )
    for (let n = 1; n < all.length; n++) assert.ok(all[n - 1]!.created_at >= all[n]!.created_at)
    assert.deepEqual(
      (await listDeliveries(t, org.liveKey, '?limit=1')).map((d) => d.id),
      [stored[0]!.id],
    )
    for (const limit of ['0', '101', '-1', '1.5', 'abc']) {
      const res = await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries?limit=${limit}`)
      assertError(res, 422, 'validation_failed')
    }

    const onlyB = await listDeliveries(t, org.liveKey, `?endpoint_id=${b.endpoint.id}&limit=100`)
    assert.deepEqual(
      onlyB.map((d) => d.id),
      stored.filter((d) => d.endpoint_id === b.endpoint.id).map((d) => d.id),
    )
    assert.equal(onlyB.length, 10)
    for (const id of [theirs.endpoint.id, testEnv.endpoint.id, UNKNOWN_ID, 'not-a-uuid']) {
      assertError(
        await t.api(org.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${id}`),
        404,
        'not_found',
      )
    }
    // Each environment sees its own log only.
    const testLog = await listDeliveries(t, org.testKey)
    assert.deepEqual(
      testLog.map((d) => d.endpoint_id),
      [testEnv.endpoint.id],
    )
  })
})
