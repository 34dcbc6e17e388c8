import Type, { type Static } from 'typebox'

/**
 * Every environment variable the service reads, declared once: type, default,
 * limits and meaning. The configuration table of docs/operations.md lists the same variables
 * and defaults (a test compares them); config.ts reads the environment by it
 * (with Ajv) and the rest of the code reads the parsed, frozen Config. Extra keywords: `unset` says what an unset variable without a
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
  TRUST_PROXY: Type.Optional(
    Type.String({
      unset: 'off',
      description: 'proxies whose X-Forwarded-For is believed: a hop count or addresses and CIDRs',
    }),
  ),
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
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    Type.String({
      format: 'url',
      description: 'OpenTelemetry collector (OTLP/HTTP) that traces go to, at /v1/traces; unset: no traces',
    }),
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(
    Type.String({ format: 'url', description: 'the traces URL itself, instead of the endpoint above' }),
  ),
  OTEL_EXPORTER_OTLP_HEADERS: Type.Optional(
    Type.String({ secret: true, description: 'headers sent to the collector, key=value,key=value' }),
  ),
  OTEL_EXPORTER_OTLP_PROTOCOL: Type.String({
    default: 'http/json',
    enum: ['http/json'],
    description: 'OTLP over HTTP with JSON bodies (the only protocol sent)',
  }),
  OTEL_TRACES_EXPORTER: Type.String({
    default: 'otlp',
    enum: ['otlp', 'none'],
    description: 'none sends no traces even with an endpoint',
  }),
  OTEL_SDK_DISABLED: Type.Boolean({ default: false, description: 'on sends no traces' }),
  OTEL_SERVICE_NAME: Type.String({
    default: 'order-intake-service',
    description: 'service.name of the spans',
  }),
  OTEL_RESOURCE_ATTRIBUTES: Type.Optional(
    Type.String({ description: 'more attributes of the spans’ resource, key=value,key=value' }),
  ),
  OTEL_TRACES_SAMPLER: Type.String({
    default: 'parentbased_always_on',
    enum: [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ],
    description: 'which traces are kept (parentbased: as the caller’s traceparent says)',
  }),
  OTEL_TRACES_SAMPLER_ARG: Type.Optional(
    Type.String({
      pattern: '^(0(\\.\\d+)?|1(\\.0+)?|\\.\\d+)$',
      expected: 'a ratio from 0 to 1',
      unset: '1',
      description: 'the share of traces the ratio samplers keep',
    }),
  ),
})

export type Env = Static<typeof EnvSchema>
export type EnvName = keyof Env
