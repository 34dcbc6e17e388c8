import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { assertError } from '../helpers/errors.ts'

/**
 * Every answer is the reference's error object, also where Fastify and Node
 * answer before any route: undecodable paths, over-long ids, malformed HTTP,
 * oversized headers, requests that stop arriving, unknown expectations and
 * requests during shutdown. Malformed HTTP is sent over raw sockets.
 */

interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Parses one or more HTTP/1.1 responses with Content-Length bodies. */
function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = []
  let rest = text
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    assert.ok(end > 0, `incomplete response: ${JSON.stringify(rest.slice(0, 200))}`)
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    const bodyStart = end + 4
    const body = Buffer.from(rest.slice(bodyStart), 'latin1').subarray(0, length).toString('utf8')
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body })
    rest = rest.slice(bodyStart + Buffer.byteLength(body))
  }
  return out
}

/** Writes `parts` (a function part is awaited in between), then reads until the server closes or `waitMs` passes. */
async function exchange(
  port: number,
  parts: (string | ((socket: Socket) => Promise<void>))[],
  waitMs = 5000,
): Promise<{ responses: RawResponse[]; closed: boolean }> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  let text = ''
  let closed = false
  socket.setEncoding('latin1')
  socket.on('data', (d) => {
    text += d
  })
  socket.on('error', () => {})
  const done = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  for (const part of parts) {
    if (typeof part === 'string') socket.write(part, 'latin1')
    else await part(socket)
  }
  let timeout: NodeJS.Timeout | undefined
  const timer = new Promise<'timeout'>((resolve) => {
    timeout = setTimeout(() => resolve('timeout'), waitMs)
  })
  closed = (await Promise.race([done.then(() => 'closed' as const), timer])) === 'closed'
  clearTimeout(timeout)
  socket.destroy()
  return { responses: text ? parseResponses(text) : [], closed }
}

function assertErrorShape(res: RawResponse, status: number, code: string) {
  const error = assertError({ statusCode: res.status, body: res.body, headers: res.headers }, status, code)
  assert.deepEqual(Object.keys(error).sort(), ['code', 'doc_url', 'message'])
  assert.ok(res.headers['x-request-id'], 'x-request-id')
  return error
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']
const hasRateHeaders = (headers: Record<string, unknown>) => RATE_HEADERS.every((h) => h in headers)

describe('answers before any route, in the error shape', () => {
  let t: TestApp
  let key: string
  let port: number

  before(async () => {
    // Short timeouts so that a request that stops arriving is answered quickly.
    t = await createTestApp({
      timeouts: { headersMs: 400, bodyMs: 1500 },
      http: { connectionsCheckingInterval: 100 },
    })
    key = (await t.tenant()).liveKey
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as { port: number }).port
  })
  after(() => t.close())

  describe('paths whose id cannot exist: 404 not_found', () => {
    for (const [name, path] of [
      ['an undecodable id (%ZZ)', '/v1/orders/%ZZ'],
      ['an undecodable path segment', '/v1/%ZZ/orders'],
      ['an id of 201 characters', `/v1/orders/${'a'.repeat(201)}`],
      ['an operator id of 300 characters', `/admin/v1/orders/${'a'.repeat(300)}`],
    ]) {
      test(`${name}, with a valid key: counted, rate-limit headers`, async () => {
        const before = await t.api(key, 'GET', '/v1/ping')
        const remaining = Number(before.headers['x-ratelimit-remaining'])
        const res = await t.api(key, 'GET', path!)
        assertErrorShape(
          { status: res.statusCode, headers: res.headers as never, body: res.body },
          404,
          'not_found',
        )
        assert.ok(hasRateHeaders(res.headers), 'rate-limit headers')
        assert.equal(Number(res.headers['x-ratelimit-remaining']), remaining - 1)
      })
      test(`${name}, without a key: no rate-limit headers`, async () => {
        const res = await t.api(undefined, 'GET', path!)
        assertErrorShape(
          { status: res.statusCode, headers: res.headers as never, body: res.body },
          404,
          'not_found',
        )
        assert.equal(hasRateHeaders(res.headers), false)
      })
    }

    test('an id of 200 characters is routed (and unknown)', async () => {
      const res = await t.api(key, 'GET', `/v1/orders/${'a'.repeat(200)}`)
      assert.equal(res.statusCode, 404)
      assert.equal(res.json().error.message, 'No order with this id.')
    })
  })

  describe('malformed HTTP over a socket', () => {
    const cases: [string, string, number, string][] = [
      ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'malformed_request'],
      ['an unknown method', 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
      ['a space inside the path', 'GET /v1/or ders HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'malformed_request'],
      [
        'two different Content-Length headers',
        'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
        400,
        'malformed_request',
      ],
      [
        'a bad chunk size',
        'POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        400,
        'malformed_request',
      ],
      [
        'headers over 16 KB',
        `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        'headers_too_large',
      ],
      [
        'a request line over 16 KB',
        `GET /v1/orders?x=${'a'.repeat(20_000)} HTTP/1.1\r\n\r\n`,
        431,
        'headers_too_large',
      ],
    ]
    for (const [name, request, status, code] of cases) {
      test(`${name}: ${status} ${code}, connection closed`, async () => {
        const { responses, closed } = await exchange(port, [request])
        assert.equal(responses.length, 1, JSON.stringify(responses))
        assertErrorShape(responses[0]!, status, code)
        assert.equal(responses[0]!.headers.connection, 'close')
        assert.ok(closed, 'connection closed')
      })
    }

    test('an HTTP/1.1 request without Host: 400 malformed_request before the key, connection closed', async () => {
      for (const request of [
        'GET /healthz HTTP/1.1\r\n\r\n',
        `POST /v1/orders HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      ]) {
        const { responses, closed } = await exchange(port, [request])
        assert.equal(responses.length, 1, JSON.stringify(responses))
        const error = assertErrorShape(responses[0]!, 400, 'malformed_request')
        assert.match(error.message, /Host header/)
        assert.equal(responses[0]!.headers.connection, 'close')
        assert.equal(hasRateHeaders(responses[0]!.headers), false)
        assert.ok(closed, 'connection closed')
      }
    })

    test('an HTTP/1.0 request may leave Host out', async () => {
      const { responses } = await exchange(port, ['GET /healthz HTTP/1.0\r\n\r\n'])
      assert.equal(responses.length, 1, JSON.stringify(responses))
      assert.equal(responses[0]!.status, 200, responses[0]!.body)
    })

    test('headers that stop arriving: 408 request_timeout', async () => {
      const { responses, closed } = await exchange(port, ['GET /v1/ping HTTP/1.1\r\nHost: x\r\n'])
      assert.equal(responses.length, 1)
      assertErrorShape(responses[0]!, 408, 'request_timeout')
      assert.ok(closed)
    })

    test('a body that stops arriving: 408 request_timeout', async () => {
      const { responses, closed } = await exchange(port, [
        `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
      ])
      assert.equal(responses.length, 1)
      assertErrorShape(responses[0]!, 408, 'request_timeout')
      assert.ok(closed)
    })
  })

  describe('Expect other than 100-continue: 417 expectation_failed', () => {
    const request = (path: string, auth?: string) =>
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: something-else\r\n${auth ? `Authorization: Bearer ${auth}\r\n` : ''}\r\n`

    test('with a valid key: counted, rate-limit headers', async () => {
      const { responses } = await exchange(port, [request('/v1/ping', key)])
      assert.equal(responses.length, 1)
      assertErrorShape(responses[0]!, 417, 'expectation_failed')
      assert.ok(hasRateHeaders(responses[0]!.headers))
      assert.equal(responses[0]!.headers.connection, 'close')
    })

    test('on an open route', async () => {
      const { responses } = await exchange(port, [request('/healthz')])
      assertErrorShape(responses[0]!, 417, 'expectation_failed')
      assert.equal(hasRateHeaders(responses[0]!.headers), false)
    })

    test('without a key: the key is checked first, 401', async () => {
      const { responses } = await exchange(port, [request('/v1/ping')])
      assertErrorShape(responses[0]!, 401, 'invalid_api_key')
    })

    test('Expect: 100-continue is met as before', async () => {
      const { responses } = await exchange(port, [
        `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      ])
      const final = responses.at(-1)!
      assert.equal(final.status, 200, final.body)
    })
  })
})

describe('a request during shutdown: 503 service_unavailable', () => {
  test('pipelined behind a request still in flight when close() began', async () => {
    const t = await createTestApp()
    const key = (await t.tenant()).liveKey
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const port = (t.app.server.address() as { port: number }).port
    const body = '{"external_order_id":"A"}'
    let closing: Promise<void> | undefined
    const { responses, closed } = await exchange(
      port,
      [
        `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 200))
          closing = t.app.close()
          await new Promise((resolve) => setTimeout(resolve, 100))
        },
        `${body.slice(5)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`,
      ],
      3000,
    )
    await closing
    await t.close()
    assert.ok(closed, 'connection closed')
    assert.equal(responses.length, 2, JSON.stringify(responses))
    assert.equal(responses[0]!.status, 422)
    const error = assertErrorShape(responses[1]!, 503, 'service_unavailable')
    assert.equal(error.message, 'The service is shutting down.')
  })
})
