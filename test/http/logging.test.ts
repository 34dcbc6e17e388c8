import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { loggerOptions } from '../../src/http/logging.ts'
import { png } from '../fixtures/files.ts'
import { createTestApp, OPERATOR_TOKEN, type TestApp } from '../helpers/app.ts'

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
    const refused = await t.app.inject({ method: 'PUT', url: uploadUrl.pathname + tampered, payload: png() })
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
