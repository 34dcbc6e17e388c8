import { join } from 'node:path'
import closeWithGrace from 'close-with-grace'
import { buildApp, createServices } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { migrateToLatest, openDatabase } from './db/database.ts'
import { createMemoryRateLimiter, createRedisRateLimiter } from './http/rate-limit.ts'
import { systemClock } from './lib/clock.ts'
import { createLocalStorage } from './modules/uploads/storage/local.ts'
import { createS3Storage } from './modules/uploads/storage/s3.ts'
import type { FileStorage } from './modules/uploads/storage/storage.ts'
import { createDispatcher } from './modules/webhooks/dispatcher.ts'
import { resolveOperatorToken } from './operator-token.ts'

/** How often each instance removes expired unreferenced uploads. */
const SWEEP_INTERVAL_MS = 60_000

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

  const logger = {
    level: config.logLevel,
    // Belt and braces: nothing logs these today, and nothing ever should.
    redact: ['req.headers.authorization', 'headers.authorization', 'key', 'token', 'secret'],
  }
  const { db, dialect, listen } = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir })
  await migrateToLatest(db)

  const operator = resolveOperatorToken(config.operatorToken, config.dataDir)
  const rateLimiter = config.redisUrl
    ? await createRedisRateLimiter(config.redisUrl, config.rateLimitPerMinute)
    : createMemoryRateLimiter(config.rateLimitPerMinute)

  const storage: FileStorage = config.s3
    ? createS3Storage(config.s3)
    : createLocalStorage({ root: join(config.dataDir, 'files') })
  const deps = {
    config,
    db,
    clock: systemClock,
    storage,
    rateLimiter,
    operatorToken: operator.token,
    logger,
    // The embedded database has exactly one process, so a key cache cleared on
    // revoke is exact there; with PostgreSQL another instance may revoke.
    cacheApiKeys: dialect === 'pglite',
  }
  const services = createServices(deps)
  const app = await buildApp(deps, services)

  // Every instance sweeps; marking rows before deleting makes concurrent sweeps safe.
  const sweeper = setInterval(() => {
    services.uploads
      .sweep()
      .then((n) => n > 0 && app.log.info({ expired: n }, 'expired unreferenced uploads removed'))
      .catch((err) => app.log.error({ err }, 'upload sweep failed'))
  }, SWEEP_INTERVAL_MS)
  sweeper.unref()

  // The run mode gates the consumer only: every instance writes events and
  // deliveries; only instances with the worker on send them.
  // On PostgreSQL the worker's claims and results run on one connection of
  // their own: one busy backend instead of several contending for the same
  // queue pages, and API requests never wait behind the worker for a
  // connection (nor the worker behind them). Its few statements are planned
  // once per connection (generic plans) instead of on every execution, which
  // cost more than executing a claim or a batch of results. It shows in
  // pg_stat_activity as svc-webhook-worker. The embedded database is one
  // session anyway.
  const workerDb =
    config.webhookWorker && dialect === 'postgres'
      ? (
          await openDatabase({
            url: config.databaseUrl,
            poolSize: 1,
            settings: { plan_cache_mode: 'force_generic_plan', application_name: 'svc-webhook-worker' },
          })
        ).db
      : db
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
        ...(config.webhookLeaseMs ? { leaseMs: config.webhookLeaseMs } : {}),
      })
    : undefined
  app.server.requestTimeout = 60_000
  app.server.headersTimeout = 30_000
  app.server.keepAliveTimeout = 72_000

  closeWithGrace({ delay: 20_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down: draining in-flight requests')
    // Stops accepting connections and waits for in-flight requests to finish.
    clearInterval(sweeper)
    await app.close()
    // Attempts in flight get a few seconds; unfinished claims go back to the table.
    await dispatcher?.stop()
    await rateLimiter.close()
    await storage.close?.()
    if (workerDb !== db) await workerDb.destroy()
    await db.destroy()
    app.log.info('stopped')
  })

  await app.listen({ port: config.port, host: config.host })
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
  console.error(err)
  process.exit(1)
})
