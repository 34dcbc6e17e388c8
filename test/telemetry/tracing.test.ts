import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { startTracing } from '../../src/telemetry/start.ts'
import { type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts'

// Traces start before the service's modules load, as src/main.ts starts them:
// the PostgreSQL driver is instrumented as it is imported.
const collector = await startOtlpReceiver()
const telemetry = await startTracing({
  url: `${collector.url}/v1/traces`,
  serviceName: 'order-intake-test',
  sampler: 'parentbased_always_on',
  ratio: 1,
})
const { createTestApp, orderBody } = await import('../helpers/app.ts')
const { loggerOptions } = await import('../../src/http/logging.ts')
const { loopbackResolver, startReceiver } = await import('../helpers/https-receiver.ts')
const { png, uploadFile } = await import('../helpers/order-files.ts')
const { waitUntil } = await import('../helpers/wait.ts')

type TestApp = Awaited<ReturnType<typeof createTestApp>>

/** A caller's trace context (W3C): its trace goes on in the service. */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CALLER_SPAN = '00f067aa0ba902b7'
/** A token in the receiver's URL, as receivers often check one. */
const RECEIVER_TOKEN = 'rcv_token_0d1e2f3a4b5c'

/**
 * OpenTelemetry traces from a request to the receiver's answer, through an
 * OTLP/HTTP collector in this process: the request's span with its
 * statements, the worker's attempt linked back to it, the traceparent the
 * receiver gets, the trace id in the request log, the attempts and the log
 * lines; and nothing secret in any span.
 */
describe('traces', () => {
  let t: TestApp
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let tenant: Awaited<ReturnType<TestApp['tenant']>>
  let secret: string
  const lines: Record<string, unknown>[] = []
  const customer = {
    name: 'Tilda Tracewell',
    email: 'tilda.tracewell@kunden.example',
    phone: '+49 30 1234 9876',
  }
  const greeting = 'Happy birthday, Tilda, from the Tracewells'

  before(async () => {
    receiver = await startReceiver()
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    })
    t = await createTestApp({
      telemetry,
      resolver: loopbackResolver,
      webhookAllowPrivateCidrs: ['127.0.0.0/8'],
      logger: loggerOptions({ level: 'info', pretty: false, secrets: [], stream, traceIds: true }),
    })
    tenant = await t.tenant('Traced Prints')
    const endpoint = await t.api(tenant.liveKey, 'POST', '/v1/webhook-endpoints', {
      url: receiver.url(`/hook?token=${RECEIVER_TOKEN}`),
    })
    assert.equal(endpoint.statusCode, 201, endpoint.body)
    secret = endpoint.json().data.secret
    await t.startDispatcher({ ca: receiver.ca })
  })
  after(async () => {
    await t.close()
    await receiver.close()
    await telemetry.shutdown()
    await collector.close()
  })

  const spansOf = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId)

  let order: { id: string; requestSpan: ReceivedSpan; attempt: ReceivedSpan; deliveryId: string }

  test('an order: one trace from the caller’s context through the statements to the attempt, whose receiver continues it', async () => {
    const upload = await uploadFile(t, tenant.liveKey, png(), 'portrait.png')
    const body = orderBody({
      customer,
      items: [
        {
          sku: 'MUG-01',
          name: 'Mug',
          quantity: 1,
          price: 12.5,
          personalization: { text: greeting },
          files: [{ upload_id: upload, role: 'print' }],
        },
      ],
    })
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: {
        authorization: `Bearer ${tenant.liveKey}`,
        'content-type': 'application/json',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      payload: JSON.stringify(body),
    })
    assert.equal(res.statusCode, 201, res.body)
    const id = res.json().data.order.id as string
    await receiver.waitFor(1)
    const sent = receiver.received[0]!
    const traceparent = String(sent.headers.traceparent)
    assert.match(traceparent, new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`))

    await waitUntil(async () => {
      await telemetry.flush()
      return spansOf(CALLER_TRACE).some((s) => s.name === 'webhook attempt')
    }, 'the attempt’s span at the collector')
    const spans = spansOf(CALLER_TRACE)
    const requestSpan = spans.find((s) => s.name === 'POST /v1/orders')
    assert.ok(requestSpan, spans.map((s) => s.name).join(', '))
    assert.equal(requestSpan.parentSpanId, CALLER_SPAN)
    assert.equal(requestSpan.kind, 2, 'a server span')
    assert.equal(requestSpan.attributes['http.route'], '/v1/orders')
    assert.equal(requestSpan.attributes['http.request.method'], 'POST')
    assert.equal(requestSpan.attributes['http.response.status_code'], 201)
    assert.equal(requestSpan.attributes['url.path'], '/v1/orders')
    assert.equal(requestSpan.attributes['order_intake.organization.id'], tenant.orgId)
    assert.equal(requestSpan.attributes['order_intake.environment'], 'live')
    assert.equal(requestSpan.resource['service.name'], 'order-intake-test')

    const statements = spans.filter((s) => s.scope.includes('instrumentation-pg'))
    assert.ok(statements.length > 0, 'the statements are spans')
    assert.ok(
      statements.some((s) => s.parentSpanId === requestSpan.spanId),
      'inside the request’s span',
    )
    for (const s of statements)
      assert.equal(s.attributes['db.system.name'] ?? s.attributes['db.system'], 'postgresql')

    const attempt = spans.find((s) => s.name === 'webhook attempt')!
    assert.equal(attempt.parentSpanId, requestSpan.spanId)
    assert.deepEqual(attempt.links, [{ traceId: CALLER_TRACE, spanId: requestSpan.spanId }])
    assert.equal(attempt.attributes['order_intake.webhook.event.type'], 'order.received')
    assert.equal(attempt.attributes['order_intake.webhook.outcome'], 'succeeded')
    assert.equal(attempt.attributes['http.response.status_code'], 200)
    assert.equal(typeof attempt.attributes['order_intake.webhook.duration_ms'], 'number')
    const endpoints = await t.db.selectFrom('webhook_endpoints').select('id').execute()
    assert.equal(attempt.attributes['order_intake.webhook.endpoint.id'], endpoints[0]!.id)
    // The receiver's traceparent names the HTTP request's span, inside the attempt's.
    const client = spans.find((s) => s.spanId === traceparent.split('-')[2])
    assert.ok(client, 'the span the receiver was told of')
    assert.equal(client.parentSpanId, attempt.spanId)

    const deliveryId = String(attempt.attributes['order_intake.webhook.delivery.id'])
    order = { id, requestSpan, attempt, deliveryId }
  })

  test('the request log, the attempts and the log lines carry the trace id', async () => {
    await t.services.requests.recorder.flush()
    const line = await t.db
      .selectFrom('api_requests')
      .select(['trace_id'])
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow()
    assert.equal(line.trace_id, CALLER_TRACE)
    await waitUntil(
      () =>
        t.db
          .selectFrom('webhook_attempts')
          .select('trace_id')
          .where('delivery_id', '=', order.deliveryId)
          .executeTakeFirst(),
      'the attempt stored',
    )
    const stored = await t.db
      .selectFrom('webhook_attempts')
      .select('trace_id')
      .where('delivery_id', '=', order.deliveryId)
      .executeTakeFirstOrThrow()
    assert.equal(stored.trace_id, CALLER_TRACE)
    const event = await t.db
      .selectFrom('events')
      .select('trace_context')
      .where('order_id', '=', order.id)
      .executeTakeFirstOrThrow()
    assert.equal(event.trace_context, `00-${CALLER_TRACE}-${order.requestSpan.spanId}-01`)

    const completed = lines.find((l) => l.msg === 'request completed' && l.trace_id === CALLER_TRACE)
    assert.ok(completed, 'the request’s completed line names its trace')
    assert.equal(completed.span_id, order.requestSpan.spanId)
    assert.ok(lines.filter((l) => l.trace_id !== undefined).every((l) => typeof l.span_id === 'string'))
  })

  test('a redelivery: its attempt in the redelivery request’s trace, linked to both requests', async () => {
    const res = await t.api(tenant.liveKey, 'POST', `/v1/webhook-deliveries/${order.deliveryId}/redeliver`)
    assert.equal(res.statusCode, 202, res.body)
    await receiver.waitFor(2)
    const traceparent = String(receiver.received[1]!.headers.traceparent)
    const [, traceId] = traceparent.split('-')
    assert.notEqual(traceId, CALLER_TRACE)
    await waitUntil(async () => {
      await telemetry.flush()
      return spansOf(traceId!).some((s) => s.name === 'webhook attempt')
    }, 'the redelivery’s attempt at the collector')
    const redeliver = spansOf(traceId!).find((s) => s.name === 'POST /v1/webhook-deliveries/:id/redeliver')
    assert.ok(
      redeliver,
      spansOf(traceId!)
        .map((s) => s.name)
        .join(', '),
    )
    const attempt = spansOf(traceId!).find((s) => s.name === 'webhook attempt')!
    assert.equal(attempt.parentSpanId, redeliver.spanId)
    assert.deepEqual(
      new Set(attempt.links.map((l) => `${l.traceId}/${l.spanId}`)),
      new Set([`${CALLER_TRACE}/${order.requestSpan.spanId}`, `${traceId}/${redeliver.spanId}`]),
    )
  })

  test('a fold of order changes that folded some is a span of its own, with how many', async () => {
    const { startOrderChangeFolding } = await import('../../src/modules/orders/changes/changes.folding.ts')
    const folding = startOrderChangeFolding({
      db: t.db,
      onError: (err) => assert.fail(String(err)),
      intervalMs: 60_000,
    })
    await folding.drain()
    await folding.stop()
    const fold = await waitUntil(async () => {
      await telemetry.flush()
      return collector.spans.find((s) => s.name === 'fold order changes')
    }, 'the fold’s span')
    assert.ok(Number(fold.attributes['order_intake.folded']) >= 1)
    assert.equal(fold.parentSpanId, undefined, 'a trace of its own')
  })

  test('no span, attribute or resource holds a key, a secret, a body or the customer', async () => {
    await telemetry.flush()
    const everything = collector.bodies.join('\n')
    for (const text of [
      tenant.liveKey,
      tenant.testKey,
      secret,
      secret.replace(/^whsec_/, ''),
      customer.name,
      customer.email,
      customer.phone,
      greeting,
      'portrait.png',
      RECEIVER_TOKEN,
    ]) {
      assert.equal(everything.includes(text), false, `a span holds ${text}`)
    }
    assert.equal(everything.includes('Bearer'), false)
  })
})
