import type { ServerOptions } from 'node:http'
import type { FastifyServerOptions } from 'fastify'
import type { Config } from './config.ts'
import type { Database, Listen } from './db/database.ts'
import type { RateLimiter } from './http/rate-limit.ts'
import type { Timeouts } from './http/timeouts.ts'
import type { Clock } from './lib/clock.ts'
import type { Metrics } from './metrics.ts'
import type { PasswordCost } from './modules/accounts/passwords.ts'
import type { FileStorage } from './modules/uploads/storage/storage.ts'
import type { Resolver } from './modules/webhooks/worker/ssrf.ts'
import type { Telemetry } from './telemetry/start.ts'

/** What the app is built from: configuration, the database, storage, the clock, and what tests substitute. */
export interface AppDeps {
  config: Pick<
    Config,
    | 'publicBaseUrl'
    | 'logLevel'
    | 'rateLimitPerMinute'
    | 'uploadUrlTtlS'
    | 'uploadRetentionS'
    | 'webhookAllowPrivateCidrs'
  > &
    Partial<Pick<Config, 'trustProxy'>>
  db: Database
  /** NOTIFY subscriptions of the database (listen streams wake on committed events). */
  listen: Listen
  /** Shorter keepalive and poll intervals of listen streams (tests). */
  listenTimings?: { keepaliveMs?: number; pollMs?: number }
  storage: FileStorage
  clock: Clock
  rateLimiter: RateLimiter
  operatorToken: string
  /** DNS for webhook hosts (tests substitute their own). */
  resolver?: Resolver
  /** A cheaper scrypt cost for new passwords (tests only; the service always uses PASSWORD_COST). */
  passwordCost?: PasswordCost
  /** Cache API keys in memory: only for the embedded database (one process). */
  cacheApiKeys?: boolean
  /** New orders share commits: only for the embedded database, whose every commit is a disk write on the event loop. */
  groupCommits?: boolean
  /**
   * How long the background retention prune rests after each batch, as a share
   * of the batch's time: 1 by default; the embedded database's one connection
   * is shared with intake, so there it rests longer (main.ts).
   */
  pruneRest?: number
  /** OpenTelemetry traces when configured (src/telemetry/start.ts); undefined: off. */
  telemetry?: Pick<Telemetry, 'fastify'>
  /** Pino options or false; tests pass false. */
  logger?: FastifyServerOptions['logger']
  /** Options of Node's HTTP server (tests check timeouts more often). */
  http?: ServerOptions
  /** How long clients may take to send requests (tests shorten them). */
  timeouts?: Partial<Timeouts>
  /** Prometheus metrics (a registry of the app's own without). */
  metrics?: Metrics
  /** Serve GET /metrics on the API port with the operator token; false when METRICS_PORT serves them. */
  metricsOnApiPort?: boolean
}
