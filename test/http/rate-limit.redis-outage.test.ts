import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { createRedisRateLimiter } from '../../src/http/rate-limit.ts'
import { createTestApp, NEEDS_REDIS, TEST_REDIS_URL, type TestApp } from '../helpers/app.ts'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'

// The shared limiter reaches Redis through a proxy that stalls and refuses.
// When Redis fails, counting moves into the process (fail open) and comes back.
const LIMIT = 5
const TIMEOUT_MS = 300
const ANSWER_WITHIN_MS = 1500

describe('rate limit with Redis stalled or down', { skip: !TEST_REDIS_URL && NEEDS_REDIS }, () => {
  let proxy: TcpProxy
  let t: TestApp
  let redis: Redis
  let orgId: string
  const events: string[] = []

  before(async () => {
    proxy = await startTcpProxy(TEST_REDIS_URL!)
    const rateLimiter = await createRedisRateLimiter(proxy.url(TEST_REDIS_URL!), LIMIT, {
      timeoutMs: TIMEOUT_MS,
      onFallback: ({ counting }) => events.push(counting),
    })
    t = await createTestApp({ rateLimiter })
    orgId = (await t.createOrganization()).id
    redis = new Redis(TEST_REDIS_URL!)
  })
  after(async () => {
    await proxy.close()
    await t.close()
    redis.disconnect()
  })

  async function ping(key: string) {
    const started = performance.now()
    const res = await t.api(key, 'GET', '/v1/ping')
    const ms = performance.now() - started
    assert.ok(ms < ANSWER_WITHIN_MS, `answered after ${ms.toFixed(0)} ms`)
    return res
  }

  const counted = async (keyId: string) => Number((await redis.get(`ratelimit:${keyId}`)) ?? 0)

  /** Pings until the limiter reports that Redis counts again (it retries about once a second). */
  async function waitForRedis(key: string) {
    const deadline = Date.now() + 10_000
    while (events.at(-1) !== 'redis') {
      assert.ok(Date.now() < deadline, `still counting in-process: ${events.join(', ')}`)
      await ping(key)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }

  test('stalled: answered within a second, counted in this process with the same limit; Redis counts again once it answers', async () => {
    const { key, id } = await t.createKey(orgId)
    assert.equal((await ping(key)).statusCode, 200)
    assert.equal(await counted(id), 1)

    proxy.stall()
    const statuses: number[] = []
    for (let i = 0; i < LIMIT + 1; i++) {
      const res = await ping(key)
      statuses.push(res.statusCode)
      assert.equal(res.headers['x-ratelimit-limit'], String(LIMIT))
      if (res.statusCode === 429) assert.ok(Number(res.headers['retry-after']) > 0)
    }
    // A fresh in-process window: LIMIT pass, the next is refused.
    assert.deepEqual(statuses, [...Array(LIMIT).fill(200), 429])
    assert.equal(events[0], 'in-process')

    proxy.resume()
    await waitForRedis(key)
    const before = await counted(id)
    assert.equal((await ping(key)).statusCode, 200)
    assert.equal(await counted(id), before + 1, 'the request was counted in Redis')
  })

  test('refusing connections: answered at once, in-process; Redis counts again once it accepts', async () => {
    const { key, id } = await t.createKey(orgId)
    events.length = 0
    await proxy.refuse()
    for (let i = 0; i < 3; i++) {
      const res = await ping(key)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-ratelimit-remaining'], String(LIMIT - 1 - i))
    }
    assert.equal(await counted(id), 0, 'nothing reached Redis')
    assert.equal(events[0], 'in-process')

    await proxy.accept()
    await waitForRedis(key)
    assert.ok((await counted(id)) >= 1)
  })
})
