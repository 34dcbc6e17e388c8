import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, beforeEach, describe, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { createTestApp, orderBody, rowCounts, type TestApp } from '../helpers/app.ts'
import { assertValidation } from '../helpers/errors.ts'

/**
 * Input that passes validation must also be something the database accepts:
 * what it would refuse is a 422 naming the field or parameter (or, for an id
 * in the path, a 404: such an id cannot exist), never a 500.
 */

const cursorOf = (text: string) => Buffer.from(text, 'utf8').toString('base64url')

describe('input the database would refuse', () => {
  let t: TestApp
  let key: string
  let orgId: string
  let counts: Record<string, number>

  before(async () => {
    t = await createTestApp()
    const tenant = await t.tenant()
    key = tenant.liveKey
    orgId = tenant.orgId
  })
  after(() => t.close())
  beforeEach(async () => {
    counts = await rowCounts(t.db)
  })

  describe('an upload_id in the urn:uuid: form (a UUID to RFC 4122, not to PostgreSQL)', () => {
    const body = () =>
      orderBody({
        items: [{ name: 'Mug', quantity: 1, files: [{ upload_id: `urn:uuid:${randomUUID()}` }] }],
      })

    test('POST /v1/orders: 422 invalid_format on the upload_id', async () => {
      assertValidation(await t.api(key, 'POST', '/v1/orders', body()), [
        ['invalid_format', 'items.0.files.0.upload_id'],
      ])
      assert.deepEqual(await rowCounts(t.db), counts)
    })

    test('operator shop orders: the same', async () => {
      const res = await t.admin('POST', `/admin/v1/organizations/${orgId}/shop-orders`, body())
      assertValidation(res, [['invalid_format', 'items.0.files.0.upload_id']])
      assert.deepEqual(await rowCounts(t.db), counts)
    })

    test('an upper-case UUID is still a UUID (and unknown here: file_not_found)', async () => {
      const res = await t.api(
        key,
        'POST',
        '/v1/orders',
        orderBody({
          items: [{ name: 'Mug', quantity: 1, files: [{ upload_id: randomUUID().toUpperCase() }] }],
        }),
      )
      assertValidation(res, [['file_not_found', 'items[0].files[0].upload_id']])
    })
  })

  describe('a cursor whose instant the database cannot hold', () => {
    const id = '01a2144a-00f4-71ca-a345-046f78dab947'
    const cursors: [string, string][] = [
      ['year -200000', `-200000-01-01T00:00:00.000Z|${id}`],
      ['year 275760 (the last a Date can hold)', `+275760-09-13T00:00:00.000Z|${id}`],
      ['year 10000', `+010000-01-01T00:00:00.000Z|${id}`],
      ['year 0', `0000-06-01T00:00:00.000Z|${id}`],
      ['an instant not written as the service writes it', `Nov 22 2026|${id}`],
      ['an id in the urn:uuid: form', `2026-11-22T10:00:00.000Z|urn:uuid:${id}`],
      ['a NUL once decoded (the cursor itself is plain base64url)', `2026-11-22T10:00:00.000Z|${id}\u0000`],
    ]
    for (const [name, text] of cursors) {
      test(`${name}: 422 invalid_format on cursor, public and operator lists`, async () => {
        const cursor = cursorOf(text)
        assertValidation(await t.api(key, 'GET', `/v1/orders?cursor=${cursor}`), [
          ['invalid_format', 'cursor'],
        ])
        assertValidation(await t.admin('GET', `/admin/v1/organizations/${orgId}/orders?cursor=${cursor}`), [
          ['invalid_format', 'cursor'],
        ])
      })
    }

    test('a cursor the service wrote still pages on', async () => {
      for (let i = 0; i < 2; i++)
        assert.equal((await t.api(key, 'POST', '/v1/orders', orderBody())).statusCode, 201)
      const first = await t.api(key, 'GET', '/v1/orders?limit=1')
      const cursor = first.json().next_cursor
      assert.equal(typeof cursor, 'string')
      const second = await t.api(key, 'GET', `/v1/orders?limit=1&cursor=${cursor}`)
      assert.equal(second.statusCode, 200, second.body)
      assert.notEqual(second.json().data[0].id, first.json().data[0].id)
    })
  })

  describe('ids in the urn:uuid: form anywhere else: an id that cannot exist', () => {
    const urn = `urn:uuid:${randomUUID()}`
    const routes: [string, InjectOptions['method'], () => string, unknown?][] = [
      ['order', 'GET', () => `/v1/orders/${urn}`],
      ['webhook endpoint delete', 'DELETE', () => `/v1/webhook-endpoints/${urn}`],
      ['webhook endpoint test', 'POST', () => `/v1/webhook-endpoints/${urn}/test`],
      ['delivery log of an endpoint', 'GET', () => `/v1/webhook-deliveries?endpoint_id=${urn}`],
    ]
    for (const [name, method, url] of routes) {
      test(`${name}: 404 not_found`, async () => {
        const res = await t.api(key, method, url())
        assert.equal(res.statusCode, 404, res.body)
        assert.equal(res.json().error.code, 'not_found')
      })
    }

    const operatorRoutes: [string, InjectOptions['method'], () => string, unknown?][] = [
      ['organization', 'GET', () => `/admin/v1/organizations/${urn}/orders`],
      ['order', 'GET', () => `/admin/v1/orders/${urn}`],
      ['order file', 'GET', () => `/admin/v1/orders/${urn}/files/${urn}`],
      ['api key', 'DELETE', () => `/admin/v1/api-keys/${urn}`],
      [
        'production order',
        'POST',
        () => `/admin/v1/production-orders/${urn}/status`,
        { status: 'completed' },
      ],
      ['production job', 'POST', () => `/admin/v1/production-jobs/${urn}/complete`],
      ['order cancel', 'POST', () => `/admin/v1/orders/${urn}/cancel`],
      ['redelivery', 'POST', () => `/admin/v1/webhook-deliveries/${urn}/redeliver`],
    ]
    for (const [name, method, url, body] of operatorRoutes) {
      test(`operator ${name}: 404 not_found`, async () => {
        const res = await t.admin(method, url(), body)
        assert.equal(res.statusCode, 404, res.body)
        assert.equal(res.json().error.code, 'not_found')
      })
    }

    test('operator delivery log filtered by such ids: an empty list', async () => {
      const res = await t.admin(
        'GET',
        `/admin/v1/webhook-deliveries?organization_id=${urn}&endpoint_id=${urn}`,
      )
      assert.equal(res.statusCode, 200, res.body)
      assert.deepEqual(res.json().data, [])
    })
  })
})
