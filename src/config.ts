import { resolve } from 'node:path'

/**
 * Every environment variable the service reads, parsed once at start and frozen.
 * An invalid value stops the process with a message naming the variable, instead of
 * surfacing later as a confusing runtime failure.
 */
export interface Config {
  port: number
  host: string
  publicBaseUrl: string
  dataDir: string
  databaseUrl: string | undefined
  operatorToken: string | undefined
  s3: S3Config | undefined
  redisUrl: string | undefined
  /** Connecting to PostgreSQL, and waiting for a pooled connection. */
  databaseConnectTimeoutMs: number
  /** PostgreSQL's statement_timeout; the client gives up one second later (a stalled network). */
  databaseStatementTimeoutMs: number
  /** Each Redis command (and connecting to Redis). */
  redisTimeoutMs: number
  rateLimitPerMinute: number
  webhookRetryDelaysMs: number[]
  webhookTimeoutMs: number
  webhookAllowPrivateCidrs: string[]
  webhookWorker: boolean
  /** Attempts a worker has in flight at once. */
  webhookConcurrency: number
  /** Attempts a worker has in flight at once to one endpoint. */
  webhookEndpointConcurrency: number
  /** Attempts a worker has in flight to slow endpoints before it starts no more of theirs. */
  webhookSlowConcurrency: number
  /** Claim lease of the delivery worker; unset: WEBHOOK_TIMEOUT_MS + 30 s. */
  webhookLeaseMs: number | undefined
  uploadUrlTtlS: number
  uploadRetentionS: number
  logLevel: string
}

export interface S3Config {
  bucket: string
  endpoint: string | undefined
  region: string
  accessKeyId: string | undefined
  secretAccessKey: string | undefined
  forcePathStyle: boolean
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const port = int(env, 'PORT', 3000, 0, 65535)
  const logLevel = env.LOG_LEVEL?.trim() || 'info'
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  }
  const publicBaseUrl = (env.PUBLIC_BASE_URL?.trim() || `http://localhost:${port}`).replace(/\/+$/, '')
  try {
    new URL(publicBaseUrl)
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute URL')
  }
  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 1, 600_000)
  const databaseUrl = env.DATABASE_URL?.trim() || undefined
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL')
  }
  return Object.freeze({
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    publicBaseUrl,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl,
    operatorToken: env.OPERATOR_TOKEN || undefined,
    s3: env.S3_BUCKET
      ? Object.freeze({
          bucket: env.S3_BUCKET,
          endpoint: env.S3_ENDPOINT || undefined,
          region: env.S3_REGION || 'us-east-1',
          accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
          forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', false),
        })
      : undefined,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
    databaseStatementTimeoutMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
    redisTimeoutMs: int(env, 'REDIS_TIMEOUT_MS', 500, 10, 60_000),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
    webhookRetryDelaysMs: Object.freeze(
      durations(env, 'WEBHOOK_RETRY_DELAYS', '1m,5m,15m,1h,3h,6h,12h,24h'),
    ) as number[],
    webhookTimeoutMs,
    webhookAllowPrivateCidrs: Object.freeze(list(env.WEBHOOK_ALLOW_PRIVATE_CIDRS)) as string[],
    webhookWorker: onOff(env, 'WEBHOOK_WORKER', true),
    webhookLeaseMs: leaseMs(env, webhookTimeoutMs),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 128, 1, 1000),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 16, 1, 1000),
    webhookSlowConcurrency: int(env, 'WEBHOOK_SLOW_CONCURRENCY', 512, 1, 100_000),
    uploadUrlTtlS: int(env, 'UPLOAD_URL_TTL_S', 7200, 1, 7 * 86400),
    uploadRetentionS: int(env, 'UPLOAD_RETENTION_S', 1_209_600, 1, 10 * 365 * 86400),
    logLevel,
  })
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (!raw) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}`)
  return value
}

/** A lease no longer than the delivery deadline would let two workers send one attempt. */
function leaseMs(env: Env, timeoutMs: number): number | undefined {
  if (!env.WEBHOOK_LEASE_MS?.trim()) return undefined
  const value = int(env, 'WEBHOOK_LEASE_MS', 0, 1, 86_400_000)
  if (value <= timeoutMs) throw new ConfigError('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS')
  return value
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (!raw) return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(`${name} must be true or false`)
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  return bool(env, name, fallback)
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Parses `1m,5m,1h` style lists; a bare number is milliseconds. */
export function parseDurations(raw: string): number[] {
  return list(raw).map((part) => {
    const match = /^(\d+)(ms|s|m|h)?$/.exec(part)
    if (!match) throw new ConfigError(`bad duration "${part}" (use a number with ms, s, m or h)`)
    return Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!
  })
}

function durations(env: Env, name: string, fallback: string): number[] {
  try {
    const parsed = parseDurations(env[name]?.trim() || fallback)
    if (parsed.length === 0) throw new ConfigError('at least one delay is needed')
    return parsed
  } catch (err) {
    throw new ConfigError(`${name}: ${(err as Error).message}`)
  }
}
