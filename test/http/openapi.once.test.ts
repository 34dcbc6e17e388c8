import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify'
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode, TOP_LEVEL_CODES } from '../../src/http/errors.ts'
import { EXAMPLE_SECRET } from '../../src/http/openapi-examples.ts'
import { routeErrorCodes } from '../../src/http/route-errors.ts'
import { OrderRequest } from '../../src/modules/orders/orders.schemas.ts'
import { PRODUCTION_STATUSES } from '../../src/modules/production/production.views.ts'
import { EVENT_TYPES } from '../../src/modules/webhooks/outbox/events.ts'
import { png } from '../fixtures/files.ts'
import { createTestApp, orderBody, PUBLIC_BASE_URL, type TestApp } from '../helpers/app.ts'
import { memberOf } from '../helpers/dashboard.ts'
import { loopbackResolver, type Receiver, startReceiver } from '../helpers/https-receiver.ts'
import { collectRoutes, type Doc, openApiPath, operations, schemaChecker } from '../helpers/openapi.ts'

describe('the document', () => {
  describe('GET /v1/openapi.json', () => {
    let t: TestApp
    let routes: RouteOptions[]
    let doc: Doc
    let check: ReturnType<typeof schemaChecker>
    before(async () => {
      const collected = await collectRoutes(() => createTestApp())
      t = collected.built
      routes = collected.routes
      const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
      assert.equal(res.statusCode, 200)
      assert.match(String(res.headers['content-type']), /application\/json/)
      doc = res.json()
      check = schemaChecker(doc)
    })
    after(() => t.close())

    test('is a valid OpenAPI 3.1 document and needs no key', async () => {
      assert.equal(doc.openapi, '3.1.0')
      // One server, its address a variable whose default is this installation's.
      assert.deepEqual(
        doc.servers.map((s: Doc) => [s.url, s.variables.base_url.default]),
        [['{base_url}', PUBLIC_BASE_URL]],
      )
      assert.ok(doc.info.license.name && doc.info.contact.name.includes('/docs'))
      const validator = new Validator()
      const result = await validator.validate(structuredClone(doc))
      assert.equal(validator.version, '3.1')
      assert.deepEqual(result.errors, undefined)
      assert.equal(result.valid, true)
    })

    test('a valid key still gets its rate-limit headers; a bad key is ignored', async () => {
      const { testKey } = await t.tenant()
      const withKey = await t.api(testKey, 'GET', '/v1/openapi.json')
      assert.equal(withKey.statusCode, 200)
      assert.ok(Number(withKey.headers['x-ratelimit-remaining']) >= 0)
      assert.ok(withKey.headers['x-ratelimit-limit'])
      const badKey = await t.api('svc_test_thisKeyDoesNotExist0000000000000000', 'GET', '/v1/openapi.json')
      assert.equal(badKey.statusCode, 200)
      assert.equal(badKey.headers['x-ratelimit-limit'], undefined)
    })

    test('every route served under /v1 is an operation, and every operation a route', () => {
      const served = routes
        .filter((r) => r.url.startsWith('/v1/'))
        .map((r) => `${String(r.method).toLowerCase()} ${openApiPath(r.url)}`)
      const documented = operations(doc).map(({ method, path }) => `${method} ${path}`)
      assert.deepEqual([...new Set(served)].sort(), documented.sort())
      assert.ok(documented.includes('put /v1/uploads/{id}/content'), 'the signed upload PUT')
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/admin')), 'no operator route')
    })

    test('operations have unique ids, a tag, a summary, and their parameters', () => {
      const ids = operations(doc).map(({ op }) => op.operationId)
      assert.equal(new Set(ids).size, ids.length)
      const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name))
      for (const { method, path, op } of operations(doc)) {
        assert.match(op.operationId, /^[a-z][A-Za-z]+$/, `${method} ${path}`)
        assert.ok(op.summary, `${op.operationId} has a summary`)
        assert.equal(op.tags.length, 1)
        assert.ok(tags.has(op.tags[0]), `${op.operationId}: tag ${op.tags[0]} is declared`)
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          const param = op.parameters.find((p: Doc) => p.in === 'path' && `{${p.name}}` === name)
          assert.ok(param?.required, `${op.operationId}: path parameter ${name}`)
        }
      }
      const put = doc.paths['/v1/uploads/{id}/content'].put
      const query = put.parameters.filter((p: Doc) => p.in === 'query').map((p: Doc) => [p.name, p.required])
      assert.deepEqual(query, [
        ['expires', true],
        ['signature', true],
      ])
      assert.ok(put.requestBody.content['application/octet-stream'])
      assert.deepEqual(put.security, [], 'the PUT needs no key')
    })

    test('a key is needed by default; the operations that need none, and the webhooks, say so', () => {
      assert.deepEqual(doc.security, [{ apiKey: [] }])
      const open = operations(doc)
        .filter(({ op }) => op.security.length === 0)
        .map(({ op }) => op.operationId)
      assert.deepEqual(open.sort(), ['getOpenApiDocument', 'putUploadContent'])
      for (const { op } of operations(doc).filter(({ op }) => op.security.length)) {
        assert.deepEqual(op.security, [{ apiKey: [] }], op.operationId)
      }
      for (const [type, item] of Object.entries<Doc>(doc.webhooks)) {
        assert.deepEqual(item.post.security, [], `webhook ${type}: no key, a signature`)
      }
    })

    test('named component schemas are referenced, not copied', () => {
      const names = Object.keys(doc.components.schemas)
      for (const name of [
        'Order',
        'OrderItem',
        'Customer',
        'OrderRequest',
        'OrderItemRequest',
        'Warning',
        'Upload',
        'UploadReceipt',
        'WebhookEndpoint',
        'WebhookDelivery',
        'ErrorResponse',
        'ValidationEntry',
        'WebhookEvent',
        'OrderReceivedEvent',
        'PingEventData',
      ]) {
        assert.ok(names.includes(name), name)
      }
      const text = JSON.stringify(doc)
      for (const name of names) {
        assert.ok(text.includes(`"$ref":"#/components/schemas/${name}"`), `${name} is referenced`)
      }
      // No schema shows up inline under its own title besides its component.
      assert.ok(!text.includes('"$id"'), 'no $id left in the document')
      for (const name of names) {
        assert.equal(text.split(`"title":"${name}"`).length - 1, 1, name)
      }
    })

    test('the request schema is the one that validates', () => {
      const documented = doc.components.schemas.OrderRequest
      assert.deepEqual(doc.paths['/v1/orders'].post.requestBody.content['application/json'].schema, {
        $ref: '#/components/schemas/OrderRequest',
      })
      const { $id: _id, ...validating } = OrderRequest as unknown as Record<string, unknown>
      for (const [key, value] of Object.entries(validating)) {
        if (key !== 'properties') assert.deepEqual(documented[key], value, key)
      }
      assert.deepEqual(Object.keys(documented.properties), Object.keys(validating.properties as object))
      assert.deepEqual(documented.properties.customer, { $ref: '#/components/schemas/CustomerRequest' })
    })

    test('an endpoint update offers only what can change: no url (always refused, with its own message)', () => {
      const patch = doc.paths['/v1/webhook-endpoints/{id}'].patch
      assert.deepEqual(patch.requestBody.content['application/json'].schema, {
        $ref: '#/components/schemas/WebhookEndpointUpdate',
      })
      const update = doc.components.schemas.WebhookEndpointUpdate
      assert.deepEqual(Object.keys(update.properties), ['description', 'enabled_events'])
      assert.equal(update.additionalProperties, false)
      // The refusal itself: test/modules/webhooks/endpoints/endpoints.test.ts.
    })

    test('each 413 answer states the operation\u2019s body limit, the one the service applies', async () => {
      const limits = Object.fromEntries(
        operations(doc)
          .filter(({ op }) => op.responses['413'] && op.operationId !== 'putUploadContent')
          .map(({ op }) => [
            op.operationId,
            /at most (\d+) bytes/.exec(op.responses['413'].description)?.[1],
          ]),
      )
      assert.equal(limits.createOrder, String(10 * 1024 * 1024))
      assert.equal(limits.createUpload, String(64 * 1024))
      assert.ok(Object.values(limits).every(Boolean), JSON.stringify(limits))
      const { testKey } = await t.tenant('limits')
      const sized = (bytes: number) => {
        const body = JSON.stringify({ filename: 'a.png', x: '' })
        return body.replace('""', `"${'x'.repeat(bytes - body.length)}"`)
      }
      const at = await t.api(testKey, 'POST', '/v1/uploads', sized(Number(limits.createUpload)))
      assert.equal(at.statusCode, 422, 'at the limit: read (and refused for the unknown field)')
      const over = await t.api(testKey, 'POST', '/v1/uploads', sized(Number(limits.createUpload) + 1))
      assert.equal(over.statusCode, 413)
      assert.equal(over.json().error.code, 'request_too_large')
    })

    test('closed sets the reference lets grow are extensible enums: the known values, or any string', () => {
      const S = doc.components.schemas
      const known = (schema: Doc) => {
        const [values, any] = schema.anyOf
        assert.deepEqual(any, { type: 'string' })
        return values.enum
      }
      assert.deepEqual(known(S.Order.properties.status), [
        'pending',
        'in_production',
        'completed',
        'failed',
        'cancelled',
      ])
      assert.deepEqual(known(S.OrderItem.properties.production_status.anyOf[0]), [...PRODUCTION_STATUSES])
      assert.deepEqual(known(S.WebhookDelivery.properties.status), ['pending', 'succeeded', 'failed'])
      assert.deepEqual(known(S.WebhookDelivery.properties.event_type), [...EVENT_TYPES])
      assert.ok(known(S.WebhookDelivery.properties.error_code.anyOf[0]).includes('endpoint_disabled'))
      assert.deepEqual(known(S.WebhookEndpoint.properties.disabled_reason.anyOf[0]), ['too_many_failures'])
      assert.deepEqual(known(S.WebhookReplay.properties.status), ['running', 'completed', 'cancelled'])
      assert.ok(known(S.ValidationEntry.properties.code).includes('file_not_found'))
      assert.ok(known(S.WebhookEndpoint.properties.enabled_events.items).includes('*'))
      assert.ok(!JSON.stringify(doc).includes('x-known-values'))
      // A request's closed set is a plain enum (enabled_events: test/modules/webhooks/endpoints/endpoints.test.ts).
      assert.ok(S.WebhookEndpointRequest.properties.enabled_events.items.enum.includes('*'))
      assert.ok(!JSON.stringify(doc).includes('x-accepted-values'))
    })

    test('each operation lists the errors its route can answer, one example per code', () => {
      for (const route of routes.filter((r) => r.url.startsWith('/v1/'))) {
        const op = doc.paths[openApiPath(route.url)][String(route.method).toLowerCase()]
        const documented: ErrorCode[] = []
        for (const [status, response] of Object.entries<Doc>(op.responses)) {
          if (Number(status) < 400) continue
          const codes = Object.keys(response.content['application/json'].examples) as ErrorCode[]
          for (const code of codes) {
            assert.equal(ERROR_CATALOG[code].status, Number(status), `${op.operationId} ${code}`)
            assert.ok(response.description.includes(`\`${code}\``), `${op.operationId} ${code} described`)
          }
          documented.push(...codes)
        }
        assert.deepEqual(documented.sort(), routeErrorCodes(route).sort(), op.operationId)
      }
      const codesOf = (path: string, method: string) =>
        Object.values<Doc>(doc.paths[path][method].responses).flatMap((r) =>
          Object.keys(r.content?.['application/json']?.examples ?? {}),
        )
      const createOrder = codesOf('/v1/orders', 'post')
      for (const code of [
        'invalid_api_key',
        'insufficient_scope',
        'invalid_json',
        'request_too_large',
        'validation_failed',
        'order_already_exists_with_different_content',
        'rate_limited',
        'request_timeout',
      ]) {
        assert.ok(createOrder.includes(code), code)
      }
      const put = codesOf('/v1/uploads/{id}/content', 'put')
      for (const code of [
        'upload_url_invalid',
        'upload_too_large',
        'upload_already_referenced',
        'not_found',
      ]) {
        assert.ok(put.includes(code), code)
      }
      assert.ok(!put.includes('invalid_api_key'))
      // Generators build this operation from its parts: the document says upload_url is whole and opaque.
      const uploadUrl = doc.components.schemas.Upload.properties.upload_url
      assert.equal(uploadUrl.format, 'uri')
      assert.match(uploadUrl.description, /^Opaque.*Do not build, parse or split it/)
      const putOp = doc.paths['/v1/uploads/{id}/content'].put
      assert.match(putOp.description, /exactly as returned.*Never build the URL from its parts/)
      assert.deepEqual(Object.keys(putOp.requestBody.content), ['application/octet-stream'])
      assert.deepEqual(
        putOp.responses['422'].content['application/json'].examples.validation_failed.value.error.field,
        'Content-Type',
      )
      assert.ok(!codesOf('/v1/ping', 'get').includes('insufficient_scope'), 'ping needs no scope')
    })

    test('every response carries X-Request-Id; all but 401 the rate-limit headers; 429 Retry-After', () => {
      for (const { op } of operations(doc)) {
        for (const [status, response] of Object.entries<Doc>(op.responses)) {
          const headers = Object.keys(response.headers ?? {})
          assert.ok(headers.includes('X-Request-Id'), `${op.operationId} ${status}`)
          const rate = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']
          for (const name of rate)
            assert.equal(headers.includes(name), status !== '401', `${op.operationId} ${status}`)
          assert.equal(headers.includes('Retry-After'), status === '429')
        }
      }
      assert.ok(doc.components.headers['X-Request-Id'].required)
    })

    test('every operation has examples, and every example validates against its schema', () => {
      let count = 0
      const valid = (schema: Doc, value: unknown, where: string) => {
        assert.ok(value !== undefined, `${where}: an example`)
        assert.equal(check(schema, value), undefined, where)
        count++
      }
      for (const { op } of operations(doc)) {
        for (const [type, media] of Object.entries<Doc>(op.requestBody?.content ?? {})) {
          if (type === 'application/json') valid(media.schema, media.example, `${op.operationId} request`)
        }
        for (const p of op.parameters.filter((p: Doc) => !p.$ref)) {
          valid(p.schema, p.example, `${op.operationId} parameter ${p.name}`)
        }
        for (const [status, response] of Object.entries<Doc>(op.responses)) {
          const stream = response.content?.['text/event-stream']
          for (const [name, ex] of Object.entries<Doc>(stream?.examples ?? {})) {
            valid(stream.schema, ex.value, `${op.operationId} ${status} ${name}`)
          }
          const media = response.content?.['application/json']
          if (!media) continue
          if (media.examples) {
            for (const [code, ex] of Object.entries<Doc>(media.examples)) {
              valid(media.schema, ex.value, `${op.operationId} ${status} ${code}`)
              assert.equal(ex.value.error.code, code)
            }
          } else {
            valid(media.schema, media.example, `${op.operationId} ${status}`)
          }
        }
      }
      const requestId = doc.components.parameters['X-Request-Id']
      valid(requestId.schema, requestId.example, 'X-Request-Id parameter')
      assert.ok(count > 100, `${count} examples`)
    })

    test('documents every error code with its status and reference page', () => {
      // The codes /v1 answers (those its operations list, and not_found for an unknown path), and any new one.
      const [known, any] = doc.components.schemas.ErrorResponse.properties.error.properties.code.anyOf
      assert.deepEqual(any, { type: 'string' })
      const answered = new Set(['not_found'])
      for (const { op } of operations(doc)) {
        for (const response of Object.values<Doc>(op.responses)) {
          for (const code of Object.keys(response.content?.['application/json']?.examples ?? {}))
            answered.add(code)
        }
      }
      assert.deepEqual([...known.enum].sort(), [...answered].sort())
      assert.ok(known.enum.every((c: ErrorCode) => TOP_LEVEL_CODES.includes(c)))
      assert.ok(
        known.enum.length < TOP_LEVEL_CODES.length,
        'the dashboard\u2019s and operators\u2019 codes are not listed',
      )
      for (const code of ERROR_CODES) {
        assert.ok(doc.info.description.includes(`${PUBLIC_BASE_URL}/developers/errors/${code}`), code)
      }
    })

    test('a 422 validation_failed is ValidationErrorResponse: errors required, on every operation that answers it', () => {
      const S = doc.components.schemas
      assert.deepEqual(S.ValidationErrorResponse.properties.error.required, [
        'code',
        'message',
        'doc_url',
        'errors',
      ])
      assert.equal(S.ValidationErrorResponse.properties.error.properties.code.const, 'validation_failed')
      const ref = { $ref: '#/components/schemas/ValidationErrorResponse' }
      let count = 0
      for (const { op } of operations(doc)) {
        const media = op.responses['422']?.content['application/json']
        const codes = Object.keys(media?.examples ?? {})
        if (!codes.includes('validation_failed')) continue
        count++
        const expected =
          codes.length === 1 ? ref : { anyOf: [ref, { $ref: '#/components/schemas/ErrorResponse' }] }
        assert.deepEqual(media.schema, expected, op.operationId)
      }
      assert.ok(count >= 10, `${count} operations`)
      const error = (code: string, errors?: unknown[]) => ({
        error: { code, message: 'm', doc_url: 'u', ...(errors ? { errors } : {}) },
      })
      const entry = { code: 'required', field: 'url', message: 'url is required' }
      const createOrder = doc.paths['/v1/orders'].post.responses['422'].content['application/json'].schema
      const createEndpoint =
        doc.paths['/v1/webhook-endpoints'].post.responses['422'].content['application/json'].schema
      for (const schema of [createOrder, createEndpoint]) {
        assert.equal(check(schema, error('validation_failed', [entry])), undefined)
        assert.ok(check(schema, error('validation_failed')), 'validation_failed without errors fails')
      }
      assert.equal(check(createEndpoint, error('webhook_url_invalid')), undefined)
      assert.ok(
        check(createOrder, error('webhook_url_invalid')),
        'createOrder answers 422 with validation_failed only',
      )
    })

    test('webhooks: one typed entry per event type, with its signed headers and a valid example', () => {
      assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPES].sort())
      for (const type of EVENT_TYPES) {
        const op = doc.webhooks[type].post
        const media = op.requestBody.content['application/json']
        assert.equal(check(media.schema, media.example), undefined, type)
        assert.equal(media.example.type, type)
        const resolved = doc.components.schemas[media.schema.$ref.split('/').pop()]
        assert.deepEqual(resolved.properties.type.enum, [type])
        const headers = Object.fromEntries(op.parameters.map((p: Doc) => [p.name, p]))
        for (const name of [
          'X-Service-Signature',
          'X-Service-Event-Id',
          'X-Service-Event-Type',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]) {
          assert.ok(headers[name].required, `${type} ${name}`)
          assert.equal(check(headers[name].schema, headers[name].example), undefined, `${type} ${name}`)
        }
        assert.equal(headers['X-Service-Event-Id'].example, media.example.id)
        // The Standard Webhooks example is signed as the specification says, with the example secret's bytes.
        const id = headers['webhook-id'].example
        const ts = headers['webhook-timestamp'].example
        assert.equal(id, media.example.id)
        assert.equal(`t=${ts}`, headers['X-Service-Signature'].example.split(',')[0])
        const key = Buffer.from(EXAMPLE_SECRET.slice('whsec_'.length), 'base64')
        const mac = createHmac('sha256', key)
          .update(`${id}.${ts}.${JSON.stringify(media.example)}`)
          .digest('base64')
        assert.equal(headers['webhook-signature'].example, `v1,${mac}`, type)
        assert.ok(op.responses['2XX'])
      }
      const union = doc.components.schemas.WebhookEvent
      assert.equal(union.oneOf.length, EVENT_TYPES.length)
      assert.equal(
        check(
          { $ref: '#/components/schemas/WebhookEvent' },
          doc.webhooks.ping.post.requestBody.content['application/json'].example,
        ),
        undefined,
      )
    })
  })

  describe('/developers/errors/<code>', () => {
    let t: TestApp
    before(async () => {
      t = await createTestApp()
    })
    after(() => t.close())

    test('serves one HTML page per error code, without a key', async () => {
      for (const code of ERROR_CODES) {
        const res = await t.app.inject({ method: 'GET', url: `/developers/errors/${code}` })
        assert.equal(res.statusCode, 200, code)
        assert.match(String(res.headers['content-type']), /^text\/html/)
        assert.ok(res.body.includes(`<code>${code}</code>`), code)
        const entry = ERROR_CATALOG[code]
        if (entry.kind === 'error')
          assert.ok(res.body.includes(`<dd>${entry.status}</dd>`), `${code} shows its status`)
      }
    })

    test('doc_url of an error response points at its page', async () => {
      const res = await t.api(undefined, 'GET', '/v1/orders')
      assert.equal(res.statusCode, 401)
      const { doc_url } = res.json().error
      assert.equal(doc_url, `${PUBLIC_BASE_URL}/developers/errors/invalid_api_key`)
      const page = await t.app.inject({ method: 'GET', url: new URL(doc_url).pathname })
      assert.equal(page.statusCode, 200)
    })

    test('an unknown code is 404 not_found in the error shape', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/developers/errors/no_such_code' })
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().error.code, 'not_found')
    })

    test('health and readiness need no key', async () => {
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 200)
      assert.deepEqual(ready.json(), { data: { status: 'ready' } })
    })
  })
})

describe('responses as sent', () => {
  /**
   * Real answers of the service, one or more for every operation and for the
   * errors integrators meet most, and real webhook deliveries of every event
   * type, each held against what the document says of it.
   */
  describe('the OpenAPI document describes what the service really sends', () => {
    let t: TestApp
    let receiver: Receiver
    let doc: Doc
    let check: ReturnType<typeof schemaChecker>
    let liveKey: string
    const seen = new Set<string>()

    before(async () => {
      receiver = await startReceiver()
      t = await createTestApp({ resolver: loopbackResolver, webhookAllowPrivateCidrs: ['127.0.0.0/8'] })
      liveKey = (await t.tenant()).liveKey
      await t.startDispatcher({ ca: receiver.ca })
      doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json()
      check = schemaChecker(doc)
    })
    after(async () => {
      await t.close()
      await receiver.close()
    })

    /** The response to `method path` (path as the document writes it) conforms to its operation. */
    function conforms(method: string, path: string, res: LightMyRequestResponse): Doc {
      const op = doc.paths[path]?.[method.toLowerCase()]
      assert.ok(op, `${method} ${path} is documented`)
      const response = op.responses[String(res.statusCode)]
      assert.ok(response, `${op.operationId}: status ${res.statusCode} is documented (${res.body})`)
      const body = res.json()
      assert.equal(check(response.content['application/json'].schema, body), undefined, op.operationId)
      if (res.statusCode >= 400) {
        const codes = Object.keys(response.content['application/json'].examples)
        assert.ok(codes.includes(body.error.code), `${op.operationId}: ${body.error.code} is documented`)
      }
      assert.ok(res.headers['x-request-id'], `${op.operationId}: X-Request-Id`)
      if (op.security.length && res.statusCode !== 401) {
        for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
          assert.match(String(res.headers[name]), /^\d+$/, `${op.operationId} ${res.statusCode}: ${name}`)
        }
      }
      seen.add(`${method.toLowerCase()} ${path}`)
      return body
    }

    async function call(
      key: string | undefined,
      method: InjectOptions['method'],
      url: string,
      path: string,
      payload?: unknown,
    ) {
      const res = await t.api(key, method, url, payload)
      return { res, body: conforms(String(method), path, res) }
    }

    test('every operation, with its usual errors', async () => {
      await call(liveKey, 'GET', '/v1/ping', '/v1/ping')
      await call(undefined, 'GET', '/v1/openapi.json', '/v1/openapi.json')
      await call(undefined, 'GET', '/v1/ping', '/v1/ping')

      const endpoint = (
        await call(liveKey, 'POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', {
          url: receiver.url('/hook'),
          description: 'documented',
        })
      ).body.data.endpoint
      await call(liveKey, 'POST', '/v1/webhook-endpoints', '/v1/webhook-endpoints', { url: 'http://x.test/' })
      await call(liveKey, 'GET', '/v1/webhook-endpoints', '/v1/webhook-endpoints')

      const slot = (await call(liveKey, 'POST', '/v1/uploads', '/v1/uploads', { filename: 'art.png' })).body
        .data
      const putPath = '/v1/uploads/{id}/content'
      const put = await t.app.inject({
        method: 'PUT',
        url: slot.upload_url.slice(PUBLIC_BASE_URL.length),
        payload: png(),
      })
      assert.equal(conforms('PUT', putPath, put).data.size_bytes, png().length)
      // A generated client that sends the file as JSON.
      const asJson = await t.app.inject({
        method: 'PUT',
        url: slot.upload_url.slice(PUBLIC_BASE_URL.length),
        payload: {},
      })
      assert.equal(conforms('PUT', putPath, asJson).error.errors[0].field, 'Content-Type')
      // Another first character of the signature (one that was '0' stays '1').
      const forged = slot.upload_url
        .slice(PUBLIC_BASE_URL.length)
        .replace(/signature=(\w)/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`)
      const refused = await t.app.inject({ method: 'PUT', url: forged, payload: png() })
      assert.equal(conforms('PUT', putPath, refused).error.code, 'upload_url_invalid')

      const body = orderBody({
        items: [{ sku: 'ART', name: 'Print', quantity: 1, files: [{ upload_id: slot.upload_id }] }],
      })
      const created = await call(liveKey, 'POST', '/v1/orders', '/v1/orders', body)
      assert.equal(created.res.statusCode, 201)
      assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', body)).res.statusCode, 200)
      const changed = { ...body, currency: 'USD' }
      assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', changed)).res.statusCode, 409)
      const invalid = { ...body, external_id: 'x', items: [] }
      assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', invalid)).res.statusCode, 422)
      assert.equal((await call(liveKey, 'POST', '/v1/orders', '/v1/orders', '{"oops')).res.statusCode, 400)
      const order = created.body.data.order

      await call(liveKey, 'GET', '/v1/orders?limit=1', '/v1/orders')
      await call(liveKey, 'GET', '/v1/orders?limit=1000', '/v1/orders')
      await call(liveKey, 'GET', `/v1/orders/${order.id}`, '/v1/orders/{id}')
      await call(liveKey, 'GET', `/v1/orders/${randomUUID()}`, '/v1/orders/{id}')
      const { orgId } = await t.tenant('scoped')
      const readOnly = (await t.createKey(orgId, { environment: 'live', scopes: ['orders:read'] })).key
      assert.equal(
        (await call(readOnly, 'POST', '/v1/uploads', '/v1/uploads', { filename: 'a' })).res.statusCode,
        403,
      )

      await call(
        liveKey,
        'POST',
        `/v1/webhook-endpoints/${endpoint.id}/test`,
        '/v1/webhook-endpoints/{id}/test',
      )
      await receiver.waitFor(2)
      const patchPath = '/v1/webhook-endpoints/{id}'
      const patched = await call(liveKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, patchPath, {
        enabled_events: ['order.received'],
      })
      assert.deepEqual(patched.body.data.endpoint.enabled_events, ['order.received'])
      const moved = await call(liveKey, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, patchPath, {
        url: 'https://x.test/',
      })
      assert.equal(moved.body.error.code, 'validation_failed')
      const log = await call(
        liveKey,
        'GET',
        `/v1/webhook-deliveries?endpoint_id=${endpoint.id}`,
        '/v1/webhook-deliveries',
      )
      await call(liveKey, 'GET', '/v1/webhook-deliveries?status=done', '/v1/webhook-deliveries')
      const entryPath = '/v1/webhook-deliveries/{id}'
      await call(liveKey, 'GET', `/v1/webhook-deliveries/${log.body.data[0].id}`, entryPath)
      await call(liveKey, 'GET', `/v1/webhook-deliveries/${randomUUID()}`, entryPath)
      const rotate = `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`
      const rotatePath = '/v1/webhook-endpoints/{id}/rotate-secret'
      await call(liveKey, 'POST', rotate, rotatePath, { grace_period_seconds: 60 })
      await call(liveKey, 'POST', rotate, rotatePath)
      await call(liveKey, 'POST', rotate, rotatePath, { grace_period_seconds: 604_801 })
      await call(liveKey, 'POST', `/v1/webhook-endpoints/${randomUUID()}/rotate-secret`, rotatePath)
      const redeliver = '/v1/webhook-deliveries/{id}/redeliver'
      await call(liveKey, 'POST', `/v1/webhook-deliveries/${log.body.data[0].id}/redeliver`, redeliver)
      await call(liveKey, 'POST', `/v1/webhook-deliveries/${randomUUID()}/redeliver`, redeliver)
      const replay = '/v1/webhook-endpoints/{id}/replay'
      const replayPath = `/v1/webhook-endpoints/${endpoint.id}/replay`
      await call(liveKey, 'GET', replayPath, replay)
      await call(liveKey, 'POST', replayPath, replay, { since: 'yesterday' })
      await call(liveKey, 'POST', replayPath, replay, { since: new Date(Date.now() - 60_000).toISOString() })
      await call(liveKey, 'POST', replayPath, replay, { since: new Date(Date.now() - 60_000).toISOString() })
      await call(liveKey, 'GET', replayPath, replay)
      await call(liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, '/v1/webhook-endpoints/{id}')
      await call(liveKey, 'DELETE', `/v1/webhook-endpoints/${endpoint.id}`, '/v1/webhook-endpoints/{id}')
      assert.equal((await call(liveKey, 'POST', rotate, rotatePath)).res.statusCode, 422)

      await listenOperations()
      const all = operations(doc).map(({ method, path }) => `${method} ${path}`)
      assert.deepEqual([...seen].sort(), all.sort(), 'every operation was called')
    })

    /** The listen stream (its opening, then closed) and the trigger of samples. */
    async function listenOperations() {
      const streamPath = '/v1/webhook-events/stream'
      const { testKey } = await t.tenant('listen')
      await call(testKey, 'GET', '/v1/webhook-events/stream?events=order.shipped', streamPath)
      const open = await t.app.inject({
        method: 'GET',
        url: streamPath,
        headers: { authorization: `Bearer ${testKey}` },
        payloadAsStream: true,
      })
      const stream = open.stream()
      const first = String(await new Promise((resolve) => stream.once('data', resolve)))
      stream.destroy()
      const op = doc.paths[streamPath].get
      assert.equal(open.statusCode, 200)
      assert.match(String(open.headers['content-type']), /^text\/event-stream/)
      // The first message, as an SSE parser hands it over, is one the document describes.
      const [, event, data] = /^event: (\w+)\ndata: (.+)\n\n/.exec(first) ?? []
      const message = { event, data: JSON.parse(data ?? 'null') }
      assert.deepEqual(message, { event: 'ready', data: { environment: 'test', events: null } })
      const media = op.responses['200'].content['text/event-stream']
      assert.equal(check(media.schema, message), undefined, 'the ready message matches ListenMessage')
      assert.match(String(check(media.schema, { ...message, data: 'text' })), /anyOf/, 'and can fail')
      seen.add(`get ${streamPath}`)
      const trigger = '/v1/webhook-events/trigger'
      const sent = await call(testKey, 'POST', trigger, trigger, { type: 'order.received' })
      assert.equal(sent.res.statusCode, 202)
      const live = await call(liveKey, 'POST', trigger, trigger, { type: 'order.received' })
      assert.equal(live.body.error.code, 'test_key_required')
    }

    test('every event type, as delivered, matches its webhooks entry', async () => {
      const { liveKey: key, orgId } = await t.tenant('events')
      const hook = await t.api(key, 'POST', '/v1/webhook-endpoints', { url: receiver.url('/events') })
      assert.equal(hook.statusCode, 201, hook.body)
      const admin = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
        const res = await t.admin(method, url, payload)
        assert.ok(res.statusCode < 300, res.body)
        return res.json().data
      }
      const newOrder = async () => {
        const res = await t.api(key, 'POST', '/v1/orders', orderBody())
        assert.equal(res.statusCode, 201, res.body)
        return (await admin('GET', `/admin/v1/orders/${res.json().data.order.id}`)).order
      }
      const a = await newOrder()
      await admin('POST', `/admin/v1/production-orders/${a.production_order.id}/status`, {
        status: 'in_progress',
      })
      await admin('POST', `/admin/v1/production-jobs/${a.items[0].production_job.id}/complete`)
      await admin('POST', `/admin/v1/production-orders/${a.production_order.id}/status`, {
        status: 'completed',
      })
      const b = await newOrder()
      await admin('POST', `/admin/v1/production-orders/${b.production_order.id}/partner`, {
        produced_by_partner: true,
      })
      await admin('POST', `/admin/v1/production-orders/${b.production_order.id}/status`, { status: 'failed' })
      const c = await newOrder()
      await admin('POST', `/admin/v1/orders/${c.id}/cancel`)
      const d = await newOrder()
      const member = await memberOf(t, orgId, 'developer')
      const changed = await member.client.call('POST', `/orders/${d.id}/changes`, {
        expected_updated_at: d.updated_at,
        customer: { name: 'Changed in the dashboard' },
      })
      assert.equal(changed.statusCode, 200, changed.body)
      await t.api(key, 'POST', `/v1/webhook-endpoints/${hook.json().data.endpoint.id}/test`)
      // 4 order.received, started, item completed, completed, failed, cancelled, updated, ping; waited for
      // by type, as delivery is at least once (a slow machine can see an attempt taken twice).
      const delivered = () => receiver.received.filter((r) => r.url === '/events')
      const typesArrived = () =>
        new Set(delivered().map((r) => JSON.parse(r.body.toString('utf8')).type)).size
      for (let waited = 0; typesArrived() < EVENT_TYPES.length; waited += 50) {
        assert.ok(waited < 20_000, `${typesArrived()} of ${EVENT_TYPES.length} event types arrived`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }

      const types = new Set<string>()
      for (const req of delivered()) {
        const body = JSON.parse(req.body.toString('utf8'))
        const op = doc.webhooks[body.type]?.post
        assert.ok(op, `${body.type} is documented`)
        assert.equal(check(op.requestBody.content['application/json'].schema, body), undefined, body.type)
        for (const p of op.parameters) {
          const value = req.headers[p.name.toLowerCase()]
          assert.ok(value, `${body.type}: header ${p.name}`)
          assert.equal(check(p.schema, value), undefined, `${body.type}: ${p.name} ${value}`)
        }
        assert.equal(req.headers['x-service-event-id'], body.id)
        types.add(body.type)
      }
      assert.deepEqual([...types].sort(), [...EVENT_TYPES].sort())
    })
  })
})
