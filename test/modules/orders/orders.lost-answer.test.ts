import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import type { QueryId, RawNode } from 'kysely'
import { ERROR_CATALOG } from '../../../src/http/errors.ts'
import {
  createTestApp,
  createTestDatabase,
  orderBody,
  type TestApp,
  type TestDatabase,
} from '../../helpers/app.ts'

/**
 * The order's statement commits on the server, and its answer never reaches
 * the service (the client-side query timeout fires after COMMIT, as during a
 * PostgreSQL stall): the client gets 503, yet the order is stored.
 */
describe('POST /v1/orders answered 503 after its statement committed', () => {
  let t: TestApp
  let liveKey: string
  let testDb: TestDatabase
  let loseNextAnswer = false

  before(async () => {
    testDb = await createTestDatabase()
    const inserts = new WeakSet<QueryId>()
    const db = testDb.db.withPlugin({
      transformQuery({ node, queryId }) {
        const raw = node as unknown as RawNode
        if (raw.kind === 'RawNode' && raw.sqlFragments.join('').includes('insert into orders ')) {
          inserts.add(queryId)
        }
        return node
      },
      async transformResult({ result, queryId }) {
        if (loseNextAnswer && inserts.has(queryId)) {
          loseNextAnswer = false
          // node-postgres' query_timeout, after the statement has committed.
          throw new Error('Query read timeout')
        }
        return result
      },
    })
    t = await createTestApp({ testDb, db })
    liveKey = (await t.tenant()).liveKey
  })
  after(async () => {
    await t.close()
    await testDb.close()
  })

  test('the identical resend answers 200 with the same order, and there is one order.received event', async () => {
    const body = orderBody()
    loseNextAnswer = true
    const lost = await t.api(liveKey, 'POST', '/v1/orders', body)
    assert.equal(lost.statusCode, 503, lost.body)
    assert.equal(lost.json().error.code, 'service_unavailable')
    assert.equal(loseNextAnswer, false, 'the insert ran')

    const stored = await t.db
      .selectFrom('orders')
      .select('id')
      .where('external_order_id', '=', body.external_order_id)
      .execute()
    assert.equal(stored.length, 1, 'the order was stored despite the 503')

    const resent = await t.api(liveKey, 'POST', '/v1/orders', body)
    assert.equal(resent.statusCode, 200, resent.body)
    assert.equal(resent.json().data.order.id, stored[0]!.id)
    assert.deepEqual(resent.json().data.warnings, [])

    const again = await t.api(liveKey, 'POST', '/v1/orders', body)
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().data.order.id, stored[0]!.id)

    const events = await t.db
      .selectFrom('events')
      .select('type')
      .where('order_id', '=', stored[0]!.id)
      .execute()
    assert.deepEqual(
      events.map((e) => e.type),
      ['order.received'],
    )
  })

  test('the documentation says a 503 may have stored the order, and that resending is safe', async () => {
    const operations = await readFile(new URL('../../../docs/operations.md', import.meta.url), 'utf8')
    assert.doesNotMatch(operations, /503 is safe to resend: nothing was stored/)
    assert.match(operations, /A 503 does not say that nothing was stored/)
    const entry = ERROR_CATALOG.service_unavailable
    assert.match(String(entry.description), /may have been stored/)
    assert.match(String(entry.retry), /answered 200 with the same order and no second event/)
  })
})
