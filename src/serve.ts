import { join } from 'node:path'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'
import { DataDirInUseError } from './db/data-dir-lock.ts'
import { loggerOptions } from './http/logging.ts'
import { serveMetrics } from './http/metrics.ts'
import { createMemoryRateLimiter, createRedisRateLimiter } from './http/rate-limit.ts'
import { systemClock } from './lib/clock.ts'
import { createMetrics } from './metrics.ts'
import {
  FileStoreConflictError,
  localFileStore,
  registerInstance,
  s3FileStore,
} from './modules/system/instances.ts'
import { createLocalStorage } from './modules/uploads/storage/local.ts'
import type { FileStorage } from './modules/uploads/storage/storage.ts'
import { resolveOperatorToken } from './operator-token.ts'
import { createServices } from './services.ts'
import { stopOnRequest } from './shutdown.ts'
import { createWebhookWorker, openMigratedDatabase, startUpkeep } from './start-up.ts'
import type { Telemetry } from './telemetry/start.ts'

/** Exit status of a start refused because another process holds DATA_DIR's embedded database. */
const EXIT_DATA_DIR_IN_USE = 3

async function main(config: Readonly<Config>, telemetry: Telemetry | undefined): Promise<void> {
  // Parts made before the app (and its logger) log through this until it exists.
  let log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void } = {
    warn: (obj, msg) => console.error(msg, obj),
    info: (obj, msg) => console.log(msg, obj),
  }
  const timeouts = {
    connectMs: config.databaseConnectTimeoutMs,
    statementMs: config.databaseStatementTimeoutMs,
  }
  const opened = await openMigratedDatabase(config, timeouts)
  const { db, dialect, listen } = opened

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
    traceIds: telemetry !== undefined,
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
    groupCommits: dialect === 'pglite',
    // Intake waits for the one connection while a batch holds it: resting three times as long keeps it >= 0.7 of alone.
    pruneRest: dialect === 'pglite' ? 3 : 1,
    metrics,
    metricsOnApiPort: config.metricsPort === undefined,
    telemetry,
  }
  const services = createServices(deps)
  const app = await buildApp(deps, services)
  log = app.log

  const { sweeper, pruner, folding, preflight } = startUpkeep(app.log, services, opened)
  const { workerDb, dispatcher } = await createWebhookWorker(config, opened, timeouts, app.log, metrics)

  stopOnRequest(app, {
    sweeper,
    pruner,
    metricsServer: () => metricsServer,
    dispatcher,
    folding,
    preflight,
    rateLimiter,
    storage,
    registration,
    workerDb,
    db,
    telemetry,
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

/** The service, started from src/main.ts; a failed start exits with its reason. */
export function serve(config: Readonly<Config>, telemetry: Telemetry | undefined): Promise<void> {
  return main(config, telemetry).catch(fail)
}

function fail(err: unknown): never {
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
}
