import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, orderBody, type TestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/errors.ts'
import { createEndpoint, endpointRows, UNKNOWN_ID } from '../helpers/webhook-endpoints.ts'

type Tenant = Awaited<ReturnType<TestApp['tenant']>>

/** What a key of the other environment is told, for an id its organization holds there. */
const elsewhere = (noun: string, asked: 'test' | 'live', holds: 'test' | 'live') =>
  `No ${noun} with this id in ${asked} mode. This ${noun} exists in ${holds} mode; use a ${holds} key (svc_${holds}_…).`

const LISTEN =
  'run `npx order-intake listen --forward-to http://localhost:4242/webhooks` with your API key instead'

describe('messages that say what to do', () => {
  let t: TestApp
  let a: Tenant
  let stranger: Tenant
  before(async () => {
    // Every host resolves to a public address; IP literals are checked as they are.
    t = await createTestApp({ resolver: async () => ['93.184.216.34'] })
    a = await t.tenant('Owner')
    stranger = await t.tenant('Stranger')
  })
  after(() => t.close())

  /** The answer to `key`, which must be 404 not_found; its whole body, to compare. */
  async function notFound(
    key: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ) {
    const res = await t.api(key, method, url, body)
    const error = assertError(res, 404, 'not_found', `${method} ${url}`)
    return { error, body: res.json() }
  }

  test('an order id of the other environment: 404 naming the environment and the key that reads it', async () => {
    const live = await t.api(a.liveKey, 'POST', '/v1/orders', orderBody())
    const testOrder = await t.api(a.testKey, 'POST', '/v1/orders', orderBody())
    assert.equal(live.statusCode, 201, live.body)
    assert.equal(testOrder.statusCode, 201, testOrder.body)
    const liveId = live.json().data.order.id as string
    const testId = testOrder.json().data.order.id as string

    const fromTest = await notFound(a.testKey, 'GET', `/v1/orders/${liveId}`)
    assert.equal(fromTest.error.message, elsewhere('order', 'test', 'live'))
    const fromLive = await notFound(a.liveKey, 'GET', `/v1/orders/${testId}`)
    assert.equal(fromLive.error.message, elsewhere('order', 'live', 'test'))

    // Another organization's id is answered exactly as an unknown one, in either environment.
    const unknown = await notFound(stranger.liveKey, 'GET', `/v1/orders/${UNKNOWN_ID}`)
    assert.equal(unknown.error.message, 'No order with this id.')
    for (const [key, id] of [
      [stranger.liveKey, liveId],
      [stranger.testKey, liveId],
      [stranger.liveKey, testId],
      [stranger.testKey, testId],
    ] as const) {
      assert.deepEqual((await notFound(key, 'GET', `/v1/orders/${id}`)).body, unknown.body)
    }
    // The owner's keys still read their own.
    assert.equal((await t.api(a.liveKey, 'GET', `/v1/orders/${liveId}`)).statusCode, 200)
    assert.equal((await t.api(a.testKey, 'GET', `/v1/orders/${testId}`)).statusCode, 200)
  })

  test('a webhook endpoint of the other environment: every operation on its id says so, and changes nothing', async () => {
    const { endpoint } = await createEndpoint(t, a.liveKey, 'https://hooks.example.com/orders')
    const testEndpoint = (await createEndpoint(t, a.testKey, 'https://hooks.example.com/test')).endpoint
    const before = await endpointRows(t, a.orgId)
    const since = new Date(Date.now() - 3600_000).toISOString()
    const operations = (id: string) =>
      [
        ['PATCH', `/v1/webhook-endpoints/${id}`, { description: 'changed' }],
        ['DELETE', `/v1/webhook-endpoints/${id}`, undefined],
        ['POST', `/v1/webhook-endpoints/${id}/test`, undefined],
        ['POST', `/v1/webhook-endpoints/${id}/rotate-secret`, {}],
        ['POST', `/v1/webhook-endpoints/${id}/replay`, { since }],
        ['GET', `/v1/webhook-endpoints/${id}/replay`, undefined],
        ['GET', `/v1/webhook-deliveries?endpoint_id=${id}`, undefined],
      ] as const

    for (const [method, url, body] of operations(endpoint.id)) {
      const { error } = await notFound(a.testKey, method, url, body)
      assert.equal(error.message, elsewhere('webhook endpoint', 'test', 'live'), `${method} ${url}`)
    }
    for (const [method, url, body] of operations(testEndpoint.id)) {
      const { error } = await notFound(a.liveKey, method, url, body)
      assert.equal(error.message, elsewhere('webhook endpoint', 'live', 'test'), `${method} ${url}`)
    }
    for (const [method, url, body] of operations(endpoint.id)) {
      const { error } = await notFound(stranger.liveKey, method, url, body)
      assert.equal(error.message, 'No webhook endpoint with this id.', `${method} ${url}`)
      assert.equal((await notFound(stranger.testKey, method, url, body)).error.message, error.message)
    }
    // Nothing changed: no rotation, no deletion, no description, no ping queued.
    assert.deepEqual(await endpointRows(t, a.orgId), before)
    const deliveries = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.equal(deliveries.statusCode, 200, deliveries.body)
    assert.deepEqual(deliveries.json().data, [])
  })

  test('a delivery of the other environment: reading and redelivering it say so; another organization’s stays plain', async () => {
    const { endpoint } = await createEndpoint(t, a.liveKey, 'https://hooks.example.com/deliveries')
    assert.equal(
      (await t.api(a.liveKey, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).statusCode,
      202,
    )
    const log = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    const [delivery] = log.json().data as { id: string }[]
    assert.ok(delivery, log.body)

    const read = await notFound(a.testKey, 'GET', `/v1/webhook-deliveries/${delivery.id}`)
    assert.equal(read.error.message, elsewhere('delivery', 'test', 'live'))
    const again = await notFound(a.testKey, 'POST', `/v1/webhook-deliveries/${delivery.id}/redeliver`)
    assert.equal(again.error.message, elsewhere('delivery', 'test', 'live'))

    const unknown = await notFound(stranger.liveKey, 'GET', `/v1/webhook-deliveries/${UNKNOWN_ID}`)
    assert.equal(unknown.error.message, 'No delivery with this id.')
    for (const key of [stranger.liveKey, stranger.testKey]) {
      assert.deepEqual(
        (await notFound(key, 'GET', `/v1/webhook-deliveries/${delivery.id}`)).body,
        unknown.body,
      )
      assert.equal(
        (await notFound(key, 'POST', `/v1/webhook-deliveries/${delivery.id}/redeliver`)).error.message,
        unknown.error.message,
      )
    }
    // The refused redelivery added nothing to the log.
    const after = await t.api(a.liveKey, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)
    assert.equal(after.json().data.length, 1)
  })

  test('an http:// or private webhook URL: 422 pointing at listen for local development, nothing stored', async () => {
    const org = await t.tenant('Local developer')
    const plain = assertError(
      await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url: 'http://localhost:4242/webhooks' }),
      422,
      'webhook_url_invalid',
    )
    assert.equal(plain.field, 'url')
    assert.equal(
      plain.message,
      `Webhook URLs must use https. To receive webhooks on your own machine, ${LISTEN}.`,
    )
    for (const url of [
      'https://127.0.0.1:4242/webhooks',
      'https://192.168.1.20/webhooks',
      'https://[::1]/hook',
    ]) {
      const blocked = assertError(
        await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url }),
        422,
        'webhook_target_blocked',
        url,
      )
      assert.ok(blocked.message.includes(LISTEN), blocked.message)
    }
    // Another scheme is not a local development matter: no listen advice.
    const ftp = assertError(
      await t.api(org.testKey, 'POST', '/v1/webhook-endpoints', { url: 'ftp://hooks.example.com/' }),
      422,
      'webhook_url_invalid',
    )
    assert.equal(ftp.message, 'Webhook URLs must use https.')
    assert.deepEqual(await endpointRows(t, org.orgId), [])
  })
})
