import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config.ts'
import { type DatabaseTimeouts, migrateToLatest, type OpenedDatabase, openDatabase } from './db/database.ts'
import { analyzeTables } from './db/upkeep.ts'
import { systemClock } from './lib/clock.ts'
import { type Metrics, observePools } from './metrics.ts'
import { startOrderChangeFolding } from './modules/orders/changes/changes.folding.ts'
import { foldWebhookOutcomes } from './modules/webhooks/deliveries/daily-outcomes.repo.ts'
import { createDispatcher } from './modules/webhooks/worker/dispatcher.ts'
import type { Services } from './services.ts'
import { inSpan } from './telemetry/tracing.ts'

/* The steps of main.ts's start-up that stand on their own. */

/** How often each instance removes expired unreferenced uploads. */
const SWEEP_INTERVAL_MS = 60_000
/** How often the request log is pruned (it is read newest first, so late pruning costs only disk). */
const PRUNE_INTERVAL_MS = 10 * 60_000

/**
 * The database, at the latest migration: PostgreSQL's migrated first over a
 * connection of its own, the embedded one migrated (and analyzed) in place.
 */
export async function openMigratedDatabase(
  config: Readonly<Config>,
  timeouts: DatabaseTimeouts,
): Promise<OpenedDatabase> {
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
  const opened = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    timeouts,
  })
  if (opened.dialect === 'pglite') {
    await migrateToLatest(opened.db)
    await analyzeTables(opened.db)
  }
  return opened
}

/** What every instance does in the background: the upload sweep, the request log's pruning, the folding of changes, preflight. */
export function startUpkeep(log: FastifyBaseLogger, services: Services, opened: OpenedDatabase) {
  const { db, dialect } = opened
  // Every instance sweeps; marking rows before deleting makes concurrent sweeps safe.
  const sweeper = setInterval(() => {
    inSpan('sweep uploads', {}, async (span) => {
      const n = await services.uploads.sweep()
      span.setAttribute('order_intake.uploads.expired', n)
      return n
    })
      .then((n) => n > 0 && log.info({ expired: n }, 'expired unreferenced uploads removed'))
      .catch((err) => log.error({ err }, 'upload sweep failed'))
  }, SWEEP_INTERVAL_MS)
  sweeper.unref()
  // The request log keeps 30 days and a cap per organization, and each organization's retention
  // (docs/personal-data.md) applies to bodies, answers and finished orders; any instance prunes.
  const pruneRequests = () =>
    inSpan('prune request log', {}, async (span) => {
      const n = await services.requests.prune()
      span.setAttribute('order_intake.request_log.deleted', n)
      return n
    })
      .then((n) => n > 0 && log.info({ deleted: n }, 'old request log lines removed'))
      .catch((err) => log.error({ err }, 'request log pruning failed'))
      .then(() =>
        inSpan('prune past retention', {}, async (span) => {
          const done = await services.personalData.prune()
          span.setAttributes({
            'order_intake.retention.request_bodies': done.request_bodies,
            'order_intake.retention.webhook_answers': done.webhook_answers,
            'order_intake.retention.orders': done.orders,
          })
          return done
        }),
      )
      .then((done) => {
        if (done && done.request_bodies + done.webhook_answers + done.orders > 0) {
          log.info(done, 'data past its retention removed')
        }
      })
      .catch((err) => log.error({ err }, 'retention pruning failed'))
  const pruner = setInterval(pruneRequests, PRUNE_INTERVAL_MS)
  pruner.unref()
  // Order statistics, unmatched skus and webhook outcomes are counted here, off the order and delivery paths.
  const folding = startOrderChangeFolding({
    db,
    alsoFold: [foldWebhookOutcomes],
    ...(dialect === 'pglite' ? { analyzeEvery: 500 } : {}),
    onError: (err) => log.error({ err }, 'folding order changes failed'),
  })
  // Every instance measures and checks production files, taking queued orders with SKIP LOCKED.
  const preflight = services.preflight.start({ onError: (err) => log.error({ err }, 'preflight failed') })
  return { sweeper, pruner, folding, preflight }
}

/**
 * The webhook worker, if this instance runs it (not started yet).
 *
 * The run mode gates the consumer only: every instance writes events and
 * deliveries; only instances with the worker on send them. On PostgreSQL the
 * worker has one connection of its own with generic plans, so requests and
 * worker never wait for each other (docs/decisions/2026-11-25-webhook-worker-connection.md).
 */
export async function createWebhookWorker(
  config: Readonly<Config>,
  opened: OpenedDatabase,
  timeouts: DatabaseTimeouts,
  log: FastifyBaseLogger,
  metrics: Metrics,
) {
  const { db, dialect, listen, poolStats } = opened
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
        log,
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
  return { workerDb, dispatcher }
}
