import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { compressedRoute } from '../../src/http/compression.ts'
import { orderBody, rowCounts, useTestApp } from '../helpers/app.ts'
import { assertEncoded, decoded } from '../helpers/encodings.ts'
import { createOrder } from '../helpers/operator.ts'

describe('JSON answers compressed when the client asks', () => {
  const t = useTestApp()

  const page = (key: string, acceptEncoding?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/v1/orders?limit=100',
      headers: {
        authorization: `Bearer ${key}`,
        ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
      },
    })

  test('a polling page: Brotli, else gzip, else as it is; the same JSON each way', async () => {
    const { testKey } = await t.tenant()
    for (let n = 0; n < 10; n++) await createOrder(t, testKey)
    const plain = await page(testKey)
    assert.equal(plain.statusCode, 200)
    assert.equal(plain.headers['content-encoding'], undefined)
    assert.equal(Number(plain.headers['content-length']), plain.rawPayload.length)
    assert.ok(plain.rawPayload.length > 5000, `${plain.rawPayload.length} bytes`)
    for (const [acceptEncoding, expected] of [
      ['br, gzip', 'br'],
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['gzip;q=1, br;q=0', 'gzip'],
    ] as const) {
      const res = await page(testKey, acceptEncoding)
      assertEncoded(res, expected, acceptEncoding)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      assert.deepEqual(decoded(res), plain.rawPayload, acceptEncoding)
      assert.ok(
        res.rawPayload.length < plain.rawPayload.length / 4,
        `${acceptEncoding}: ${res.rawPayload.length}`,
      )
    }
    for (const acceptEncoding of ['identity', 'deflate', '']) {
      const res = await page(testKey, acceptEncoding)
      assert.equal(res.headers['content-encoding'], undefined, acceptEncoding)
      assert.deepEqual(res.rawPayload, plain.rawPayload, acceptEncoding)
    }
  })

  test('the order path is never compressed, and a compressed order body is refused and stores nothing', async () => {
    const { testKey } = await t.tenant()
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: { authorization: `Bearer ${testKey}`, 'accept-encoding': 'br, gzip' },
      payload: orderBody({
        items: Array.from({ length: 20 }, (_, n) => ({ name: `Item ${n}`, quantity: 1 })),
      }),
    })
    assert.equal(created.statusCode, 201, created.body)
    assert.ok(created.rawPayload.length > 1024, 'over the threshold: left as it is by choice')
    assert.equal(created.headers['content-encoding'], undefined)
    assert.equal(created.headers.vary, undefined)

    const before = await rowCounts(t.db)
    const gzipped = await t.app.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: {
        authorization: `Bearer ${testKey}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: gzipSync(JSON.stringify(orderBody())),
    })
    assert.ok(gzipped.statusCode >= 400 && gzipped.statusCode < 500, `${gzipped.statusCode} ${gzipped.body}`)
    assert.deepEqual(await rowCounts(t.db), before)
  })

  test('which routes compress: GET and HEAD of /v1, /admin/v1 and the /docs pages; no POST, no dashboard API, no files', () => {
    for (const [method, url, expected] of [
      ['GET', '/v1/orders', true],
      [['GET', 'HEAD'], '/v1/openapi.json', true],
      ['GET', '/admin/v1/organizations', true],
      ['GET', '/docs', true],
      ['GET', '/docs/guides/:name', true],
      ['POST', '/v1/orders', false],
      [['GET', 'POST'], '/v1/orders', false],
      ['PATCH', '/admin/v1/organizations/:id', false],
      ['GET', '/dashboard/api/orders', false],
      ['GET', '/dashboard', false],
      ['GET', '/docs/assets/*', false],
      ['GET', '/docs/images/*', false],
      ['GET', '/health', false],
    ] as const) {
      assert.equal(compressedRoute({ method: method as never, url }), expected, `${method} ${url}`)
    }
  })
})
