import assert from 'node:assert/strict'
import type { LookupAddress } from 'node:dns'
import { describe, test } from 'node:test'
import { classifyError, classifyStatus } from '../../../../src/modules/webhooks/worker/http-attempt.ts'
import { pinnedLookup } from '../../../../src/modules/webhooks/worker/pinned-lookup.ts'

const error = (fields: { code?: string; name?: string; cause?: unknown }) =>
  Object.assign(new Error('failed'), fields)

describe('http attempt: classification', () => {
  test('2xx succeeds; every other final status is an http_error, redirects included', () => {
    for (const status of [200, 201, 202, 204, 299])
      assert.equal(classifyStatus(status), 'succeeded', `${status}`)
    for (const status of [300, 301, 302, 304, 307, 308, 400, 404, 410, 429, 500, 503]) {
      assert.equal(classifyStatus(status), 'http_error', `${status}`)
    }
  })

  test("the attempt's own deadline is a timeout, whatever the error says", () => {
    assert.equal(classifyError(error({ code: 'ECONNREFUSED' }), true), 'timeout')
    assert.equal(classifyError(undefined, true), 'timeout')
  })

  test("undici's and the system's timeouts are timeouts, also as a cause", () => {
    for (const code of [
      'UND_ERR_CONNECT_TIMEOUT',
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'ETIMEDOUT',
    ]) {
      assert.equal(classifyError(error({ code }), false), 'timeout', code)
    }
    assert.equal(classifyError(error({ name: 'TimeoutError' }), false), 'timeout')
    assert.equal(
      classifyError(error({ cause: error({ cause: error({ code: 'ETIMEDOUT' }) }) }), false),
      'timeout',
    )
  })

  test('certificate and handshake failures are tls_errors, also as a cause', () => {
    for (const code of [
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'CERT_HAS_EXPIRED',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'HOSTNAME_MISMATCH',
      'ERR_OSSL_EVP_UNSUPPORTED',
    ]) {
      assert.equal(classifyError(error({ code }), false), 'tls_error', code)
    }
    assert.equal(
      classifyError(error({ code: 'UND_ERR_SOCKET', cause: error({ code: 'CERT_HAS_EXPIRED' }) }), false),
      'tls_error',
    )
  })

  test('anything else is a connection_error; causes are followed four levels deep at most', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'UND_ERR_SOCKET', 'EPIPE']) {
      assert.equal(classifyError(error({ code }), false), 'connection_error', code)
    }
    assert.equal(classifyError(undefined, false), 'connection_error')
    assert.equal(classifyError('a string', false), 'connection_error')
    let deep: Error = error({ code: 'ETIMEDOUT' })
    for (let i = 0; i < 4; i++) deep = error({ code: 'UND_ERR_SOCKET', cause: deep })
    assert.equal(classifyError(deep, false), 'connection_error')
    const looped = error({ code: 'ECONNRESET' })
    looped.cause = looped
    assert.equal(classifyError(looped, false), 'connection_error')
  })
})

describe('http attempt: the pinned lookup', () => {
  const lookup = pinnedLookup(['203.0.113.7', '2001:db8::7', '203.0.113.8'])
  const ask = (options: { all?: boolean; family?: number | string }) =>
    new Promise<{ err: Error | null; address: string | LookupAddress[]; family: number | undefined }>(
      (resolve) =>
        lookup('hooks.example.com', options, (err, address, family) => resolve({ err, address, family })),
    )

  test('answers with the pinned addresses only, whatever the host name', async () => {
    assert.deepEqual(await ask({}), { err: null, address: '203.0.113.7', family: 4 })
    assert.deepEqual((await ask({ all: true })).address, [
      { address: '203.0.113.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
      { address: '203.0.113.8', family: 4 },
    ])
  })

  test('keeps to the family asked for, as a number or a name', async () => {
    assert.deepEqual(await ask({ family: 6 }), { err: null, address: '2001:db8::7', family: 6 })
    assert.deepEqual(await ask({ family: 'IPv6' }), { err: null, address: '2001:db8::7', family: 6 })
    assert.deepEqual((await ask({ family: 'IPv4', all: true })).address, [
      { address: '203.0.113.7', family: 4 },
      { address: '203.0.113.8', family: 4 },
    ])
    assert.deepEqual((await ask({ family: 0 })).address, '203.0.113.7')
  })

  test('a family without a pinned address is ENOTFOUND', async () => {
    const onlyV4 = pinnedLookup(['203.0.113.7'])
    const err = await new Promise<Error | null>((resolve) => onlyV4('h', { family: 6 }, (e) => resolve(e)))
    assert.equal((err as Error & { code?: string }).code, 'ENOTFOUND')
  })
})
