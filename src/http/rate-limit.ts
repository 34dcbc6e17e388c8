import { Redis } from 'ioredis'

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
  hit(key: string): Promise<RateDecision>
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
    async hit(key) {
      const t = now()
      let w = windows.get(key)
      if (!w || t - w.start >= WINDOW_MS) {
        w = { start: t, count: 0 }
        windows.set(key, w)
      }
      const msLeft = w.start + WINDOW_MS - t
      if (w.count >= limit) return decision(limit, limit + 1, msLeft)
      w.count += 1
      return decision(limit, w.count, msLeft)
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

export async function createRedisRateLimiter(url: string, limit: number): Promise<RateLimiter> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
  }) as RedisWithHit
  redis.defineCommand('rateHit', { numberOfKeys: 1, lua: HIT_SCRIPT })
  // Errors surface on the commands themselves; this keeps a dropped connection
  // from becoming an unhandled 'error' event.
  redis.on('error', () => {})
  await redis.connect()
  return {
    async hit(key) {
      const [count, ttl] = await redis.rateHit(`ratelimit:${key}`, limit, WINDOW_MS)
      return decision(limit, count, ttl)
    },
    async close() {
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
