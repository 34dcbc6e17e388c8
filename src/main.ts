import { join } from 'node:path'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { DataDirInUseError } from './db/data-dir-lock.ts'
import { migrateToLatest, openDatabase } from './db/database.ts'
import { analyzeTables } from './db/upkeep.ts'
import { loggerOptions } from './http/logging.ts'
import { serveMetrics } from './http/metrics.ts'
import { createMemoryRateLimiter, createRedisRateLimiter } from './http/rate-limit.ts'
import { systemClock } from './lib/clock.ts'
import { createMetrics, observePools } from './metrics.ts'
import { startOrderChangeFolding } from './modules/orders/changes/changes.folding.ts'
import {
  FileStoreConflictError,
  localFileStore,
  registerInstance,
  s3FileStore,
} from './modules/system/instances.ts'
import { createLocalStorage } from './modules/uploads/storage/local.ts'
import type { FileStorage } from './modules/uploads/storage/storage.ts'
import { foldWebhookOutcomes } from './modules/webhooks/deliveries/daily-outcomes.repo.ts'
import { createDispatcher } from './modules/webhooks/worker/dispatcher.ts'
import { resolveOperatorToken } from './operator-token.ts'
import { createServices } from './services.ts'
import { handleStopRequests, STOP_SIGNALS } from './stop-requests.ts'

/** Exit status of a start refused because another process holds DATA_DIR's embedded database. */
const EXIT_DATA_DIR_IN_USE = 3

/** How often each instance removes expired unreferenced uploads. */
const SWEEP_INTERVAL_MS = 60_000
/** How often the request log is pruned (it is read newest first, so late pruning costs only disk). */
const PRUNE_INTERVAL_MS = 10 * 60_000

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }

  // Parts made before the app (and its logger) log through this until it exists.
  let log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void } = {
    warn: (obj, msg) => console.error(msg, obj),
    info: (obj, msg) => console.log(msg, obj),
  }
  const timeouts = {
    connectMs: config.databaseConnectTimeoutMs,
    statementMs: config.databaseStatementTimeoutMs,
  }
  if (config.databaseUrl) {
    // Migrations may rebuild large tables or wait for another instance's
    // migration lock: their own short-lived connection, without the timeouts.
    const migrations = await openDatabase({ url: config.databaseUrl, poolSize: 1 })
    try {
      await migrateToLatest(migrations.db)
    } finally {
      await migrations.db.destroy()
    }
  }
  const { db, dialect, listen, poolStats } = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    timeouts,
  })
  if (dialect === 'pglite') {
    await migrateToLatest(db)
    await analyzeTables(db)
  }

  // Instances on one PostgreSQL must keep uploads in one place (the embedded
  // database has one process anyway).
  const registration =
    dialect === 'postgres'
      ? await registerInstance(
          db,
          config.s3 ? s3FileStore(config.s3) : localFileStore(join(config.dataDir, 'files')),
          { onHeartbeatError: (err) => log.warn({ err }, 'instance heartbeat failed') },
        )
      : undefined

  const operator = resolveOperatorToken(config.operatorToken, config.dataDir)
  const logger = loggerOptions({
    level: config.logLevel,
    pretty: process.stdout.isTTY === true,
    secrets: [operator.token, config.s3?.secretAccessKey],
  })
  const rateLimiter = config.redisUrl
    ? await createRedisRateLimiter(config.redisUrl, config.rateLimitPerMinute, {
        timeoutMs: config.redisTimeoutMs,
        onFallback: ({ counting, err }) =>
          counting === 'in-process'
            ? log.warn({ err }, 'Redis unavailable: counting rate limits in this process until it answers')
            : log.info({}, 'Redis answers again: rate limits are counted in Redis'),
      })
    : createMemoryRateLimiter(config.rateLimitPerMinute)

  // The AWS SDK is loaded only when S3 is configured: it is a tenth of an idle instance's memory.
  const storage: FileStorage = config.s3
    ? (await import('./modules/uploads/storage/s3.ts')).createS3Storage(config.s3)
    : createLocalStorage({ root: join(config.dataDir, 'files') })
  const metrics = createMetrics({ processMetrics: true })
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined
  const deps = {
    config,
    db,
    listen,
    clock: systemClock,
    storage,
    rateLimiter,
    operatorToken: operator.token,
    logger,
    // The embedded database has exactly one process, so keys kept in memory and
    // cleared on revoke are exact there; with PostgreSQL another instance may
    // revoke, so a key from memory is checked in the database by each request.
    cacheApiKeys: dialect === 'pglite',
    metrics,
    metricsOnApiPort: config.metricsPort === undefined,
  }
  const services = createServices(deps)
  const app = await buildApp(deps, services)
  log = app.log

  // Every instance sweeps; marking rows before deleting makes concurrent sweeps safe.
  const sweeper = setInterval(() => {
    services.uploads
      .sweep()
      .then((n) => n > 0 && app.log.info({ expired: n }, 'expired unreferenced uploads removed'))
      .catch((err) => app.log.error({ err }, 'upload sweep failed'))
  }, SWEEP_INTERVAL_MS)
  sweeper.unref()
  // The request log keeps 30 days and a cap per organization; any instance prunes it.
  const pruneRequests = () =>
    services.requests
      .prune()
      .then((n) => n > 0 && app.log.info({ deleted: n }, 'old request log lines removed'))
      .catch((err) => app.log.error({ err }, 'request log pruning failed'))
  const pruner = setInterval(pruneRequests, PRUNE_INTERVAL_MS)
  pruner.unref()
  // Order statistics, unmatched skus and webhook outcomes are counted here, off the order and delivery paths.
  const folding = startOrderChangeFolding({
    db,
    alsoFold: [foldWebhookOutcomes],
    ...(dialect === 'pglite' ? { analyzeEvery: 500 } : {}),
    onError: (err) => app.log.error({ err }, 'folding order changes failed'),
  })

  // The run mode gates the consumer only: every instance writes events and
  // deliveries; only instances with the worker on send them. On PostgreSQL the
  // worker has one connection of its own with generic plans, so requests and
  // worker never wait for each other (docs/decisions/2026-11-25-webhook-worker-connection.md).
  const worker =
    config.webhookWorker && dialect === 'postgres'
      ? await openDatabase({
          url: config.databaseUrl,
          poolSize: 1,
          timeouts,
          settings: { plan_cache_mode: 'force_generic_plan', application_name: 'svc-webhook-worker' },
        })
      : undefined
  const workerDb = worker?.db ?? db
  observePools(metrics, { api: poolStats, ...(worker ? { worker: worker.poolStats } : {}) })
  const dispatcher = config.webhookWorker
    ? createDispatcher({
        db: workerDb,
        clock: systemClock,
        log: app.log,
        listen,
        retryDelaysMs: config.webhookRetryDelaysMs,
        timeoutMs: config.webhookTimeoutMs,
        concurrency: config.webhookConcurrency,
        endpointConcurrency: config.webhookEndpointConcurrency,
        slowConcurrency: config.webhookSlowConcurrency,
        allowPrivateCidrs: config.webhookAllowPrivateCidrs,
        observer: metrics.webhookObserver,
        ...(config.webhookLeaseMs ? { leaseMs: config.webhookLeaseMs } : {}),
      })
    : undefined

  const closer = closeWithGrace({ delay: 20_000, skip: [...STOP_SIGNALS] }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else if (signal) app.log.info({ signal }, 'shutting down: draining in-flight requests')
    // Stops accepting connections and waits for in-flight requests to finish.
    clearInterval(sweeper)
    clearInterval(pruner)
    // A keep-alive connection whose request was in flight when closing began
    // stays open after its response (until keepAliveTimeout, past the forced
    // exit): close such connections as soon as they are idle.
    const reaper = setInterval(() => app.server.closeIdleConnections(), 100)
    try {
      await app.close()
    } finally {
      clearInterval(reaper)
    }
    await metricsServer?.close()
    // Attempts in flight get a few seconds; unfinished claims go back to the table.
    await dispatcher?.stop()
    await folding.stop()
    await rateLimiter.close()
    await storage.close?.()
    await registration?.stop()
    if (workerDb !== db) await workerDb.destroy()
    await db.destroy()
    app.log.info('stopped')
  })

  handleStopRequests({
    stop: (reason) => {
      app.log.info(reason, 'shutting down: draining in-flight requests')
      void closer.close()
    },
    abort: (signal) => {
      app.log.error({ signal }, 'asked again to stop: exiting at once')
      process.exit(1)
    },
    // Started by an npm script: npm is the parent, and this process must not outlive it.
    watchParent: process.env.npm_lifecycle_event !== undefined,
  })

  await app.listen({ port: config.port, host: config.host })
  if (config.metricsPort !== undefined) {
    metricsServer = await serveMetrics(metrics, { port: config.metricsPort, host: config.host })
    app.log.info(`metrics at http://${config.host}:${metricsServer.port}/metrics`)
  }
  await dispatcher?.start()
  app.log.info(
    {
      database: dialect === 'postgres' ? 'postgresql' : `embedded (${config.dataDir}/pgdata)`,
      rate_limit: config.redisUrl ? 'redis' : 'in-process',
      webhook_worker: dispatcher ? 'on' : 'off',
      file_storage: config.s3 ? `s3 (${config.s3.bucket})` : `embedded (${config.dataDir}/files)`,
      public_base_url: config.publicBaseUrl,
    },
    'service ready',
  )
  if (operator.path) {
    app.log.info({ path: operator.path }, 'operator token file (use it as Bearer token for /admin/v1)')
  }
}

main().catch((err) => {
  if (err instanceof DataDirInUseError) {
    console.error(`cannot start: ${err.message}`)
    process.exit(EXIT_DATA_DIR_IN_USE)
  }
  if (err instanceof FileStoreConflictError) {
    console.error(`configuration error: ${err.message}`)
    process.exit(2)
  }
  console.error(err)
  process.exit(1)
})
