import assert from 'node:assert/strict'
import { type AddressInfo, connect } from 'node:net'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { loggerOptions } from '../../src/http/logging.ts'
import { DEFAULT_TIMEOUTS, type Timeouts } from '../../src/http/timeouts.ts'
import { png } from '../fixtures/files.ts'
import {
  createTestApp,
  OPERATOR_TOKEN,
  orderBody,
  PUBLIC_BASE_URL,
  rowCounts,
  type TestApp,
} from '../helpers/app.ts'

describe('timeouts', () => {
  /**
   * Issue 15, item 12: an upload may take the time its size needs at a modest
   * rate, while stalled or trickling uploads, slow JSON bodies and idle
   * connections are still cut off. The timeouts are shortened (the defaults are
   * tens of seconds) and the client is a raw socket that trickles bytes.
   */
  const SHORT: Timeouts = {
    headersMs: 5_000,
    bodyMs: 600,
    keepAliveMs: 400,
    uploadGraceMs: 500,
    uploadMinBytesPerSecond: 20_000,
  }

  interface Exchange {
    status: number
    headers: string
    body: string
    /** From the first byte sent to the server closing the connection. */
    closedAfterMs: number
  }

  /** Sends `head`, then `body` in slices of `slice` bytes every `everyMs` ms, until the server answers or closes. */
  function trickle(
    port: number,
    head: string,
    body: Buffer,
    slice: number,
    everyMs: number,
  ): Promise<Exchange> {
    return new Promise((resolve) => {
      const started = performance.now()
      const socket = connect(port, '127.0.0.1')
      const received: Buffer[] = []
      let answered = false
      socket.on('data', (d) => {
        received.push(d)
        answered = true
      })
      socket.on('error', () => {})
      socket.on('close', () => {
        const text = Buffer.concat(received).toString('utf8')
        const [headers = '', ...rest] = text.split('\r\n\r\n')
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0),
          headers,
          body: rest.join('\r\n\r\n'),
          closedAfterMs: performance.now() - started,
        })
      })
      socket.write(head)
      void (async () => {
        for (let at = 0; at < body.length && !answered && !socket.destroyed; at += slice) {
          socket.write(body.subarray(at, at + slice))
          await sleep(everyMs)
        }
      })()
    })
  }

  describe('request timeouts', () => {
    let t: TestApp
    let key: string
    let port: number

    before(async () => {
      t = await createTestApp({ timeouts: SHORT })
      key = (await t.tenant('Slow Lines Ltd')).liveKey
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      port = (t.app.server.address() as AddressInfo).port
    })
    after(() => t.close())

    async function slot(): Promise<{ id: string; path: string }> {
      const res = await t.api(key, 'POST', '/v1/uploads', { filename: 'artwork.png' })
      assert.equal(res.statusCode, 201, res.body)
      const url = new URL(res.json().data.upload_url)
      return { id: res.json().data.upload_id, path: url.pathname + url.search }
    }

    const putHead = (path: string, length: number) =>
      `PUT ${path} HTTP/1.1\r\nHost: api.test\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`

    async function stored(id: string) {
      return t.db
        .selectFrom('uploads')
        .select(['stored_at', 'size_bytes'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    }

    function assertTimeoutAnswer(answer: Exchange, message: RegExp) {
      assert.equal(answer.status, 408, answer.headers)
      assert.match(answer.headers, /\r\nconnection: close/i)
      const body = JSON.parse(answer.body)
      assert.deepEqual(Object.keys(body.error).sort(), ['code', 'doc_url', 'message'])
      assert.equal(body.error.code, 'request_timeout')
      assert.equal(body.error.doc_url, `${PUBLIC_BASE_URL}/developers/errors/request_timeout`)
      assert.match(body.error.message, message)
    }

    test('an upload above the minimum rate is stored, though it takes longer than a JSON body may', async () => {
      const s = await slot()
      const file = Buffer.alloc(40_000, 0x5a)
      // 2 000 bytes every 50 ms: about 40 KB/s, twice the minimum; about 1 s in all.
      const answer = await trickle(port, putHead(s.path, file.length), file, 2_000, 50)
      assert.equal(answer.status, 200, answer.headers + answer.body)
      assert.deepEqual(JSON.parse(answer.body), { data: { upload_id: s.id, size_bytes: 40_000 } })
      assert.ok(answer.closedAfterMs > SHORT.bodyMs, `${answer.closedAfterMs} ms`)
      assert.equal(Number((await stored(s.id)).size_bytes), 40_000)
    })

    test('an upload that stalls is stopped with 408 request_timeout; nothing is stored', async () => {
      const s = await slot()
      const answer = await trickle(port, putHead(s.path, 40_000), Buffer.alloc(1_000, 0x5a), 1_000, 10)
      assertTimeoutAnswer(answer, /slower than 20 KB\/s on average; nothing was stored/)
      assert.ok(answer.closedAfterMs >= SHORT.uploadGraceMs, `${answer.closedAfterMs} ms`)
      assert.ok(answer.closedAfterMs < 5_000, `${answer.closedAfterMs} ms`)
      assert.deepEqual(await stored(s.id), { stored_at: null, size_bytes: null })
    })

    test('an upload trickling below the minimum rate is stopped with 408 request_timeout', async () => {
      const s = await slot()
      // 500 bytes every 100 ms: 5 KB/s, a quarter of the minimum.
      const answer = await trickle(port, putHead(s.path, 40_000), Buffer.alloc(40_000, 0x5a), 500, 100)
      assertTimeoutAnswer(answer, /slower than 20 KB\/s/)
      assert.ok(answer.closedAfterMs < 5_000, `${answer.closedAfterMs} ms`)
      assert.deepEqual(await stored(s.id), { stored_at: null, size_bytes: null })
    })

    test('a JSON body trickled past its deadline gets 408 request_timeout; nothing is created', async () => {
      const before = await rowCounts(t.db)
      const json = Buffer.from(JSON.stringify(orderBody()))
      const head =
        `POST /v1/orders HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`
      // 10 bytes every 100 ms: several seconds for the whole body.
      const answer = await trickle(port, head, json, 10, 100)
      assertTimeoutAnswer(answer, /did not arrive within 0.6 s/)
      assert.ok(answer.closedAfterMs >= SHORT.bodyMs, `${answer.closedAfterMs} ms`)
      assert.ok(answer.closedAfterMs < 5_000, `${answer.closedAfterMs} ms`)
      assert.deepEqual(await rowCounts(t.db), before)
    })

    test('a JSON body that arrives in time is served', async () => {
      const json = Buffer.from(JSON.stringify(orderBody()))
      const head =
        `POST /v1/orders HTTP/1.1\r\nHost: api.test\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n`
      const answer = await trickle(port, head, json, 50, 5)
      assert.equal(answer.status, 201, answer.headers + answer.body)
    })

    test('an idle kept-alive connection is closed', async () => {
      const answer = await trickle(
        port,
        'GET /healthz HTTP/1.1\r\nHost: api.test\r\n\r\n',
        Buffer.alloc(0),
        1,
        1,
      )
      assert.equal(answer.status, 200)
      assert.ok(answer.closedAfterMs >= SHORT.keepAliveMs, `${answer.closedAfterMs} ms`)
      assert.ok(answer.closedAfterMs < 3_000, `${answer.closedAfterMs} ms`)
    })
  })

  describe('request timeouts by default', () => {
    test("Node's whole-request timeout is off; headers 30 s, bodies 60 s, keep-alive 72 s, uploads 100 KB/s", async () => {
      const t = await createTestApp()
      try {
        assert.equal(t.app.server.requestTimeout, 0)
        assert.equal(t.app.server.headersTimeout, 30_000)
        assert.equal(t.app.server.keepAliveTimeout, 72_000)
        assert.deepEqual(DEFAULT_TIMEOUTS, {
          headersMs: 30_000,
          bodyMs: 60_000,
          keepAliveMs: 72_000,
          uploadGraceMs: 30_000,
          uploadMinBytesPerSecond: 102_400,
        })
        // At the minimum rate the largest upload (50 MB) has 8.5 minutes, plus the grace.
        assert.equal(Math.round(52_428_800 / DEFAULT_TIMEOUTS.uploadMinBytesPerSecond), 512)
      } finally {
        await t.close()
      }
    })
  })
})

describe('logging', () => {
  interface Line {
    msg: string
    reqId: string
    req?: { method: string; url: string }
    res?: { statusCode: number; code?: string }
  }

  describe('request logs', () => {
    const raw: string[] = []
    const lines = () => raw.map((l) => JSON.parse(l) as Line)
    let t: TestApp
    before(async () => {
      const stream = new Writable({
        write(chunk, _encoding, done) {
          raw.push(...String(chunk).split('\n').filter(Boolean))
          done()
        },
      })
      t = await createTestApp({
        logger: loggerOptions({ level: 'info', pretty: false, secrets: [OPERATOR_TOKEN], stream }),
      })
    })
    after(() => t.close())

    /** The completed line of the request whose incoming line has this URL. */
    const completed = (url: string) => {
      const incoming = lines().find((l) => l.msg === 'incoming request' && l.req?.url === url)
      assert.ok(incoming, `no incoming line for ${url}`)
      return lines().find((l) => l.msg === 'request completed' && l.reqId === incoming.reqId)!.res!
    }

    test('no key, token or upload signature appears in the lines of real requests', async () => {
      const { testKey, liveKey } = await t.tenant()
      const slot = await t.api(testKey, 'POST', '/v1/uploads', { filename: 'logo.png' })
      assert.equal(slot.statusCode, 201)
      const uploadUrl = new URL(slot.json().data.upload_url)
      const signature = uploadUrl.searchParams.get('signature')!
      const put = await t.app.inject({
        method: 'PUT',
        url: uploadUrl.pathname + uploadUrl.search,
        payload: png(),
      })
      assert.equal(put.statusCode, 200)
      const tampered = uploadUrl.search.replace(signature, `${signature.slice(0, -2)}xx`)
      const refused = await t.app.inject({
        method: 'PUT',
        url: uploadUrl.pathname + tampered,
        payload: png(),
      })
      assert.equal(refused.statusCode, 403)
      const sneaky = `/v1/orders?api_key=${liveKey}&access_token=tok_1234567890abcdef`
      assert.equal((await t.api(testKey, 'GET', sneaky)).statusCode, 422)

      const text = raw.join('\n')
      for (const secret of [OPERATOR_TOKEN, testKey, liveKey, signature, 'tok_1234567890abcdef']) {
        assert.ok(!text.includes(secret), `${secret} was logged`)
      }
      const redactedPut = `${uploadUrl.pathname}?expires=${uploadUrl.searchParams.get('expires')}&signature=REDACTED`
      assert.deepEqual(completed(redactedPut), { statusCode: 200 })
      assert.equal(completed('/v1/orders?api_key=REDACTED&access_token=REDACTED').statusCode, 422)
    })

    test('the completed line of an error answer carries its code', async () => {
      await t.api(undefined, 'GET', '/v1/ping')
      assert.deepEqual(completed('/v1/ping'), { statusCode: 401, code: 'invalid_api_key' })
      await t.app.inject({ method: 'GET', url: '/no/such/path' })
      assert.deepEqual(completed('/no/such/path'), { statusCode: 404, code: 'not_found' })
    })
  })

  describe('the client address in request logs', () => {
    for (const [setting, expected] of [
      [undefined, '10.99.0.1'],
      [1, '198.51.100.50'],
    ] as const) {
      test(`TRUST_PROXY ${setting ?? 'unset'}: remoteAddress is ${expected}`, async (ctx) => {
        const raw: string[] = []
        const stream = new Writable({
          write(chunk, _encoding, done) {
            raw.push(...String(chunk).split('\n').filter(Boolean))
            done()
          },
        })
        const t = await createTestApp({
          logger: loggerOptions({ level: 'info', pretty: false, secrets: [], stream }),
          ...(setting === undefined ? {} : { trustProxy: setting }),
        })
        ctx.after(() => t.close())
        const res = await t.app.inject({
          method: 'GET',
          url: '/v1/ping',
          remoteAddress: '10.99.0.1',
          headers: { 'x-forwarded-for': '198.51.100.50' },
        })
        assert.equal(res.statusCode, 401)
        const incoming = raw
          .map((l) => JSON.parse(l) as { msg: string; req?: { url: string; remoteAddress: string } })
          .find((l) => l.msg === 'incoming request' && l.req?.url === '/v1/ping')
        assert.equal(incoming?.req?.remoteAddress, expected)
      })
    }
  })
})
