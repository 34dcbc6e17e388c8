import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { EVENT_TYPES } from '../../../src/modules/webhooks/outbox/events.ts'
import { useTestApp } from '../../helpers/app.ts'
import { assertError, assertValidation } from '../../helpers/errors.ts'
import { loopbackResolver } from '../../helpers/https-receiver.ts'
import {
  createEndpoint,
  ENDPOINT_KEYS,
  type Endpoint,
  endpointRows,
  listEndpoints,
  NO_WEBHOOK_SCOPE,
  UNKNOWN_ID,
} from '../../helpers/webhook-endpoints.ts'

const t = useTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })

const create = (key: string, body: Record<string, unknown>) =>
  t.api(key, 'POST', '/v1/webhook-endpoints', { url: 'https://webhook.test/filtered', ...body })
const patch = (key: string | undefined, id: string, body: unknown) =>
  t.api(key, 'PATCH', `/v1/webhook-endpoints/${id}`, body)

describe('enabled_events on POST /v1/webhook-endpoints', () => {
  test('default ["*"]; a list is stored and shown as given, a repeated type once', async () => {
    const org = await t.tenant()
    const all = await createEndpoint(t, org.liveKey, 'https://webhook.test/all')
    assert.deepEqual(Object.keys(all.endpoint).sort(), ENDPOINT_KEYS)
    assert.deepEqual(all.endpoint.enabled_events, ['*'])

    const res = await create(org.liveKey, {
      enabled_events: ['order.cancelled', 'order.received', 'order.cancelled'],
    })
    assert.equal(res.statusCode, 201, res.body)
    const some = res.json().data.endpoint as Endpoint
    assert.deepEqual(some.enabled_events, ['order.cancelled', 'order.received'])
    const star = await create(org.liveKey, { enabled_events: ['*', '*'] })
    assert.equal(star.statusCode, 201, star.body)
    assert.deepEqual(star.json().data.endpoint.enabled_events, ['*'])

    const rows = await endpointRows(t, org.orgId)
    assert.deepEqual(rows.find((r) => r.id === some.id)?.enabled_events, [
      'order.cancelled',
      'order.received',
    ])
    assert.deepEqual(rows.find((r) => r.id === all.endpoint.id)?.enabled_events, ['*'])
    const listed = await listEndpoints(t, org.liveKey)
    assert.deepEqual(
      listed.find((e) => e.id === some.id),
      some,
    )
  })

  test('unknown types, ping, "*" among types, an empty list: 422 naming each entry, nothing created', async () => {
    const org = await t.tenant()
    const cases: [unknown, [string, string][]][] = [
      [['order.received', 'order.shipped'], [['invalid_format', 'enabled_events[1]']]],
      [
        ['nope', 'order.received', 'Order.Cancelled'],
        [
          ['invalid_format', 'enabled_events[0]'],
          ['invalid_format', 'enabled_events[2]'],
        ],
      ],
      [['ping'], [['invalid_format', 'enabled_events[0]']]],
      [['order.received', '*'], [['invalid_format', 'enabled_events[1]']]],
      [[], [['too_few', 'enabled_events']]],
      [['order.received', 7], [['invalid_type', 'enabled_events.1']]],
      ['*', [['invalid_type', 'enabled_events']]],
      [Array(21).fill('order.received'), [['too_many', 'enabled_events']]],
    ]
    for (const [enabled_events, entries] of cases) {
      assertValidation(await create(org.liveKey, { enabled_events }), entries)
    }
    const unknown = assertValidation(await create(org.liveKey, { enabled_events: ['order.shipped'] }), [
      ['invalid_format', 'enabled_events[0]'],
    ])
    assert.match(unknown.errors[0].message, /^enabled_events\[0\] must be one of "\*", "order\.received", /)
    assert.doesNotMatch(unknown.errors[0].message, /ping/)
    const ping = assertValidation(await create(org.liveKey, { enabled_events: ['ping'] }), [
      ['invalid_format', 'enabled_events[0]'],
    ])
    assert.match(ping.errors[0].message, /ping.*always reaches the endpoint/)
    assert.deepEqual(await endpointRows(t, org.orgId), [])
  })

  test('the OpenAPI document lists as enum exactly what the service accepts, and answers tolerate more', async () => {
    const org = await t.tenant()
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/enum')
    const schemas = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json().components.schemas
    const accepted: string[] = schemas.WebhookEndpointRequest.properties.enabled_events.items.enum
    assert.deepEqual(schemas.WebhookEndpointUpdate.properties.enabled_events.items.enum, accepted)
    for (const type of accepted) {
      const res = await patch(org.liveKey, endpoint.id, { enabled_events: [type] })
      assert.equal(res.statusCode, 200, `${type}: ${res.body}`)
      assert.deepEqual(res.json().data.endpoint.enabled_events, [type])
    }
    // Every type an endpoint can receive is listed; ping (always sent) and unknown ones are refused.
    assert.deepEqual(
      [...EVENT_TYPES, '*'].filter((type) => !accepted.includes(type)),
      ['ping'],
    )
    for (const type of ['ping', 'order.shipped']) {
      assertValidation(await patch(org.liveKey, endpoint.id, { enabled_events: [type] }), [
        ['invalid_format', 'enabled_events[0]'],
      ])
    }
    const [known, any] = schemas.WebhookEndpoint.properties.enabled_events.items.anyOf
    assert.deepEqual([known.enum, any], [accepted, { type: 'string' }])
  })
})

describe('PATCH /v1/webhook-endpoints/{id}', () => {
  test('changes description and/or enabled_events; 200 with the endpoint, stored, nothing else moves', async () => {
    const org = await t.tenant()
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/p', 'first')
    const [before] = await endpointRows(t, org.orgId)

    let res = await patch(org.liveKey, endpoint.id, { enabled_events: ['order.production_completed'] })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(Object.keys(res.json()), ['data'])
    assert.deepEqual(Object.keys(res.json().data), ['endpoint'])
    assert.deepEqual(res.json().data.endpoint, {
      ...endpoint,
      enabled_events: ['order.production_completed'],
    })

    res = await patch(org.liveKey, endpoint.id, { description: 'second' })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.endpoint, {
      ...endpoint,
      description: 'second',
      enabled_events: ['order.production_completed'],
    })

    res = await patch(org.liveKey, endpoint.id, { description: '', enabled_events: ['*'] })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.endpoint, { ...endpoint, description: '', enabled_events: ['*'] })

    // An empty body changes nothing and answers the endpoint.
    res = await patch(org.liveKey, endpoint.id, {})
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().data.endpoint, { ...endpoint, description: '', enabled_events: ['*'] })

    const [after] = await endpointRows(t, org.orgId)
    assert.deepEqual(after, { ...before, description: '', enabled_events: ['*'] })
    assert.deepEqual(await listEndpoints(t, org.liveKey), [res.json().data.endpoint])
  })

  test('bad input is 422 and changes nothing: url, unknown fields, bad types, wrong JSON types', async () => {
    const org = await t.tenant()
    const { endpoint } = await createEndpoint(t, org.liveKey, 'https://webhook.test/keep', 'keep')
    await patch(org.liveKey, endpoint.id, { enabled_events: ['order.received'] })
    const before = await endpointRows(t, org.orgId)

    const url = assertValidation(await patch(org.liveKey, endpoint.id, { url: 'https://webhook.test/new' }), [
      ['invalid_format', 'url'],
    ])
    assert.match(url.errors[0].message, /register a new endpoint/)
    assert.match(url.message, /register a new endpoint/)
    // The same URL is no exception; with other mistakes, every entry at once.
    assertValidation(await patch(org.liveKey, endpoint.id, { url: endpoint.url, description: 'x' }), [
      ['invalid_format', 'url'],
    ])
    assertValidation(
      await patch(org.liveKey, endpoint.id, {
        url: endpoint.url,
        enabled_events: ['order.received', 'nope'],
      }),
      [
        ['invalid_format', 'url'],
        ['invalid_format', 'enabled_events[1]'],
      ],
    )
    assertValidation(
      await patch(org.liveKey, endpoint.id, { description: 'new', enabled_events: ['order.cancelled', 'x'] }),
      [['invalid_format', 'enabled_events[1]']],
    )
    assertValidation(await patch(org.liveKey, endpoint.id, { description: 'new', enabled_events: [] }), [
      ['too_few', 'enabled_events'],
    ])
    const unknown = assertValidation(await patch(org.liveKey, endpoint.id, { desciption: 'new' }), [
      ['unknown_field', 'desciption'],
    ])
    assert.match(unknown.errors[0].message, /did you mean `description`/)
    assertValidation(await patch(org.liveKey, endpoint.id, { is_active: true }), [
      ['unknown_field', 'is_active'],
    ])
    assertValidation(await patch(org.liveKey, endpoint.id, { description: 5 }), [
      ['invalid_type', 'description'],
    ])
    assertValidation(await patch(org.liveKey, endpoint.id, { description: 'x'.repeat(501) }), [
      ['too_long', 'description'],
    ])
    assertValidation(await patch(org.liveKey, endpoint.id, ['order.received']), [['invalid_type', 'body']])
    assertError(await patch(org.liveKey, endpoint.id, '{"description":'), 400, 'invalid_json')

    assert.deepEqual(await endpointRows(t, org.orgId), before)
  })

  test('unknown, foreign and other-environment ids 404; a deleted endpoint 422; the scope first', async () => {
    const org = await t.tenant()
    const other = await t.tenant()
    const mine = await createEndpoint(t, org.liveKey, 'https://webhook.test/mine')
    const theirs = await createEndpoint(t, other.liveKey, 'https://webhook.test/theirs')
    const myTest = await createEndpoint(t, org.testKey, 'https://webhook.test/mine-test')
    const body = { description: 'taken over' }
    for (const [key, id] of [
      [org.liveKey, UNKNOWN_ID],
      [org.liveKey, 'not-a-uuid'],
      [org.liveKey, theirs.endpoint.id],
      [org.liveKey, myTest.endpoint.id],
      [org.testKey, mine.endpoint.id],
    ] as const) {
      assertError(await patch(key, id, body), 404, 'not_found')
    }
    // A 404 even when the body is also wrong: the endpoint is looked up first.
    assertError(
      await patch(org.liveKey, theirs.endpoint.id, { url: 'https://webhook.test/x' }),
      404,
      'not_found',
    )

    const narrow = await t.createKey(org.orgId, { environment: 'live', scopes: NO_WEBHOOK_SCOPE })
    assertError(await patch(narrow.key, theirs.endpoint.id, body), 403, 'insufficient_scope')
    assertError(await patch(narrow.key, mine.endpoint.id, body), 403, 'insufficient_scope')
    assertError(await patch(undefined, mine.endpoint.id, body), 401, 'invalid_api_key')

    assert.equal(
      (await t.api(org.liveKey, 'DELETE', `/v1/webhook-endpoints/${mine.endpoint.id}`)).statusCode,
      200,
    )
    const before = await endpointRows(t, org.orgId)
    const gone = assertValidation(await patch(org.liveKey, mine.endpoint.id, body), [
      ['invalid_format', 'id'],
    ])
    assert.match(gone.message, /disabled/)
    assertValidation(await patch(org.liveKey, mine.endpoint.id, { enabled_events: ['order.received'] }), [
      ['invalid_format', 'id'],
    ])
    assert.deepEqual(await endpointRows(t, org.orgId), before)
    for (const row of [...before, ...(await endpointRows(t, other.orgId))]) {
      assert.notEqual(row.description, 'taken over')
    }
  })
})
