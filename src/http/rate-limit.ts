import type { Redis } from 'ioredis'
import { DEFAULT_CONFIG } from '../config.ts'

/**
 * Fixed 60-second window per key, starting at the key's first request after the
 * previous window ended. Requests 1..limit pass; later ones are rejected and do
 * not count. (@fastify/rate-limit counts rejected requests too, which the
 * decisions rule out, hence this small module.)
 */
export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number
}

export interface RateLimiter {
  /** Counts one request of `key`; `limit` replaces the limiter's own (dashboard sign-in counters). */
  hit(key: string, limit?: number): Promise<RateDecision>
  close(): Promise<void>
}

export const WINDOW_MS = 60_000

function decision(limit: number, count: number, msLeft: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  }
}

export function createMemoryRateLimiter(limit: number, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>()
  // Forget ended windows now and then so idle keys do not accumulate.
  const sweep = setInterval(() => {
    const t = now()
    for (const [key, w] of windows) if (t - w.start >= WINDOW_MS) windows.delete(key)
  }, WINDOW_MS)
  sweep.unref()
  return {
    async hit(key, max = limit) {
      const t = now()
      let w = windows.get(key)
      if (!w || t - w.start >= WINDOW_MS) {
        w = { start: t, count: 0 }
        windows.set(key, w)
      }
      const msLeft = w.start + WINDOW_MS - t
      if (w.count >= max) return decision(max, max + 1, msLeft)
      w.count += 1
      return decision(max, w.count, msLeft)
    },
    async close() {
      clearInterval(sweep)
    },
  }
}

// One round trip, atomic across instances: start the window on the first hit,
// never count a rejected request.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
if count > tonumber(ARGV[1]) then redis.call('DECR', KEYS[1]) end
return {count, ttl}
`

type RedisWithHit = Redis & {
  rateHit(key: string, limit: number, windowMs: number): Promise<[number, number]>
}

export interface RedisRateLimiterOptions {
  /** Bound on each command and on connecting. */
  timeoutMs?: number
  /** Told when counting moves to this process (Redis failed) and back (Redis answers again). */
  onFallback?: (event: { counting: 'in-process' | 'redis'; err?: unknown }) => void
}

/** After a failure, requests skip Redis this long before one tries it again. */
const RETRY_AFTER_MS = 1000

/**
 * The shared window counter in Redis. When Redis is down, stalled or slow, the
 * limiter fails open to counting in this process (each instance then allows up
 * to the limit on its own) rather than answering 503: the limit protects the
 * service, and an outage of its counter store should not take the API down.
 * Every command is bounded by timeoutMs, nothing waits in an offline queue, and
 * the connection keeps being re-established until Redis answers.
 */
export async function createRedisRateLimiter(
  url: string,
  limit: number,
  options: RedisRateLimiterOptions = {},
): Promise<RateLimiter> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONFIG.redisTimeoutMs
  // Loaded only when REDIS_URL is set: most instances count in-process.
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: Math.max(timeoutMs, 1000),
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  }) as RedisWithHit
  redis.defineCommand('rateHit', { numberOfKeys: 1, lua: HIT_SCRIPT })
  // Errors surface on the commands themselves; this keeps a dropped connection
  // from becoming an unhandled 'error' event.
  redis.on('error', () => {})
  const local = createMemoryRateLimiter(limit)
  let skipUntil = 0
  let inProcess = false
  const fallBack = (err: unknown) => {
    skipUntil = Date.now() + RETRY_AFTER_MS
    if (!inProcess) options.onFallback?.({ counting: 'in-process', err })
    inProcess = true
  }
  try {
    await redis.connect()
  } catch (err) {
    // Starting during a Redis outage is allowed; ioredis keeps reconnecting.
    fallBack(err)
  }
  return {
    async hit(key, max = limit) {
      if (Date.now() < skipUntil) return local.hit(key, max)
      if (redis.status !== 'ready') {
        fallBack(new Error(`Redis connection is ${redis.status}`))
        return local.hit(key, max)
      }
      try {
        const [count, ttl] = await redis.rateHit(`ratelimit:${key}`, max, WINDOW_MS)
        if (inProcess) {
          inProcess = false
          options.onFallback?.({ counting: 'redis' })
        }
        return decision(max, count, ttl)
      } catch (err) {
        // A timed-out command may have lost its answer on a stalled connection,
        // which then answers nothing more: start a fresh one.
        if (err instanceof Error && /timed out/i.test(err.message)) redis.disconnect(true)
        fallBack(err)
        return local.hit(key, max)
      }
    },
    async close() {
      await local.close()
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(d.limit),
    'x-ratelimit-remaining': String(d.remaining),
    'x-ratelimit-reset': String(d.resetSeconds),
  }
}
