import { resolve } from 'node:path'
import { Ajv } from 'ajv'
import ipaddr from 'ipaddr.js'
import type { TSchema } from 'typebox'
import { type Env, type EnvName, EnvSchema } from './config.schema.ts'

export { type Env, type EnvName, EnvSchema }

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
  /** Off (false), the number of proxies in front, or the addresses and CIDRs of trusted proxies. */
  trustProxy: TrustProxy
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
  /** OpenTelemetry traces (src/telemetry/), or undefined: off. */
  tracing: TracingConfig | undefined
}

/** Traces over OTLP/HTTP, configured by the standard OTEL_ variables. */
export interface TracingConfig {
  /** Where spans are posted. */
  url: string
  serviceName: string
  sampler: string
  /** The ratio samplers' share of traces. */
  ratio: number
}

export class ConfigError extends Error {}

export type TrustProxy = false | number | readonly string[]

/** More proxies than this in front of the service is a typing slip. */
export const MAX_TRUSTED_HOPS = 32
/** proxy-addr's names for address ranges, accepted beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal']

/** The signing region S3-compatible stores accept when none is configured. */
const UNSET_S3_REGION = 'us-east-1'

export function loadConfig(environment: Record<string, string | undefined> = process.env): Readonly<Config> {
  const env = parseEnv(environment)
  const fail = (name: EnvName, problem: string): never => {
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
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, (problem) => fail('TRUST_PROXY', problem))
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
    trustProxy,
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
    tracing: tracingConfig(env),
  })
}

/**
 * Traces are on when a collector is named, unless the SDK is disabled or the
 * exporter is none (the OpenTelemetry specification's variables and meanings).
 */
function tracingConfig(env: Env): Readonly<TracingConfig> | undefined {
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`)
  if (!url || env.OTEL_SDK_DISABLED || env.OTEL_TRACES_EXPORTER === 'none') return undefined
  return Object.freeze({
    url,
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    ratio: env.OTEL_TRACES_SAMPLER_ARG === undefined ? 1 : Number(env.OTEL_TRACES_SAMPLER_ARG),
  })
}

/** The configuration from the environment; a bad one exits with status 2 and the reason. */
export function configOrExit(): Readonly<Config> {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }
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

/**
 * Ajv applies the defaults, turns digits into integers and checks limits, enums,
 * patterns and URLs. Not strict: the schema's own keywords (`unset`, `expected`,
 * `secret`) and TypeBox's markers are annotations it need not know.
 */
const validate = new Ajv({ coerceTypes: true, useDefaults: true, strict: false })
  .addFormat('url', (value: string) => URL.canParse(value))
  .compile<Env>(EnvSchema)

/** How a boolean may be written; Ajv's coercion knows only "true" and "false". */
const BOOLEANS = new Map(
  Object.entries({ 1: true, true: true, yes: true, on: true, 0: false, false: false, no: false, off: false }),
)

/** A variable as set; unset or blank is undefined. Secrets are taken as given, a stray space elsewhere is a typing slip. */
function given(environment: Record<string, string | undefined>, name: EnvName): string | undefined {
  const raw = environment[name]
  return (variableSchema(name).secret === true ? raw : raw?.trim()) || undefined
}

/** Reads each variable by its schema: unset or blank takes the default; the first invalid one is refused. */
function parseEnv(environment: Record<string, string | undefined>): Env {
  const input: Record<string, unknown> = {}
  for (const name of ENV_NAMES) {
    const value = given(environment, name)
    if (value === undefined) continue
    const { type } = variableSchema(name)
    if (type === 'boolean') input[name] = BOOLEANS.get(value.toLowerCase()) ?? value
    // Ajv's coercion would also take 1e3, 0x10, -0 or 1.0: anything but digits reaches it as NaN, refused.
    else input[name] = type === 'integer' && !/^\d+$/.test(value) ? Number.NaN : value
  }
  if (validate(input)) return input
  const { instancePath, keyword } = validate.errors![0]!
  const name = instancePath.slice(1) as EnvName
  throw new ConfigError(
    `${name}=${quote(name, given(environment, name)!)}: must be ${expected(name, keyword)}`,
  )
}

/** What a refused value must be, by the variable's schema and the keyword it failed. */
function expected(name: EnvName, keyword: string): string {
  const schema = variableSchema(name)
  if (schema.type === 'integer') return `a whole number from ${schema.minimum} to ${schema.maximum}`
  if (schema.type === 'boolean') return 'on or off (also true/false, yes/no, 1/0)'
  if (keyword === 'enum') return `one of ${schema.enum!.join(', ')}`
  return keyword === 'format' ? 'an absolute URL' : schema.expected!
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

/** An address as proxy-addr reads it: four decimal parts (not `10` or `0xa`) or IPv6. */
const isAddress = (s: string) => ipaddr.IPv4.isValidFourPartDecimal(s) || ipaddr.IPv6.isValid(s)

/**
 * TRUST_PROXY: unset or `off` trusts no proxy (X-Forwarded-For is ignored); digits
 * are the number of proxies in front; otherwise a list of proxy addresses, CIDRs
 * and proxy-addr's range names. `true` is refused: it would let any client that
 * reaches the port name its own address.
 */
function parseTrustProxy(raw: string | undefined, fail: (problem: string) => never): TrustProxy {
  if (raw === undefined || raw.toLowerCase() === 'off') return false
  const expected = `must be off, a number of proxies from 1 to ${MAX_TRUSTED_HOPS}, or a comma-separated list of proxy addresses and CIDRs (10.0.0.0/8, ::1, loopback)`
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw)
    if (hops < 1 || hops > MAX_TRUSTED_HOPS) fail(expected)
    return hops
  }
  const entries = list(raw)
  if (entries.length === 0 || ['true', 'on', 'yes'].includes(raw.toLowerCase())) fail(expected)
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/')
    const valid =
      PROXY_RANGE_NAMES.includes(entry) ||
      (prefix === undefined && isAddress(entry)) ||
      (extra === undefined &&
        /^\d{1,3}$/.test(prefix ?? '') &&
        isAddress(address!) &&
        ipaddr.isValidCIDR(entry))
    if (!valid) fail(`"${entry}" is not an address, a CIDR or one of ${PROXY_RANGE_NAMES.join(', ')}`)
  }
  return Object.freeze(entries)
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
