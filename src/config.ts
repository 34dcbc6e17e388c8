import { resolve } from 'node:path'
import ipaddr from 'ipaddr.js'
import Type, { type Static, type TSchema } from 'typebox'

/**
 * Every environment variable the service reads, declared once: type, default,
 * limits and meaning. The configuration table of docs/operations.md lists the same variables
 * and defaults (a test compares them); the rest of the code reads the parsed,
 * frozen Config. Extra keywords: `unset` says what an unset variable without a
 * default means, `expected` describes a pattern, `secret` keeps the value out
 * of messages and logs.
 */
const Ms = (defaultMs: number, minimum: number, maximum: number, description: string) =>
  Type.Integer({ default: defaultMs, minimum, maximum, description })

export const EnvSchema = Type.Object({
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65535, description: 'listening port' }),
  HOST: Type.String({ default: '127.0.0.1', description: 'listening address' }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      format: 'url',
      unset: 'http://localhost:PORT',
      description: 'external address of the service, used in doc_url and signed upload URLs',
    }),
  ),
  DATA_DIR: Type.String({
    default: './data',
    description: 'embedded database, stored files, operator token',
  }),
  DATABASE_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      expected: 'a postgres:// URL',
      secret: 'password',
      description: 'PostgreSQL to use; unset: the embedded database in DATA_DIR',
    }),
  ),
  OPERATOR_TOKEN: Type.Optional(
    Type.String({ secret: true, description: 'operator API token; unset: generated into DATA_DIR' }),
  ),
  S3_BUCKET: Type.Optional(Type.String({ description: 'S3-compatible bucket for uploads; unset: DATA_DIR' })),
  S3_ENDPOINT: Type.Optional(Type.String({ format: 'url', description: 'S3 endpoint; unset: AWS' })),
  S3_REGION: Type.Optional(Type.String({ description: 'region of the bucket; unset: us-east-1' })),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String({ description: 'S3 credentials; unset: the AWS chain' })),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ secret: true, description: 'S3 credentials' })),
  S3_FORCE_PATH_STYLE: Type.Optional(Type.Boolean({ description: 'path-style bucket addresses (MinIO)' })),
  REDIS_URL: Type.Optional(
    Type.String({ secret: 'password', description: 'shared rate-limit counters; unset: in-process' }),
  ),
  DATABASE_CONNECT_TIMEOUT_MS: Ms(
    5000,
    100,
    600_000,
    'wait to connect to PostgreSQL or for a pooled connection',
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: Ms(5000, 100, 600_000, 'PostgreSQL statement_timeout'),
  REDIS_TIMEOUT_MS: Ms(500, 10, 60_000, 'wait for each Redis command and for connecting'),
  RATE_LIMIT_PER_MINUTE: Type.Integer({
    default: 120,
    minimum: 1,
    maximum: 10_000_000,
    description: 'requests per key per minute',
  }),
  WEBHOOK_RETRY_DELAYS: Type.String({
    default: '1m,5m,15m,1h,3h,6h,12h,24h',
    pattern: '^\\s*\\d+(ms|s|m|h)?\\s*(,\\s*\\d+(ms|s|m|h)?\\s*)*$',
    expected: 'a comma-separated list of delays, each a number with ms, s, m or h',
    description: 'delays after each failed attempt',
  }),
  WEBHOOK_TIMEOUT_MS: Ms(10_000, 1, 600_000, 'delivery deadline'),
  WEBHOOK_ALLOW_PRIVATE_CIDRS: Type.String({
    default: '',
    description: 'CIDRs exempt from webhook_target_blocked (development and tests)',
  }),
  WEBHOOK_WORKER: Type.Boolean({ default: true, description: 'off runs an API-only instance' }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    default: 128,
    minimum: 1,
    maximum: 1000,
    description: 'attempts one worker has in flight at once',
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 1000,
    description: 'attempts one worker has in flight at once to one endpoint',
  }),
  WEBHOOK_SLOW_CONCURRENCY: Type.Integer({
    default: 512,
    minimum: 1,
    maximum: 100_000,
    description: 'attempts in the slow lane before slow endpoints get no more',
  }),
  WEBHOOK_LEASE_MS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 86_400_000,
      unset: 'WEBHOOK_TIMEOUT_MS + 30 s',
      description: 'claim lease of the delivery worker; must exceed WEBHOOK_TIMEOUT_MS',
    }),
  ),
  UPLOAD_URL_TTL_S: Type.Integer({
    default: 7200,
    minimum: 1,
    maximum: 7 * 86_400,
    description: 'lifetime of an upload slot',
  }),
  UPLOAD_RETENTION_S: Type.Integer({
    default: 1_209_600,
    minimum: 1,
    maximum: 10 * 365 * 86_400,
    description: 'lifetime of an unreferenced file',
  }),
  LOG_LEVEL: Type.String({
    default: 'info',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'least severe level logged',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'serves /metrics on this port without a token; unset: on PORT with the operator token',
    }),
  ),
})

export type Env = Static<typeof EnvSchema>
export type EnvName = keyof Env

export interface S3Config {
  bucket: string
  endpoint: string | undefined
  region: string
  accessKeyId: string | undefined
  secretAccessKey: string | undefined
  forcePathStyle: boolean
}

/** The parsed environment in the shape the code uses. */
export interface Config {
  port: number
  host: string
  publicBaseUrl: string
  dataDir: string
  databaseUrl: string | undefined
  operatorToken: string | undefined
  s3: S3Config | undefined
  redisUrl: string | undefined
  databaseConnectTimeoutMs: number
  databaseStatementTimeoutMs: number
  redisTimeoutMs: number
  rateLimitPerMinute: number
  webhookRetryDelaysMs: number[]
  webhookTimeoutMs: number
  webhookAllowPrivateCidrs: string[]
  webhookWorker: boolean
  webhookConcurrency: number
  webhookEndpointConcurrency: number
  webhookSlowConcurrency: number
  /** Unset: the dispatcher's own (WEBHOOK_TIMEOUT_MS + 30 s). */
  webhookLeaseMs: number | undefined
  uploadUrlTtlS: number
  uploadRetentionS: number
  logLevel: string
  metricsPort: number | undefined
}

export class ConfigError extends Error {}

/** The signing region S3-compatible stores accept when none is configured. */
const UNSET_S3_REGION = 'us-east-1'

export function loadConfig(environment: Record<string, string | undefined> = process.env): Readonly<Config> {
  const env = parseEnv(environment)
  const fail = (name: EnvName, problem: string) => {
    throw new ConfigError(`${name}=${quote(name, environment[name] ?? '')}: ${problem}`)
  }
  if (env.WEBHOOK_LEASE_MS !== undefined && env.WEBHOOK_LEASE_MS <= env.WEBHOOK_TIMEOUT_MS) {
    fail('WEBHOOK_LEASE_MS', `must be longer than WEBHOOK_TIMEOUT_MS (${env.WEBHOOK_TIMEOUT_MS})`)
  }
  // The schema's pattern admits only non-empty lists of valid delays.
  const webhookRetryDelaysMs = parseDurations(env.WEBHOOK_RETRY_DELAYS)
  const webhookAllowPrivateCidrs = list(env.WEBHOOK_ALLOW_PRIVATE_CIDRS)
  for (const cidr of webhookAllowPrivateCidrs) {
    if (!ipaddr.isValidCIDR(cidr)) {
      fail(
        'WEBHOOK_ALLOW_PRIVATE_CIDRS',
        `"${cidr}" is not a CIDR (an address, a slash and a prefix length: 10.0.0.0/8, fd00::/8)`,
      )
    }
  }
  return Object.freeze({
    port: env.PORT,
    host: env.HOST,
    publicBaseUrl: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    dataDir: resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    operatorToken: env.OPERATOR_TOKEN,
    s3: env.S3_BUCKET
      ? Object.freeze({
          bucket: env.S3_BUCKET,
          endpoint: env.S3_ENDPOINT,
          region: env.S3_REGION ?? UNSET_S3_REGION,
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          forcePathStyle: env.S3_FORCE_PATH_STYLE === true,
        })
      : undefined,
    redisUrl: env.REDIS_URL,
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    redisTimeoutMs: env.REDIS_TIMEOUT_MS,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    webhookRetryDelaysMs: Object.freeze(webhookRetryDelaysMs) as number[],
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
    webhookAllowPrivateCidrs: Object.freeze(webhookAllowPrivateCidrs) as string[],
    webhookWorker: env.WEBHOOK_WORKER,
    webhookConcurrency: env.WEBHOOK_CONCURRENCY,
    webhookEndpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
    webhookSlowConcurrency: env.WEBHOOK_SLOW_CONCURRENCY,
    webhookLeaseMs: env.WEBHOOK_LEASE_MS,
    uploadUrlTtlS: env.UPLOAD_URL_TTL_S,
    uploadRetentionS: env.UPLOAD_RETENTION_S,
    logLevel: env.LOG_LEVEL,
    metricsPort: env.METRICS_PORT,
  })
}

interface VariableSchema {
  type: string
  default?: unknown
  minimum?: number
  maximum?: number
  enum?: string[]
  pattern?: string
  format?: string
  expected?: string
  secret?: boolean | 'password'
  unset?: string
  description: string
}

export const ENV_NAMES = Object.keys(EnvSchema.properties) as EnvName[]

export function variableSchema(name: EnvName): VariableSchema {
  return (EnvSchema.properties as Record<EnvName, TSchema>)[name] as unknown as VariableSchema
}

/** A variable's default as README's table shows it. */
export function defaultText(name: EnvName): string {
  const schema = variableSchema(name)
  if (schema.default === undefined) return schema.unset ?? 'unset'
  if (typeof schema.default === 'boolean') return schema.default ? 'on' : 'off'
  return schema.default === '' ? 'empty' : String(schema.default)
}

/** Reads each variable by its schema: unset or blank takes the default. */
function parseEnv(environment: Record<string, string | undefined>): Env {
  const out: Record<string, unknown> = {}
  for (const name of ENV_NAMES) {
    const schema = variableSchema(name)
    const raw = environment[name]
    // Secrets are taken as given; a stray space elsewhere is a typing slip.
    const value = schema.secret === true ? raw : raw?.trim()
    out[name] = value ? convert(name, schema, value) : schema.default
  }
  return out as Env
}

const TRUE = ['1', 'true', 'yes', 'on']
const FALSE = ['0', 'false', 'no', 'off']

function convert(name: EnvName, schema: VariableSchema, value: string): unknown {
  const fail = (expected: string): never => {
    throw new ConfigError(`${name}=${quote(name, value)}: must be ${expected}`)
  }
  switch (schema.type) {
    case 'integer': {
      const range = `a whole number from ${schema.minimum} to ${schema.maximum}`
      if (!/^\d+$/.test(value)) fail(range)
      const n = Number(value)
      if (n < schema.minimum! || n > schema.maximum!) fail(range)
      return n
    }
    case 'boolean':
      if (TRUE.includes(value.toLowerCase())) return true
      if (FALSE.includes(value.toLowerCase())) return false
      return fail('on or off (also true/false, yes/no, 1/0)')
    default:
      if (schema.enum && !schema.enum.includes(value)) fail(`one of ${schema.enum.join(', ')}`)
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) fail(schema.expected!)
      if (schema.format === 'url' && !URL.canParse(value)) fail('an absolute URL')
      return value
  }
}

/** The configured value for a message; secrets are not repeated, a URL's password is masked. */
function quote(name: EnvName, value: string): string {
  const { secret } = variableSchema(name)
  if (secret === true) return '"(hidden)"'
  if (secret === 'password') return JSON.stringify(value.replace(/(\/\/[^/:@]*:)[^/@]*@/, '$1***@'))
  return JSON.stringify(value)
}

function list(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Parses `1m,5m,1h` style lists; a bare number is milliseconds. */
function parseDurations(raw: string): number[] {
  return list(raw).map((part) => {
    const match = /^(\d+)(ms|s|m|h)?$/.exec(part)
    if (!match) throw new ConfigError(`bad duration "${part}" (use a number with ms, s, m or h)`)
    return Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!
  })
}

/** The configuration of a service started with no variables set. */
export const DEFAULT_CONFIG = loadConfig({})
