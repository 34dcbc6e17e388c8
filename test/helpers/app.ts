import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import type { ServerOptions } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import type { FastifyInstance, FastifyServerOptions, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.ts'
import type { AppDeps } from '../../src/app-deps.ts'
import { DEFAULT_CONFIG, type TrustProxy } from '../../src/config.ts'
import { type Database, type Listen, openDatabase, type PoolStats } from '../../src/db/database.ts'
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
} from '../../src/http/rate-limit.ts'
import type { Timeouts } from '../../src/http/timeouts.ts'
import type { Clock } from '../../src/lib/clock.ts'
import type { Metrics } from '../../src/metrics.ts'
import { createLocalStorage } from '../../src/modules/uploads/storage/local.ts'
import type { FileStorage } from '../../src/modules/uploads/storage/storage.ts'
import {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
} from '../../src/modules/webhooks/worker/dispatcher.ts'
import type { Resolver } from '../../src/modules/webhooks/worker/ssrf.ts'
import { createServices, type Services } from '../../src/services.ts'
import { createPgDatabase, pgliteTemplate } from './databases.ts'

/**
 * The database the suite runs on: embedded PGlite in memory by default;
 * PostgreSQL when TEST_DATABASE_URL is set (scripts/test.ts sets it under CI).
 * Every test database is a copy of a migrated template (helpers/databases.ts):
 * on PostgreSQL a database of its own, dropped when closed.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined
export const DIALECT = TEST_DATABASE_URL ? 'postgres' : 'pglite'
/** The skip reason of tests that need a server (`skip: !TEST_DATABASE_URL && NEEDS_POSTGRESQL`). */
export const NEEDS_POSTGRESQL =
  'needs PostgreSQL: TEST_DATABASE_URL is not set (npm test sets it when CI=true)'
export const NEEDS_REDIS = 'needs Redis: TEST_REDIS_URL is not set (npm test sets it when CI=true)'

export interface TestDatabase {
  db: Database
  listen: Listen
  poolStats(): PoolStats
  /** The database's URL on PostgreSQL; undefined on PGlite. */
  url: string | undefined
  /** Another connection pool on the same database (a second instance); PostgreSQL only. */
  openAnother(): Promise<Database>
  close(): Promise<void>
}

/** A test database: migrated, or empty (`migrated: false`) for the tests of the migrations. */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrated = options.migrated !== false
  if (!TEST_DATABASE_URL) {
    const { db, listen, poolStats } = await openDatabase(
      migrated ? { embeddedDump: await pgliteTemplate() } : {},
    )
    return {
      db,
      listen,
      poolStats,
      url: undefined,
      openAnother: async () => {
        throw new Error('a second connection needs PostgreSQL')
      },
      close: () => db.destroy(),
    }
  }
  const database = await createPgDatabase(TEST_DATABASE_URL, { migrated })
  const { db, listen, poolStats } = await openDatabase({ url: database.url, poolSize: 20 })
  const others: Database[] = []
  return {
    db,
    listen,
    poolStats,
    url: database.url,
    async openAnother() {
      const other = (await openDatabase({ url: database.url, poolSize: 20 })).db
      others.push(other)
      return other
    },
    async close() {
      for (const other of others) await other.destroy()
      await db.destroy()
    },
  }
}

/**
 * One test database for a describe's (or a file's) tests, usable as `testDb`
 * from the top: created before the first test, closed after the last.
 */
export function useTestDatabase(options: Parameters<typeof createTestDatabase>[0] = {}): TestDatabase {
  let testDb: TestDatabase | undefined
  before(async () => {
    testDb = await createTestDatabase(options)
  })
  after(() => testDb?.close())
  return new Proxy({} as TestDatabase, {
    get(_, key) {
      if (!testDb) throw new Error('the test database is made in before()')
      return Reflect.get(testDb, key)
    },
  })
}

/** A clock tests can move. */
export function manualClock(start = new Date('2026-11-22T10:00:00.000Z')) {
  let now = start.getTime()
  const clock: Clock & { advance(ms: number): void; set(d: Date): void } = {
    now: () => new Date(now),
    advance: (ms) => {
      now += ms
    },
    set: (d) => {
      now = d.getTime()
    },
  }
  return clock
}

/** scrypt at 1/32 of the service's cost: a test's members and sign-ins cost milliseconds, not a third of a second. */
export const TEST_PASSWORD_COST = { N: 1024, r: 8, p: 1 }
export const OPERATOR_TOKEN = 'op_test_operator_token_for_the_suite_0123456789'
export const PUBLIC_BASE_URL = 'http://api.test'

export interface TestApp {
  app: FastifyInstance
  /** The app's services (the request log's recorder, for one). */
  services: Services
  db: Database
  storage: FileStorage
  testDb: TestDatabase
  rateLimiter: RateLimiter
  /** Operator API call with the operator token. */
  admin(method: InjectOptions['method'], url: string, payload?: unknown): Promise<LightMyRequestResponse>
  /** Public API call with a key. */
  api(
    key: string | undefined,
    method: InjectOptions['method'],
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse>
  /** Starts a webhook worker on this app's database; stopped by close(). */
  startDispatcher(options?: Partial<DispatcherOptions>): Promise<Dispatcher>
  createOrganization(name?: string): Promise<{ id: string; name: string }>
  createKey(
    organizationId: string,
    options?: { environment?: 'test' | 'live'; scopes?: string[]; expires_at?: string },
  ): Promise<{ key: string; id: string }>
  /** An organization with a test and a live key carrying every scope. */
  tenant(name?: string): Promise<{ orgId: string; testKey: string; liveKey: string }>
  close(): Promise<void>
}

/** A timestamp as the service writes it: ISO 8601 UTC with milliseconds. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

export const ALL_SCOPES = ['orders:read', 'orders:write', 'files:write', 'webhooks:manage']

/**
 * One app for a file's tests, usable as `t` from the top of the file: created
 * before the first test, closed after the last.
 */
export function useTestApp(options: Parameters<typeof createTestApp>[0] = {}): TestApp {
  let app: TestApp | undefined
  before(async () => {
    app = await createTestApp(options)
  })
  after(() => app?.close())
  return new Proxy({} as TestApp, {
    get(_, key) {
      if (!app) throw new Error('the test app is made in before()')
      return Reflect.get(app, key)
    },
  })
}

export async function createTestApp(
  options: {
    clock?: Clock
    rateLimitPerMinute?: number
    redis?: boolean
    /** A rate limiter of the test's own (closed by close()). */
    rateLimiter?: RateLimiter
    testDb?: TestDatabase
    /** Share the database of another test app (a second instance). */
    db?: Database
    /** File storage; by default embedded storage in a fresh temporary directory. */
    storage?: FileStorage
    uploadUrlTtlS?: number
    uploadRetentionS?: number
    webhookAllowPrivateCidrs?: string[]
    cacheApiKeys?: boolean
    /** DNS for webhook hosts. */
    resolver?: Resolver
    /** Options of Node's HTTP server (timeouts checked more often), for tests that listen. */
    http?: ServerOptions
    /** Shorter request timeouts (src/http/timeouts.ts). */
    timeouts?: Partial<Timeouts>
    /** Pino options; no logging by default. */
    logger?: FastifyServerOptions['logger']
    /** Prometheus metrics the test scrapes; the app makes its own without. */
    metrics?: Metrics
    /** Listen streams' keepalive and poll intervals. */
    listenTimings?: { keepaliveMs?: number; pollMs?: number }
    metricsOnApiPort?: boolean
    /** TRUST_PROXY; off by default. */
    trustProxy?: TrustProxy
    /** PUBLIC_BASE_URL; http://api.test by default. */
    publicBaseUrl?: string
    /** Hash new passwords at the service's own scrypt cost (by default a cheaper one: members are made by the hundred). */
    servicePasswordCost?: boolean
    /** Traces (src/telemetry/start.ts), started by the test before it imported this helper. */
    telemetry?: AppDeps['telemetry']
  } = {},
): Promise<TestApp> {
  const testDb = options.testDb ?? (await createTestDatabase())
  const db = options.db ?? testDb.db
  const limit = options.rateLimitPerMinute ?? 100_000
  let rateLimiter: RateLimiter
  if (options.rateLimiter) {
    rateLimiter = options.rateLimiter
  } else if (options.redis) {
    if (!TEST_REDIS_URL) throw new Error('TEST_REDIS_URL is not set')
    rateLimiter = await createRedisRateLimiter(TEST_REDIS_URL, limit)
  } else {
    rateLimiter = createMemoryRateLimiter(
      limit,
      options.clock ? () => options.clock!.now().getTime() : undefined,
    )
  }
  const filesDir = options.storage ? undefined : await mkdtemp(join(tmpdir(), 'svc-files-'))
  const storage = options.storage ?? createLocalStorage({ root: filesDir! })
  const deps: AppDeps = {
    config: {
      publicBaseUrl: options.publicBaseUrl ?? PUBLIC_BASE_URL,
      logLevel: 'silent',
      rateLimitPerMinute: limit,
      uploadUrlTtlS: options.uploadUrlTtlS ?? DEFAULT_CONFIG.uploadUrlTtlS,
      uploadRetentionS: options.uploadRetentionS ?? DEFAULT_CONFIG.uploadRetentionS,
      webhookAllowPrivateCidrs: options.webhookAllowPrivateCidrs ?? [],
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    },
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.listenTimings ? { listenTimings: options.listenTimings } : {}),
    ...(options.metricsOnApiPort === false ? { metricsOnApiPort: false } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    cacheApiKeys: options.cacheApiKeys ?? false,
    // As the service does on the embedded database.
    groupCommits: !TEST_DATABASE_URL,
    ...(options.servicePasswordCost ? {} : { passwordCost: TEST_PASSWORD_COST }),
    db,
    listen: testDb.listen,
    storage,
    clock: options.clock ?? { now: () => new Date() },
    rateLimiter,
    operatorToken: OPERATOR_TOKEN,
    ...(options.http ? { http: options.http } : {}),
  }
  const services = createServices(deps)
  const app = await buildApp(deps, services)
  await app.ready()

  const inject = (
    headers: Record<string, string>,
    method: InjectOptions['method'],
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse> =>
    app.inject({
      method,
      url,
      headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(payload === undefined
        ? {}
        : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    })

  const dispatchers: Dispatcher[] = []
  const self: TestApp = {
    app,
    services,
    db,
    storage,
    testDb,
    rateLimiter,
    admin: (method, url, payload) =>
      inject({ authorization: `Bearer ${OPERATOR_TOKEN}` }, method, url, payload),
    api: (key, method, url, payload) =>
      inject(key === undefined ? {} : { authorization: `Bearer ${key}` }, method, url, payload),
    async startDispatcher(overrides = {}) {
      const dispatcher = createDispatcher({
        db,
        clock: options.clock ?? { now: () => new Date() },
        log: app.log,
        listen: testDb.listen,
        retryDelaysMs: [10, 20, 40],
        timeoutMs: 2000,
        pollIntervalMs: 50,
        allowPrivateCidrs: options.webhookAllowPrivateCidrs ?? [],
        ...overrides,
      })
      await dispatcher.start()
      dispatchers.push(dispatcher)
      return dispatcher
    },
    async createOrganization(name = 'Acme Prints') {
      const res = await self.admin('POST', '/admin/v1/organizations', { name })
      if (res.statusCode !== 201) throw new Error(`create organization: ${res.statusCode} ${res.body}`)
      return res.json().data.organization
    },
    async createKey(organizationId, opts = {}) {
      const res = await self.admin('POST', `/admin/v1/organizations/${organizationId}/api-keys`, {
        environment: opts.environment ?? 'test',
        scopes: opts.scopes ?? ALL_SCOPES,
        ...(opts.expires_at ? { expires_at: opts.expires_at } : {}),
      })
      if (res.statusCode !== 201) throw new Error(`create key: ${res.statusCode} ${res.body}`)
      const body = res.json()
      return { key: body.data.key, id: body.data.api_key.id }
    },
    async tenant(name) {
      const org = await self.createOrganization(name)
      const test = await self.createKey(org.id, { environment: 'test' })
      const live = await self.createKey(org.id, { environment: 'live' })
      return { orgId: org.id, testKey: test.key, liveKey: live.key }
    },
    async close() {
      for (const dispatcher of dispatchers) await dispatcher.stop(100)
      await app.close()
      await rateLimiter.close()
      if (!options.testDb && !options.db) await testDb.close()
      if (filesDir) await rm(filesDir, { recursive: true, force: true })
    },
  }
  return self
}

/** A valid order body; overrides replace top-level fields. */
export function orderBody(overrides: Record<string, unknown> = {}) {
  return {
    external_order_id: `EXT-${randomBytes(4).toString('hex')}`,
    customer: { name: 'Jo Doe', email: 'jo@example.com' },
    currency: 'EUR',
    total_amount: 59.9,
    items: [
      {
        sku: 'MUG-01',
        name: 'Mug',
        quantity: 2,
        price: 12.5,
        personalization: { text: 'Hello', color: 'red' },
      },
      { name: 'Card', quantity: 1 },
    ],
    ...overrides,
  }
}

const ORDER_TABLES = [
  'orders',
  'order_items',
  'order_changes',
  'production_orders',
  'production_jobs',
  'events',
] as const

/** Row counts of the tables an order writes, to prove a rejected request stored nothing. */
export async function rowCounts(db: Database): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ORDER_TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    counts[table] = Number(row.n)
  }
  return counts
}
