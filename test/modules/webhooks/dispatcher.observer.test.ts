import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { AttemptOutcome } from '../../../src/modules/webhooks/http-attempt.ts'
import { createTestApp, orderBody, type TestApp } from '../../helpers/app.ts'
import { startReceiver } from '../../helpers/https-receiver.ts'
import { waitUntil } from '../../helpers/wait.ts'
import { closedPort, resolverWithWrongName } from '../../helpers/webhook-targets.ts'

let t: TestApp
before(async () => {
  t = await createTestApp({ resolver: resolverWithWrongName, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
})
after(() => t.close())

function observer() {
  const calls: { outcome: AttemptOutcome; durationMs: number }[] = []
  return {
    calls,
    attempted: (outcome: AttemptOutcome, durationMs: number) => calls.push({ outcome, durationMs }),
  }
}

/** The deliveries of an organization's endpoints, as the log keeps them. */
const deliveriesOf = (organizationId: string) =>
  t.db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', organizationId).execute()

async function endpoint(key: string, url: string): Promise<string> {
  const res = await t.api(key, 'POST', '/v1/webhook-endpoints', { url })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().data.endpoint.id
}

describe('webhook dispatcher: the observer', () => {
  test('is told of every finished attempt once, with its outcome and the duration the log keeps', async (ctx) => {
    const receiver = await startReceiver((req) =>
      req.url === '/fail'
        ? { status: 500 }
        : req.url === '/slow'
          ? { status: 200, delayMs: 3000 }
          : { status: 200 },
    )
    ctx.after(() => receiver.close())
    const tenant = await t.tenant()
    const expected = new Map<string, AttemptOutcome>([
      [await endpoint(tenant.liveKey, receiver.url('/ok')), 'succeeded'],
      [await endpoint(tenant.liveKey, receiver.url('/fail')), 'http_error'],
      [await endpoint(tenant.liveKey, receiver.url('/slow')), 'timeout'],
      [await endpoint(tenant.liveKey, `https://webhook.test:${await closedPort()}/hook`), 'connection_error'],
      [await endpoint(tenant.liveKey, receiver.url('/hook', 'wrong-name.test')), 'tls_error'],
    ])
    const seen = observer()
    const worker = await t.startDispatcher({
      ca: receiver.ca,
      timeoutMs: 500,
      retryDelaysMs: [60_000],
      observer: seen,
    })
    ctx.after(async () => {
      await worker.stop(100)
      await t.db.deleteFrom('webhook_queue').execute()
    })
    assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)

    const rows = await waitUntil(async () => {
      const all = await deliveriesOf(tenant.orgId)
      return all.length === 5 && all.every((r) => r.status === 'succeeded' || r.error_code !== null) && all
    }, 'every attempt to be recorded')
    assert.deepEqual(seen.calls.map((c) => c.outcome).sort(), [
      'connection_error',
      'http_error',
      'succeeded',
      'timeout',
      'tls_error',
    ])
    for (const row of rows) {
      const outcome = expected.get(row.endpoint_id)!
      assert.equal(row.error_code ?? 'succeeded', outcome)
      const call = seen.calls.find((c) => c.outcome === outcome)!
      assert.equal(call.durationMs, row.duration_ms, `${outcome}: the duration the log keeps`)
    }
    assert.ok(seen.calls.find((c) => c.outcome === 'timeout')!.durationMs >= 450)
  })

  test('is not told of attempts that were not made: cut short by shutdown, or to an endpoint disabled meanwhile', async (ctx) => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 2500 }))
    ctx.after(() => receiver.close())
    const tenant = await t.tenant()
    const id = await endpoint(tenant.liveKey, receiver.url('/hook'))
    const seen = observer()
    const worker = await t.startDispatcher({ ca: receiver.ca, timeoutMs: 5000, observer: seen })
    ctx.after(() => t.db.deleteFrom('webhook_queue').execute())
    assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    await receiver.waitFor(1)
    await worker.stop(100)
    assert.deepEqual(seen.calls, [], 'the attempt cut short by shutdown')

    // Claimed while its endpoint is active, sent after it was disabled: its delivery fails unsent.
    assert.equal((await t.api(tenant.liveKey, 'POST', '/v1/orders', orderBody())).statusCode, 201)
    await t.db.updateTable('webhook_endpoints').set({ is_active: false }).where('id', '=', id).execute()
    const again = await t.startDispatcher({ ca: receiver.ca, timeoutMs: 5000, observer: seen })
    ctx.after(() => again.stop(100))
    await waitUntil(async () => {
      const all = await deliveriesOf(tenant.orgId)
      return all.filter((r) => r.error_code === 'endpoint_disabled').length === 2
    }, 'both deliveries to fail with endpoint_disabled')
    assert.equal(receiver.received.length, 1)
    assert.deepEqual(seen.calls, [], 'attempts to the disabled endpoint')
  })
})
