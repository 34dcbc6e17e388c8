import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { memberOf, operatorOf } from '../../helpers/dashboard.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../../helpers/https-receiver.ts'
import {
  type Customer,
  customer,
  dumpDatabase,
  occurrences,
  ordersOfEveryPath,
  textsOf,
} from '../../helpers/personal-data.ts'
import { waitUntil } from '../../helpers/wait.ts'

/**
 * A customer erased from an organization: found by e-mail, previewed, erased
 * by an owner; then no table of the database holds their name, e-mail,
 * phone, personalization or file name, while another customer of the same
 * organization keeps all of theirs, and the orders keep what production and
 * billing need.
 */
describe('erasing a customer', () => {
  let t: TestApp
  let receiver: Receiver
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  let owner: Awaited<ReturnType<typeof memberOf>>
  const anna = customer('Anna')
  const bert = customer('Bert')
  /** What the receiver (an ERP) knows of each order: it answers with the customer's name. */
  const namesByExternal = new Map<string, string>()
  let annas: Awaited<ReturnType<typeof ordersOfEveryPath>>
  let berts: Awaited<ReturnType<typeof ordersOfEveryPath>>

  before(async () => {
    t = await createTestApp({
      logger: { level: 'error' },
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
    })
    receiver = await startReceiver((req) => {
      const body = req.body.toString()
      const external = /"external_order_id":"([^"]+)"/.exec(body)?.[1] ?? ''
      return { status: 200, body: `accepted ${body} for ${namesByExternal.get(external) ?? 'nobody'}` }
    })
    tenant = await t.tenant('Erasing Prints')
    owner = await memberOf(t, tenant.orgId, 'owner')
    const endpoint = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: receiver.url('/erp'),
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    await t.startDispatcher({ ca: receiver.ca, timeoutMs: 10_000 })
    annas = await ordersOfEveryPath(t, tenant, anna)
    berts = await ordersOfEveryPath(t, tenant, bert)
    for (const [c, ids] of [
      [anna, annas.ids],
      [bert, berts.ids],
    ] as [Customer, string[]][]) {
      const rows = await t.db
        .selectFrom('orders')
        .select('external_order_id')
        .where('id', 'in', ids)
        .execute()
      for (const r of rows) namesByExternal.set(r.external_order_id, c.name)
    }
    // A replay sends every event again: more deliveries, more answers.
    const endpointId = endpoint.json().data.endpoint.id
    const replay = await t.api(tenant.liveKey, 'POST', `/v1/webhook-endpoints/${endpointId}/replay`, {
      since: new Date(Date.now() - 3_600_000).toISOString(),
    })
    assert.equal(replay.statusCode, 202, replay.body)
    await waitUntil(
      async () => {
        const rows = await t.db
          .selectFrom('webhook_deliveries')
          .select(['status', 'response_snippet'])
          .where('organization_id', '=', tenant.orgId)
          .execute()
        const replayed = await t.db
          .selectFrom('webhook_replays')
          .select('status')
          .where('endpoint_id', '=', endpointId)
          .executeTakeFirst()
        return (
          replayed?.status === 'completed' && rows.length > 0 && rows.every((r) => r.status === 'succeeded')
        )
      },
      'every delivery and the replay answered',
      { timeoutMs: 30_000 },
    )
  })
  after(async () => {
    await t.close()
    await receiver.close()
  })

  test('before: the database holds the customers, in the orders, the request log, the audit log and the answers', async () => {
    const dump = await dumpDatabase(t.db)
    for (const c of [anna, bert]) {
      const found = occurrences(dump, [c.email])
      for (const table of ['orders:', 'api_requests:', 'audit_log:']) {
        assert.ok(
          found.some((line) => line.startsWith(table)),
          `${c.email} in ${table} (${found.length} lines)`,
        )
      }
      // The receiver's answers name the customer.
      for (const table of ['webhook_deliveries:', 'webhook_attempts:']) {
        assert.ok(
          occurrences(dump, [c.name]).some((line) => line.startsWith(table)),
          `${c.name} in ${table}`,
        )
      }
      assert.ok(occurrences(dump, [c.greeting]).some((l) => l.startsWith('order_items:')))
      assert.ok(occurrences(dump, [c.file]).some((l) => l.startsWith('uploads:')))
    }
  })

  test('the preview counts what goes and changes nothing; a viewer and a developer cannot erase', async () => {
    const before = await dumpDatabase(t.db)
    const preview = await owner.client.call('POST', '/personal-data/preview', {
      email: anna.email.toUpperCase(),
    })
    assert.equal(preview.statusCode, 200, preview.body)
    const data = preview.json().data
    assert.deepEqual(data.searched_by, ['email'])
    assert.equal(data.orders.total, 4)
    assert.deepEqual([data.orders.live, data.orders.test, data.orders.already_erased], [3, 1, 0])
    // The completed order and the test order are finished.
    assert.equal(data.orders.finished, 2)
    assert.deepEqual(data.orders.first.map((o: { id: string }) => o.id).sort(), [...annas.ids].sort())
    assert.equal(data.orders.first[0].customer.email, anna.email)
    // The two created orders' lines, their answers again (idempotent resends none), and the refused one.
    assert.ok(data.request_log_lines >= 3, `${data.request_log_lines} lines`)
    assert.ok(data.audit_entries >= 1, `${data.audit_entries} audit entries`)
    assert.ok(data.webhook_answers >= 4, `${data.webhook_answers} answers`)
    assert.ok(data.events_kept >= 4, `${data.events_kept} events`)

    for (const role of ['viewer', 'developer'] as const) {
      const member = await memberOf(t, tenant.orgId, role)
      const refused = await member.client.call('POST', '/personal-data/erasures', { email: anna.email })
      assert.equal(refused.statusCode, 403, refused.body)
      assert.equal(refused.json().error.code, 'role_required')
    }
    const viewer = await memberOf(t, tenant.orgId, 'viewer')
    for (const path of ['/personal-data/preview', '/personal-data/exports']) {
      const refused = await viewer.client.call('POST', path, { email: anna.email })
      assert.equal(refused.statusCode, 403, refused.body)
    }
    for (const body of [
      {},
      { email: `${anna.email}\u0000` },
      { email: anna.email, personalization: 'some' },
      { email: anna.email, extra: true },
      { order_ids: ['not-an-id'] },
    ]) {
      const refused = await owner.client.call('POST', '/personal-data/erasures', body)
      assert.equal(refused.statusCode, 422, `${JSON.stringify(body)}: ${refused.body}`)
      assert.equal(refused.json().error.code, 'validation_failed')
    }
    const after = await dumpDatabase(t.db)
    // Only the new members' rows (accounts, sessions, their sign-ins) came.
    assert.deepEqual(occurrences(after, [anna.email]), occurrences(before, [anna.email]))
  })

  test('a developer exports everything stored about the customer as a JSON file; a viewer cannot; audited', async () => {
    const developer = await memberOf(t, tenant.orgId, 'developer')
    const res = await developer.client.call('POST', '/personal-data/exports', { email: anna.email })
    assert.equal(res.statusCode, 200, res.body)
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="personal-data-\d{4}-\d\d-\d\d\.json"$/,
    )
    assert.match(String(res.headers['content-type']), /^application\/json/)
    const file = res.json()
    assert.deepEqual(file.searched_by, ['email'])
    assert.deepEqual(file.orders.map((o: { id: string }) => o.id).sort(), [...annas.ids].sort())
    assert.ok(file.orders.every((o: { customer: { name: string } }) => o.customer.name === anna.name))
    const bodies = file.request_log.map((l: { request_body: string | null }) => l.request_body ?? '')
    assert.ok(
      bodies.some((b: string) => b.includes(anna.email)),
      'the created orders’ bodies',
    )
    assert.ok(
      file.request_log.some((l: { status: number }) => l.status === 422),
      'the refused order’s line',
    )
    assert.ok(file.audit_entries.some((e: { action: string }) => e.action === 'order.changed'))
    assert.ok(file.events.some((e: { type: string }) => e.type === 'order.received'))
    assert.ok(
      file.webhook_deliveries.some((d: { response_snippet: string | null }) =>
        d.response_snippet?.includes(anna.name),
      ),
    )
    // Nothing of the other customer.
    assert.doesNotMatch(res.body, new RegExp(bert.email.replace(/\./g, '\\.')))
    const audit = await owner.client.call('GET', '/audit-log?action=personal_data.exported')
    const [entry] = audit.json().data
    assert.equal(entry.actor, developer.email)
    assert.match(entry.summary, /exported a customer’s personal data: 4 orders \(found by email\)/)
    assert.doesNotMatch(JSON.stringify(entry), new RegExp(anna.email.replace(/\./g, '\\.')))
  })

  test('the erasure: nothing of the customer is left in any table; the other customer keeps everything', async () => {
    const bertBefore = occurrences(await dumpDatabase(t.db), textsOf(bert))
    const ordersBefore = await t.db.selectFrom('orders').selectAll().where('id', 'in', annas.ids).execute()
    const erased = await owner.client.call('POST', '/personal-data/erasures', {
      email: anna.email,
      personalization: 'all',
    })
    assert.equal(erased.statusCode, 200, erased.body)
    const counts = erased.json().data
    assert.equal(counts.orders, 4)
    assert.equal(counts.personalization, 4)
    assert.ok(counts.request_log_lines >= 3)
    assert.ok(counts.webhook_answers >= 4)

    const dump = await dumpDatabase(t.db)
    assert.deepEqual(occurrences(dump, textsOf(anna)), [], 'nothing of the erased customer')
    assert.deepEqual(occurrences(dump, textsOf(bert)), bertBefore, 'the other customer untouched')

    // The orders keep their ids, numbers, items, prices and dates; updated_at moved.
    const after = await t.db.selectFrom('orders').selectAll().where('id', 'in', annas.ids).execute()
    for (const row of after) {
      const was = ordersBefore.find((o) => o.id === row.id)!
      assert.equal(row.customer_name, 'erased')
      assert.equal(row.customer_email, null)
      assert.equal(row.customer_phone, null)
      assert.equal(row.external_order_id, was.external_order_id)
      assert.equal(row.total_amount, was.total_amount)
      assert.ok(row.updated_at > was.updated_at)
      assert.ok(row.erased_at && row.personalization_erased_at)
    }
    const api = await t.api(tenant.liveKey, 'GET', `/v1/orders/${annas.finished}`)
    assert.equal(api.statusCode, 200, api.body)
    const order = api.json().data.order
    assert.deepEqual(order.customer, { name: 'erased', email: null, phone: null })
    assert.deepEqual(order.items[0].personalization, { text: 'erased', color: 'erased', size: 'erased' })
    assert.deepEqual(order.items[0].files, [{ name: 'erased.png', role: 'print' }])
    assert.deepEqual(
      order.items.map((i: { sku: string; quantity: number; price: number }) => [i.sku, i.quantity, i.price]),
      [
        ['MUG-01', 2, 12.5],
        ['CARD-01', 1, 2],
      ],
    )
    // Pollers see the change.
    const since = ordersBefore.reduce((a, o) => (o.updated_at > a ? o.updated_at : a), new Date(0))
    const polled = await t.api(tenant.liveKey, 'GET', `/v1/orders?updated_since=${since.toISOString()}`)
    const ids = polled.json().data.map((o: { id: string }) => o.id)
    for (const id of [annas.finished, annas.changed]) assert.ok(ids.includes(id), `${id} polled`)

    // The audit entry names who and how many, never whose.
    const audit = await owner.client.call('GET', '/audit-log?action=personal_data.erased')
    const [entry] = audit.json().data
    assert.equal(entry.actor, owner.email)
    assert.match(entry.summary, /erased a customer’s personal data from 4 orders \(found by email\)/)
    assert.doesNotMatch(JSON.stringify(entry), new RegExp(anna.email.replace(/\./g, '\\.')))
  })

  test('erasing again changes nothing; the events and deliveries keep their ids and types', async () => {
    // The request log writes its lines off the request path: the reads above, now.
    await t.services.requests.recorder.flush()
    const before = await dumpDatabase(t.db)
    const again = await owner.client.call('POST', '/personal-data/erasures', {
      order_ids: annas.ids,
      personalization: 'all',
    })
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().data.orders, 0)
    const after = await dumpDatabase(t.db)
    const withoutAudit = (d: string) => d.split('\n').filter((l) => !l.startsWith('audit_log:'))
    assert.deepEqual(withoutAudit(after), withoutAudit(before))
    const events = await t.db
      .selectFrom('events')
      .select(['id', 'type', 'order_id'])
      .where('order_id', 'in', annas.ids)
      .execute()
    assert.ok(events.some((e) => e.type === 'order.received'))
    assert.ok(events.some((e) => e.type === 'order.updated'))
    const snippets = await t.db
      .selectFrom('webhook_deliveries')
      .select(sql<number>`count(*) filter (where response_snippet is not null)`.as('n'))
      .where(
        'event_id',
        'in',
        events.map((e) => e.id),
      )
      .executeTakeFirstOrThrow()
    assert.equal(Number(snippets.n), 0)
    // The payload page says the order's customer was erased, and shows the same bytes as ever.
    const delivery = await t.db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select(['webhook_deliveries.id', 'events.body'])
      .where('events.order_id', '=', annas.finished)
      .executeTakeFirstOrThrow()
    const payload = await owner.client.call(
      'GET',
      `/webhook-deliveries/${delivery.id}/payload?environment=live`,
    )
    assert.equal(payload.statusCode, 200, payload.body)
    assert.match(payload.json().data.event.order_erased_at, /^\d{4}-\d\d-\d\dT/)
    assert.equal(payload.json().data.event.body, delivery.body)
    const bert = await t.db
      .selectFrom('webhook_deliveries')
      .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
      .select('webhook_deliveries.id')
      .where('events.order_id', '=', berts.finished)
      .executeTakeFirstOrThrow()
    const kept = await owner.client.call('GET', `/webhook-deliveries/${bert.id}/payload?environment=live`)
    assert.equal(kept.json().data.event.order_erased_at, null)
  })

  test('an operator erases in the console and the operator API; the platform log says so', async () => {
    const carl = customer('Carl')
    const carls = await ordersOfEveryPath(t, tenant, carl)
    const operator = await operatorOf(t)
    const preview = await operator.client.call(
      'POST',
      `/operator/organizations/${tenant.orgId}/personal-data/preview`,
      {
        phone: carl.phone.replace(/\s/g, ''),
      },
    )
    assert.equal(preview.statusCode, 200, preview.body)
    // The order changed in the dashboard has another phone now.
    assert.equal(preview.json().data.orders.total, 3)
    const erased = await t.admin('POST', `/admin/v1/organizations/${tenant.orgId}/personal-data/erasures`, {
      name: carl.name.toLowerCase(),
    })
    assert.equal(erased.statusCode, 200, erased.body)
    assert.equal(erased.json().data.orders, 4)
    // The default: finished orders lose their personalization, open ones keep it.
    assert.equal(erased.json().data.personalization, 2)
    const items = await t.db
      .selectFrom('order_items')
      .select(['order_id', 'personalization'])
      .where('order_id', 'in', carls.ids)
      .where('position', '=', 0)
      .execute()
    const text = (id: string) => items.find((i) => i.order_id === id)!.personalization.text
    assert.equal(text(carls.finished), 'erased')
    assert.equal(text(carls.test), 'erased')
    assert.match(String(text(carls.changed)), /Happy birthday/)
    const unknown = await operator.client.call(
      'POST',
      '/operator/organizations/01900000-0000-7000-8000-000000000000/personal-data/erasures',
      { email: carl.email },
    )
    assert.equal(unknown.statusCode, 404, unknown.body)
    const log = await operator.client.call('GET', '/operator/audit-log?action=personal_data.erased')
    assert.equal(log.statusCode, 200, log.body)
    assert.ok(log.json().data.some((e: { actor: string }) => e.actor === 'operator token'))
  })
})
